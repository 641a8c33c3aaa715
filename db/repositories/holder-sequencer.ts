import { and, asc, eq, gt, inArray, lt, lte, sql } from 'drizzle-orm';
import {
  type BalanceChange,
  balanceChanges,
  type PackedTransfer,
  unpackTransfers,
} from '../../src/holders/transfers.ts';
import type { Database } from '../client.ts';
import {
  blockHashes,
  holderBalances,
  holderChanges,
  holderPending,
  holderTracks,
  pairs,
  tokens,
} from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';

/**
 * The holders sequencer (docs/architecture.md, "Holders"): applies the blocks' Transfer logs to the
 * balances in chain order, one transaction per step under a per-chain advisory lock, keeps each
 * block's changes for the reorg window and undoes them on a rollback. db/repositories/holders.ts
 * is the repository over it.
 */

/** Advisory lock namespace of the holders sequencer (per chain). */
export const HOLDERS_LOCK_NAMESPACE = 72_642;
/** Blocks applied per transaction at most. */
export const BLOCKS_PER_ADVANCE = 200;
/** Rows per statement: arrays of this many rows (and, for emitters, parameters: under 65,535). */
export const ROWS_PER_STATEMENT = 5_000;

export const LIVE_TRACK = 'live';
export const REPLAY_TRACK = 'replay';
export type HolderTrack = typeof LIVE_TRACK | typeof REPLAY_TRACK;

export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
type Executor = Database | Tx;

export type AdvanceResult =
  | { status: 'busy' | 'no-track' }
  | { status: 'advanced'; applied: number; block: number; transfers: number; skipped?: number };

export const chunks = <T>(xs: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
};

/** Adds signed `changes` to the balances, then deletes the rows they brought to zero. */
export async function applyChanges(
  tx: Executor,
  chainId: number,
  changes: readonly BalanceChange[],
): Promise<void> {
  if (changes.length === 0) return;
  // Rows locked in one order (token, holder) by every writer: concurrent appliers cannot deadlock.
  const sorted = [...changes].sort((a, b) =>
    a.token === b.token ? (a.holder < b.holder ? -1 : 1) : a.token < b.token ? -1 : 1,
  );
  for (const part of chunks(sorted, ROWS_PER_STATEMENT)) {
    // Three array parameters rather than four per row: a statement of thousands of rows costs a
    // tenth of the multi-row VALUES form (measured: the holders bench).
    const tokensOf = sql.param(part.map((c) => c.token));
    const holdersOf = sql.param(part.map((c) => c.holder));
    const deltasOf = sql.param(part.map((c) => c.delta.toString()));
    await tx.execute(sql`
      insert into ${holderBalances} (chain_id, token, holder, balance)
      select ${chainId}::int, t, h, d::numeric
      from unnest(${tokensOf}::text[], ${holdersOf}::text[], ${deltasOf}::text[]) as u(t, h, d)
      on conflict (chain_id, token, holder)
      do update set balance = ${holderBalances.balance} + excluded.balance`);
  }
  const touched = [...new Set(changes.map((c) => c.token))];
  await tx.execute(sql`
    delete from ${holderBalances}
    where chain_id = ${chainId}::int and token = any(${sql.param(touched)}::text[]) and balance = 0`);
}

/** Sums changes per (token, holder). */
export function netChanges(changes: Iterable<BalanceChange>): BalanceChange[] {
  const net = new Map<string, BalanceChange>();
  for (const c of changes) {
    const key = `${c.token}:${c.holder}`;
    const seen = net.get(key);
    net.set(key, { token: c.token, holder: c.holder, delta: (seen?.delta ?? 0n) + c.delta });
  }
  return [...net.values()].filter((c) => c.delta !== 0n);
}

/** Tokens and LP tokens (pairs) among `emitters` that the service knows: whose balances are tracked. */
export async function trackedAmong(
  tx: Executor,
  chainId: number,
  emitters: readonly string[],
): Promise<Set<string>> {
  const tracked = new Set<string>();
  for (const part of chunks([...new Set(emitters)], ROWS_PER_STATEMENT)) {
    const [known, pools] = await Promise.all([
      tx
        .select({ a: tokens.address })
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), inArray(tokens.address, part))),
      tx
        .select({ a: pairs.address })
        .from(pairs)
        .where(and(eq(pairs.chainId, chainId), inArray(pairs.address, part))),
    ]);
    for (const r of [...known, ...pools]) tracked.add(r.a);
  }
  return tracked;
}

