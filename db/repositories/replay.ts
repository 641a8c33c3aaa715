import { and, asc, between, eq, gt } from 'drizzle-orm';
import { mergeRanges } from '../../src/evm/ranges.ts';
import type { Database } from '../client.ts';
import { replayRanges, tokens } from '../schema.ts';

/**
 * The replay's persisted cursor (the ranges it finished, per chain) and the tokens of a replayed
 * range still waiting for their analysis (stage `detected`), which the replay hands off.
 */
export function createReplayRepository(db: Database) {
  return {
    async finishedRanges(chainId: number): Promise<{ from: number; to: number }[]> {
      const rows = await db.select().from(replayRanges).where(eq(replayRanges.chainId, chainId));
      return rows.map((r) => ({ from: r.fromBlock, to: r.toBlock }));
    },
    async markFinished(chainId: number, ranges: readonly { from: number; to: number }[]) {
      if (ranges.length === 0) return;
      await db
        .insert(replayRanges)
        .values(ranges.map((r) => ({ chainId, fromBlock: r.from, toBlock: r.to })))
        .onConflictDoNothing();
    },
    /**
     * Rewrites the chain's finished ranges as their union and returns it (each batch is recorded as
     * a row of its own, so a long replay leaves thousands). In one transaction: a range recorded concurrently
     * by another replay is either read and merged or left as its own row, never lost; duplicates
     * of a merged row are ignored.
     */
    async compact(chainId: number): Promise<{ from: number; to: number }[]> {
      return db.transaction(async (tx) => {
        const rows = await tx
          .delete(replayRanges)
          .where(eq(replayRanges.chainId, chainId))
          .returning();
        const merged = mergeRanges(rows.map((r) => ({ from: r.fromBlock, to: r.toBlock })));
        if (merged.length > 0)
          await tx
            .insert(replayRanges)
            .values(merged.map((r) => ({ chainId, fromBlock: r.from, toBlock: r.to })))
            .onConflictDoNothing();
        return merged;
      });
    },
    async forget(chainId: number): Promise<void> {
      await db.delete(replayRanges).where(eq(replayRanges.chainId, chainId));
    },
    /** One page (by address) of the tokens created in [from, to] that no analysis has moved on yet. */
    async detectedTokens(
      chainId: number,
      range: { from: number; to: number },
      page: { after?: string; limit: number },
    ): Promise<string[]> {
      const rows = await db
        .select({ address: tokens.address })
        .from(tokens)
        .where(
          and(
            eq(tokens.chainId, chainId),
            between(tokens.creationBlockNumber, range.from, range.to),
            eq(tokens.stage, 'detected'),
            page.after === undefined ? undefined : gt(tokens.address, page.after),
          ),
        )
        .orderBy(asc(tokens.address))
        .limit(page.limit);
      return rows.map((r) => r.address);
    },
  };
}

export type ReplayRepository = ReturnType<typeof createReplayRepository>;
