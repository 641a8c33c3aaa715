import { and, asc, between, eq, gt } from 'drizzle-orm';
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