/**
 * Undoes the balance changes of the blocks after `ancestor` (a reorg), forgets their waiting
 * logs, and moves the live cursor back to the ancestor: run inside the rollback's transaction.
 */
export async function undoHoldersAfter(
  tx: Tx,
  chainId: number,
  ancestor: number,
  ancestorHash: string | null,
): Promise<number> {
  const undone = await tx
    .delete(holderChanges)
    .where(and(eq(holderChanges.chainId, chainId), gt(holderChanges.blockNumber, ancestor)))
    .returning({
      token: holderChanges.token,
      holder: holderChanges.holder,
      d: holderChanges.delta,
    });
  await applyChanges(
    tx,
    chainId,
    netChanges(undone.map((u) => ({ token: u.token, holder: u.holder, delta: -BigInt(u.d) }))),
  );
  await tx
    .delete(holderPending)
    .where(and(eq(holderPending.chainId, chainId), gt(holderPending.blockNumber, ancestor)));
  await tx
    .update(holderTracks)
    .set({ blockNumber: ancestor, blockHash: ancestorHash, updatedAt: new Date() })
    .where(
      and(
        eq(holderTracks.chainId, chainId),
        eq(holderTracks.track, LIVE_TRACK),
        gt(holderTracks.blockNumber, ancestor),
      ),
    );
  return undone.length;
}

/** Forgets a chain's holders (a restarted development chain). */
export async function forgetHolders(tx: Tx, chainId: number): Promise<void> {
  for (const table of [holderBalances, holderChanges, holderPending, holderTracks])
    await tx.delete(table).where(eq(table.chainId, chainId));
}

interface PendingRow {
  blockNumber: number;
  blockHash: string;
  parentHash: string;
  transfers: unknown;
}

/**
 * The chain of waiting blocks that extends the cursor: block n + 1 is the one the scanner recorded
 * for that height (block_hashes), or, where the window no longer holds it, the child of the cursor.
 */
function linkedBlocks(
  cursor: { number: number; hash: string | null },
  pending: readonly PendingRow[],
  canonical: ReadonlyMap<number, string>,
): PendingRow[] {
  const byNumber = new Map<number, PendingRow[]>();
  for (const p of pending) byNumber.set(p.blockNumber, [...(byNumber.get(p.blockNumber) ?? []), p]);
  const out: PendingRow[] = [];
  let { number, hash } = cursor;
  for (;;) {
    const candidates = byNumber.get(number + 1) ?? [];
    const recorded = canonical.get(number + 1);
    const next =
      recorded !== undefined
        ? candidates.find((c) => c.blockHash === recorded)
        : hash !== null
          ? candidates.find((c) => c.parentHash === hash)
          : undefined;
    // A block the scanner has not recorded yet (its job finished first) waits for the record.
    if (!next || (recorded === undefined && hash === null)) break;
    if (hash !== null && next.parentHash !== hash) break;
    out.push(next);
    number = next.blockNumber;
    hash = next.blockHash;
  }
  return out;
}

