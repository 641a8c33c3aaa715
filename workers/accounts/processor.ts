import type { Logger } from 'pino';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import type { JobData } from '../jobs.ts';
import { type NoticeSenderDeps, sendPendingNotices } from './notices.ts';

/**
 * The account job (docs/api.md): downgrade ended trials, cancelled plans at their end and accounts
 * 3 days after a failed payment, purge watchlist and preferences 30 days after a downgrade, and
 * send the emails plan changes owe (notices.ts). Idempotent: each step changes
 * only rows still due, so a retried or doubled run does nothing more.
 */
export function createAccountsProcessor(deps: {
  accounts: AccountRepository;
  logger: Logger;
  clock?: () => Date;
  /** Called when plans changed: API instances drop their memo of principals (infra/auth-generation.ts). */
  onPlansChanged?: () => Promise<void>;
  /** How owed emails go out; absent: they are not sent here. */
  notices?: Omit<NoticeSenderDeps, 'accounts' | 'logger' | 'clock'>;
}) {
  const clock = deps.clock ?? (() => new Date());
  const sendNotices = () =>
    deps.notices
      ? sendPendingNotices({ ...deps.notices, accounts: deps.accounts, logger: deps.logger, clock })
      : Promise.resolve({ sent: 0 });
  return async function processAccounts(data: JobData<'accounts'>) {
    if (data.task === 'notices') return { task: data.task, ...(await sendNotices()) };
    const result = await deps.accounts.runMaintenance(clock());
    if (result.downgraded.length > 0) await deps.onPlansChanged?.();
    for (const d of result.downgraded)
      deps.logger.info(
        { user: d.id, from: d.from, reason: d.reason },
        'account downgraded to FREE',
      );
    if (result.purged.length > 0)
      deps.logger.info({ users: result.purged.length }, 'watchlists and preferences purged');
    const { sent } = await sendNotices();
    return {
      task: data.task,
      downgraded: result.downgraded.length,
      purged: result.purged.length,
      sent,
    };
  };
}
