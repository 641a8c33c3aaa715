import { and, asc, eq, gt, inArray, lt, lte, notInArray, sql } from 'drizzle-orm';
import type { HolderFacts } from '../../src/holders/report.ts';
import {
  type BalanceChange,
  balanceChanges,
  type PackedTransfer,
  packTransfers,
  type Transfer,
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
 * Holder balances from Transfer logs (docs/architecture.md, "Holders"). The detect stage leaves
 * each block's Transfer logs here (`recordBlock`); one sequencer per chain (`advance`, under an
 * advisory lock) applies the blocks in chain order, so a token recorded by the detect job of
 * its creation block is known before any later block is applied, whatever order the detect
 * jobs finished in. Applying a block, recording its changes for the reorg window and moving the
 * cursor are one transaction: a retried job or a second caller applies nothing twice.
 */

/** Advisory lock namespace of the holders sequencer (per chain). */
const HOLDERS_LOCK_NAMESPACE = 72_642;
/** Blocks applied per transaction at most. */
const BLOCKS_PER_ADVANCE = 200;
/** Rows per multi-row statement (4 parameters each, well under Postgres's 65,535). */
const ROWS_PER_STATEMENT = 5_000;

export const LIVE_TRACK = 'live';
export const REPLAY_TRACK = 'replay';
export type HolderTrack = typeof LIVE_TRACK | typeof REPLAY_TRACK;

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
type Executor = Database | Tx;

export interface BlockRef {
  number: number;
  hash: string;
  parentHash: string;
}

export type ReplayApplyResult =
  | { status: 'no-track' | 'behind' | 'already' }
  | { status: 'applied'; blocks: number; transfers: number; changes: number };

export type AdvanceResult =
  | { status: 'busy' | 'no-track' }
  | { status: 'advanced'; applied: number; block: number; transfers: number; skipped?: number };

