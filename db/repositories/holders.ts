import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { balanceChanges, packTransfers, type Transfer } from '../../src/holders/transfers.ts';
import type { Database } from '../client.ts';
import { holderBalances, holderPending, holderTracks, tokens } from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';
import { holderReads } from './holder-reads.ts';
import {
  type AdvanceResult,
  advanceOnce,
  applyChanges,
  BLOCKS_PER_ADVANCE,
  HOLDERS_LOCK_NAMESPACE,
  type HolderTrack,
  LIVE_TRACK,
  REPLAY_TRACK,
  trackedAmong,
} from './holder-sequencer.ts';

export {
  type AdvanceResult,
  forgetHolders,
  type HolderTrack,
  LIVE_TRACK,
  REPLAY_TRACK,
  undoHoldersAfter,
} from './holder-sequencer.ts';

/**
 * Holder balances from Transfer logs (docs/architecture.md, "Holders"). The detect stage leaves
 * each block's Transfer logs here (`recordBlock`); one sequencer per chain (`advance`:
 * db/repositories/holder-sequencer.ts) applies the blocks in chain order, so a token recorded by
 * the detect job of its creation block is known before any later block is applied, whatever order
 * the detect jobs finished in. Replay batches apply theirs on the replay track (`applyReplay`). The
 * reads build the holders report and pick the holders whose sells are simulated.
 */

export interface BlockRef {
  number: number;
  hash: string;
  parentHash: string;
}

export type ReplayApplyResult =
  | { status: 'no-track' | 'behind' | 'already' }
  | { status: 'applied'; blocks: number; transfers: number; changes: number };

export function createHolderRepository(db: Database) {
  /** Several blocks' Transfer logs in one statement. */
  async function recordBlocks(
    chainId: number,
    blocks: readonly { block: BlockRef; transfers: readonly Transfer[] }[],
  ) {
    if (blocks.length === 0) return;
    await db
      .insert(holderPending)
      .values(
        blocks.map(({ block, transfers }) => ({
          chainId,
          blockNumber: block.number,
          blockHash: block.hash,
          parentHash: block.parentHash,
          transfers: packTransfers(transfers),
        })),
      )
      .onConflictDoNothing();
  }

  return {
    /** Leaves a block's Transfer logs for the sequencer (a repeated call changes nothing). */
    async recordBlock(chainId: number, block: BlockRef, transfers: readonly Transfer[]) {
      await recordBlocks(chainId, [{ block, transfers }]);
    },

    /** Several blocks' Transfer logs in one statement (a catch-up run of blocks). */
    recordBlocks,

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
        const step = await advanceOnce(db, chainId, options.finalityDepth, options.wait ?? false);
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

    ...holderReads(db),

    async track(chainId: number, track: HolderTrack) {
      const [row] = await db
        .select()
        .from(holderTracks)
        .where(and(eq(holderTracks.chainId, chainId), eq(holderTracks.track, track)));
      return row ?? null;
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