/** One step of the sequencer: the blocks that extend the cursor, applied in one transaction. */
export async function advanceOnce(
  db: Database,
  chainId: number,
  finalityDepth: number,
  wait: boolean,
): Promise<AdvanceResult> {
  return db.transaction(async (tx) => {
    // Shared chain lock first (a rollback takes it exclusively), then the sequencer's own.
    await lockChainShared(tx, chainId);
    if (wait)
      await tx.execute(
        sql`select pg_advisory_xact_lock(${HOLDERS_LOCK_NAMESPACE}, ${chainId}::int)`,
      );
    else {
      const [got] = await tx.execute<{ ok: boolean }>(
        sql`select pg_try_advisory_xact_lock(${HOLDERS_LOCK_NAMESPACE}, ${chainId}::int) as ok`,
      );
      if (!got?.ok) return { status: 'busy' } as const;
    }
    const [track] = await tx
      .select()
      .from(holderTracks)
      .where(and(eq(holderTracks.chainId, chainId), eq(holderTracks.track, LIVE_TRACK)));
    if (!track) return { status: 'no-track' } as const;
    const upTo = track.blockNumber + BLOCKS_PER_ADVANCE;
    const pending = await tx
      .select()
      .from(holderPending)
      .where(
        and(
          eq(holderPending.chainId, chainId),
          gt(holderPending.blockNumber, track.blockNumber),
          lte(holderPending.blockNumber, upTo),
        ),
      )
      .orderBy(asc(holderPending.blockNumber));
    const recorded = await tx
      .select({ n: blockHashes.blockNumber, h: blockHashes.blockHash })
      .from(blockHashes)
      .where(
        and(
          eq(blockHashes.chainId, chainId),
          gt(blockHashes.blockNumber, track.blockNumber),
          lte(blockHashes.blockNumber, upTo),
        ),
      );
    const canonical = new Map(recorded.map((r) => [r.n, r.h]));
    let cursor = { number: track.blockNumber, hash: track.blockHash };
    let skipped: number | undefined;
    let blocks = linkedBlocks(cursor, pending, canonical);
    if (blocks.length === 0) {
      // A block whose detect job never finished would stall the sequencer for good: past twice
      // the reorg window, its balances are given up (and the gap logged by the caller).
      const [oldest] = await tx
        .select({ n: holderPending.blockNumber })
        .from(holderPending)
        .where(
          and(eq(holderPending.chainId, chainId), gt(holderPending.blockNumber, cursor.number)),
        )
        .orderBy(asc(holderPending.blockNumber))
        .limit(1);
      if (!oldest || oldest.n - cursor.number <= 2 * finalityDepth)
        return { status: 'advanced', applied: 0, block: cursor.number, transfers: 0 } as const;
      skipped = oldest.n - 1 - cursor.number;
      cursor = { number: oldest.n - 1, hash: null };
      const rest = await tx
        .select()
        .from(holderPending)
        .where(
          and(
            eq(holderPending.chainId, chainId),
            gt(holderPending.blockNumber, cursor.number),
            lte(holderPending.blockNumber, cursor.number + BLOCKS_PER_ADVANCE),
          ),
        );
      const first = rest.filter((r) => r.blockNumber === oldest.n);
      // No parent to check against: the scanner's record decides, else the only candidate.
      const start = first.find((r) => r.blockHash === canonical.get(oldest.n)) ?? first[0];
      blocks = start
        ? [
            start,
            ...linkedBlocks({ number: start.blockNumber, hash: start.blockHash }, rest, canonical),
          ]
        : [];
    }
    const decoded = blocks.map((b) => ({
      block: b,
      transfers: unpackTransfers(b.transfers as PackedTransfer[]),
    }));
    const tracked = await trackedAmong(
      tx,
      chainId,
      decoded.flatMap((d) => d.transfers.map((t) => t.token)),
    );
    const perBlock = decoded.map((d) => ({
      number: d.block.blockNumber,
      changes: balanceChanges(d.transfers, tracked),
    }));
    await applyChanges(tx, chainId, netChanges(perBlock.flatMap((b) => b.changes)));
    const changeRows = perBlock.flatMap((b) =>
      b.changes.map((c) => ({
        chainId,
        blockNumber: b.number,
        token: c.token,
        holder: c.holder,
        delta: c.delta.toString(),
      })),
    );
    for (const part of chunks(changeRows, ROWS_PER_STATEMENT))
      await tx.execute(sql`
        insert into ${holderChanges} (chain_id, block_number, token, holder, delta)
        select ${chainId}::int, b, t, h, d::numeric
        from unnest(${sql.param(part.map((c) => c.blockNumber))}::bigint[],
                    ${sql.param(part.map((c) => c.token))}::text[],
                    ${sql.param(part.map((c) => c.holder))}::text[],
                    ${sql.param(part.map((c) => c.delta))}::text[]) as u(b, t, h, d)`);
    const last = blocks[blocks.length - 1] ?? {
      blockNumber: cursor.number,
      blockHash: cursor.hash,
    };
    await tx
      .delete(holderPending)
      .where(
        and(eq(holderPending.chainId, chainId), lte(holderPending.blockNumber, last.blockNumber)),
      );
    await tx
      .delete(holderChanges)
      .where(
        and(
          eq(holderChanges.chainId, chainId),
          lt(holderChanges.blockNumber, last.blockNumber - 2 * finalityDepth),
        ),
      );
    await tx
      .update(holderTracks)
      .set({ blockNumber: last.blockNumber, blockHash: last.blockHash, updatedAt: new Date() })
      .where(and(eq(holderTracks.chainId, chainId), eq(holderTracks.track, LIVE_TRACK)));
    return {
      status: 'advanced',
      applied: blocks.length,
      block: last.blockNumber,
      transfers: decoded.reduce((s, d) => s + d.transfers.length, 0),
      ...(skipped !== undefined ? { skipped } : {}),
    } as const;
  });
}