const chunks = <T>(xs: readonly T[], size: number): T[][] => {
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

export function createHolderRepository(db: Database) {
  /** One step of the sequencer: the blocks that extend the cursor, applied in one transaction. */
  async function advanceOnce(
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
              ...linkedBlocks(
                { number: start.blockNumber, hash: start.blockHash },
                rest,
                canonical,
              ),
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

  return {
    /** Leaves a block's Transfer logs for the sequencer (a repeated call changes nothing). */
    async recordBlock(chainId: number, block: BlockRef, transfers: readonly Transfer[]) {
      await db
        .insert(holderPending)
        .values({
          chainId,
          blockNumber: block.number,
          blockHash: block.hash,
          parentHash: block.parentHash,
          transfers: packTransfers(transfers),
        })
        .onConflictDoNothing();
    },

    /**
     * Applies the waiting blocks that extend the live cursor, in order, as far as they go. With
     * `wait` false, a call that finds another one at work returns at once ('busy'): that one, or
     * the scanner's next tick, applies what this caller left.
     */
    async advance(
      chainId: number,
      options: { finalityDepth: number; wait?: boolean },
    ): Promise<AdvanceResult> {
      let total: AdvanceResult | undefined;
      for (;;) {
        const step = await advanceOnce(chainId, options.finalityDepth, options.wait ?? false);
        if (step.status !== 'advanced') return total ?? step;
        total =
          total?.status === 'advanced'
            ? {
                status: 'advanced',
                applied: total.applied + step.applied,
                block: step.block,
                transfers: total.transfers + step.transfers,
                ...((total.skipped ?? step.skipped) !== undefined
                  ? { skipped: (total.skipped ?? 0) + (step.skipped ?? 0) }
                  : {}),
              }
            : step;
        if (step.applied < BLOCKS_PER_ADVANCE) return total;
      }
    },

    /**
     * Applies a replay batch's Transfers (final blocks: no undo log) once the replay track has
     * reached the block before it, in one transaction with the track's cursor: 'behind' while an
     * earlier batch is not applied yet (its tokens may not be recorded yet), 'already' for a batch
     * applied before (a retried job). Blocks the live track covers (from its start) are its own.
     */
    async applyReplay(
      chainId: number,
      range: { from: number; to: number },
      blocks: readonly { number: number; transfers: readonly Transfer[] }[],
    ): Promise<ReplayApplyResult> {
      return db.transaction(async (tx) => {
        await lockChainShared(tx, chainId);
        await tx.execute(
          sql`select pg_advisory_xact_lock(${HOLDERS_LOCK_NAMESPACE}, ${chainId}::int)`,
        );
        const tracks = await tx
          .select()
          .from(holderTracks)
          .where(eq(holderTracks.chainId, chainId));
        const replay = tracks.find((t) => t.track === REPLAY_TRACK);
        const live = tracks.find((t) => t.track === LIVE_TRACK);
        if (!replay) return { status: 'no-track' } as const;
        if (replay.blockNumber >= range.to) return { status: 'already' } as const;
        if (replay.blockNumber < range.from - 1) return { status: 'behind' } as const;
        const liveStart = live?.startBlock ?? Number.POSITIVE_INFINITY;
        const applied = blocks.filter((b) => b.number > replay.blockNumber && b.number < liveStart);
        const transfers = applied.flatMap((b) => b.transfers);
        const tracked = await trackedAmong(
          tx,
          chainId,
          transfers.map((t) => t.token),
        );
        const changes = balanceChanges(transfers, tracked);
        await applyChanges(tx, chainId, changes);
        await tx
          .update(holderTracks)
          .set({ blockNumber: range.to, blockHash: null, updatedAt: new Date() })
          .where(and(eq(holderTracks.chainId, chainId), eq(holderTracks.track, REPLAY_TRACK)));
        return {
          status: 'applied',
          blocks: applied.length,
          transfers: transfers.length,
          changes: changes.length,
        } as const;
      });
    },

    /**
     * Where a replay run starts: its track's cursor just before `from` (created, or moved up
     * past blocks no run will replay; never moved back over applied blocks).
     */
    async startReplay(chainId: number, from: number): Promise<void> {
      await db
        .insert(holderTracks)
        .values({ chainId, track: REPLAY_TRACK, startBlock: from, blockNumber: from - 1 })
        .onConflictDoUpdate({
          target: [holderTracks.chainId, holderTracks.track],
          set: {
            blockNumber: sql`greatest(${holderTracks.blockNumber}, ${from - 1})`,
            updatedAt: new Date(),
          },
        });
    },

    /** Starts a track at `startBlock` (its cursor just before it) unless it exists. */
    async ensureTrack(
      chainId: number,
      track: HolderTrack,
      startBlock: number,
      previousHash: string | null,
    ): Promise<void> {
      await db
        .insert(holderTracks)
        .values({
          chainId,
          track,
          startBlock,
          blockNumber: startBlock - 1,
          blockHash: previousHash,
        })
        .onConflictDoNothing();
    },

    /** Both tracks of a chain (live, replay), null where absent. */
    async tracks(chainId: number) {
      const rows = await db.select().from(holderTracks).where(eq(holderTracks.chainId, chainId));
      return {
        live: rows.find((r) => r.track === LIVE_TRACK) ?? null,
        replay: rows.find((r) => r.track === REPLAY_TRACK) ?? null,
      };
    },

    async track(chainId: number, track: HolderTrack) {
      const [row] = await db
        .select()
        .from(holderTracks)
        .where(and(eq(holderTracks.chainId, chainId), eq(holderTracks.track, track)));
      return row ?? null;
    },

    /**
     * The balances a holders report is made of (src/holders/report.ts): count and sum of the
     * positive balances, the largest `topN`, the named addresses' balances, and the sum held by
     * `contracts` or by holders the simulate stage found to have code. Three reads, in parallel.
     */
    async facts(
      chainId: number,
      token: string,
      named: { addresses: readonly string[]; contracts: readonly string[] },
      topN: number,
    ): Promise<HolderFacts> {
      const ofToken = and(eq(holderBalances.chainId, chainId), eq(holderBalances.token, token));
      const contracts = named.contracts.length > 0 ? named.contracts : [''];
      const [[totals], top, rows] = await Promise.all([
        db
          .select({
            n: sql<number>`count(*) filter (where ${holderBalances.balance} > 0)`.mapWith(Number),
            supply: sql<string>`coalesce(sum(${holderBalances.balance}) filter (where ${holderBalances.balance} > 0), 0)::text`,
            contracts: sql<string>`coalesce(sum(${holderBalances.balance}) filter (where ${holderBalances.balance} > 0 and (${holderBalances.isContract} or ${inArray(holderBalances.holder, contracts)})), 0)::text`,
          })
          .from(holderBalances)
          .where(ofToken),
        db
          .select({
            holder: holderBalances.holder,
            balance: holderBalances.balance,
            isContract: holderBalances.isContract,
          })
          .from(holderBalances)
          .where(and(ofToken, gt(holderBalances.balance, '0')))
          .orderBy(sql`${holderBalances.balance} desc`, asc(holderBalances.holder))
          .limit(topN),
        named.addresses.length === 0
          ? Promise.resolve([])
          : db
              .select({ holder: holderBalances.holder, balance: holderBalances.balance })
              .from(holderBalances)
              .where(and(ofToken, inArray(holderBalances.holder, [...named.addresses]))),
      ]);
      return {
        holderCount: totals?.n ?? 0,
        supply: BigInt(totals?.supply ?? '0'),
        top: top.map((t) => ({
          holder: t.holder,
          balance: BigInt(t.balance),
          isContract: t.isContract,
        })),
        balancesOf: new Map(rows.map((r) => [r.holder, BigInt(r.balance)])),
        contractBalance: BigInt(totals?.contracts ?? '0'),
      };
    },

    /**
     * The largest holders whose sells are worth simulating: not `exclude` (creator, owner, lockers,
     * burn addresses, the token), not a pool of the chain; and how many holders the token has.
     */
    async sellCandidates(
      chainId: number,
      token: string,
      exclude: readonly string[],
      limit: number,
    ): Promise<{ holders: { holder: string; balance: bigint }[]; holderCount: number }> {
      const ofToken = and(eq(holderBalances.chainId, chainId), eq(holderBalances.token, token));
      const [rows, [count]] = await Promise.all([
        db
          .select({ holder: holderBalances.holder, balance: holderBalances.balance })
          .from(holderBalances)
          .where(
            and(
              ofToken,
              gt(holderBalances.balance, '0'),
              exclude.length > 0 ? notInArray(holderBalances.holder, [...exclude]) : undefined,
              sql`not exists (select 1 from ${pairs} where ${pairs.chainId} = ${chainId} and ${pairs.address} = ${holderBalances.holder})`,
            ),
          )
          .orderBy(sql`${holderBalances.balance} desc`, asc(holderBalances.holder))
          .limit(limit),
        db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(holderBalances)
          .where(and(ofToken, gt(holderBalances.balance, '0'))),
      ]);
      return {
        holders: rows.map((r) => ({ holder: r.holder, balance: BigInt(r.balance) })),
        holderCount: count?.n ?? 0,
      };
    },

    /** Records whether holders have code (asked by the simulate stage for the top holders). */
    async markContracts(
      chainId: number,
      token: string,
      found: readonly { holder: string; isContract: boolean }[],
    ): Promise<void> {
      for (const value of [true, false]) {
        const holders = found.filter((f) => f.isContract === value).map((f) => f.holder);
        if (holders.length === 0) continue;
        await db
          .update(holderBalances)
          .set({ isContract: value })
          .where(
            and(
              eq(holderBalances.chainId, chainId),
              eq(holderBalances.token, token),
              inArray(holderBalances.holder, holders),
            ),
          );
      }
    },

    /** Stores a token's holders report on its row (tokens.holders). */
    async saveReport(chainId: number, token: string, report: unknown): Promise<void> {
      await db
        .update(tokens)
        .set({ holders: report })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, token)));
    },

    /** Every holder of `token` with a non-zero balance, largest first (tests and exports). */
    async balances(chainId: number, token: string): Promise<{ holder: string; balance: bigint }[]> {
      const rows = await db
        .select({ holder: holderBalances.holder, balance: holderBalances.balance })
        .from(holderBalances)
        .where(and(eq(holderBalances.chainId, chainId), eq(holderBalances.token, token)))
        .orderBy(sql`${holderBalances.balance} desc`, asc(holderBalances.holder));
      return rows.map((r) => ({ holder: r.holder, balance: BigInt(r.balance) }));
    },
  };
}

export type HolderRepository = ReturnType<typeof createHolderRepository>;
