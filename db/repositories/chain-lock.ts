import { type Placeholder, sql } from 'drizzle-orm';

/**
 * A per-chain Postgres advisory lock (transaction-scoped): writes of detected tokens take it
 * shared, a reorg rollback takes it exclusively, so a write from an orphaned block can never slip
 * in between the rollback's check and its deletes.
 */
const CHAIN_LOCK_NAMESPACE = 72_641;

interface Executor {
  execute(query: ReturnType<typeof sql>): Promise<unknown>;
}

/**
 * The statement that takes the lock shared (for a pipelined transaction: db/pipelined.ts); the
 * chain a placeholder in a shaped statement.
 */
export const chainLockShared = (chainId: number | Placeholder) =>
  sql`select pg_advisory_xact_lock_shared(${CHAIN_LOCK_NAMESPACE}, ${chainId}::int)`;

export async function lockChainShared(tx: Executor, chainId: number): Promise<void> {
  await tx.execute(chainLockShared(chainId));
}

export async function lockChainExclusive(tx: Executor, chainId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${CHAIN_LOCK_NAMESPACE}, ${chainId})`);
}
