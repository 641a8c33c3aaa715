import type { Logger } from 'pino';
import type { AccountRepository } from '../db/repositories/accounts.ts';
import type { JobData } from './jobs.ts';

/**
 * The account job (docs/api.md): downgrade ended trials and accounts 3 days after a failed payment,
 * purge watchlist and preferences 30 days after a downgrade. Idempotent: each step changes only
 * rows still due, so a retried or doubled run does nothing more.
 */
export function createAccountsProcessor(deps: {
  accounts: AccountRepository;
  logger: Logger;
  clock?: () => Date;
  /** Called when plans changed: API instances drop their memo of principals (infra/auth-generation.ts). */
  onPlansChanged?: () => Promise<void>;
}) {
  const clock = deps.clock ?? (() => new Date());
  return async function processAccounts(data: JobData<'accounts'>) {
    const result = await deps.accounts.runMaintenance(clock());
    if (result.downgraded.length > 0) await deps.onPlansChanged?.();
    for (const d of result.downgraded)
      deps.logger.info(
        { user: d.id, from: d.from, reason: d.reason },
        'account downgraded to FREE',
      );
    if (result.purged.length > 0)
      deps.logger.info({ users: result.purged.length }, 'watchlists and preferences purged');
    return { task: data.task, downgraded: result.downgraded.length, purged: result.purged.length };
  };
}
