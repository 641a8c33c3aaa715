import type { Redis } from 'ioredis';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import type { Producer } from '../queues.ts';

/**
 * What follows every committed plan change, whoever made it (an operator's command, a billing
 * webhook): running API instances drop their memo of principals at once (limits, API keys refused
 * once PRO ends, WebSockets closed 4403 at their next re-check), and the emails it owes are handed
 * to the worker role now rather than at the next maintenance run.
 */

export interface PlanChange {
  planChanged: boolean;
  /** Ids of the account notices (emails) the change owes. */
  notices: readonly number[];
}

export type AnnouncePlanChange = (change: PlanChange) => Promise<void>;

export function createPlanAnnouncer(deps: {
  redis: Redis;
  prefix: string;
  /** No producer (a command without a queue connection): the emails wait for the maintenance run. */
  producer?: Pick<Producer, 'enqueue'>;
}): AnnouncePlanChange {
  return async (change) => {
    if (change.planChanged || change.notices.length > 0)
      await bumpAuthGeneration(deps.redis, deps.prefix);
    // One job sends every pending notice: the first id names it.
    const first = Math.min(...change.notices);
    if (deps.producer && Number.isFinite(first))
      await deps.producer.enqueue('accounts', { task: 'notices', noticeId: first });
  };
}
