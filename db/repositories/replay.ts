import { and, eq } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { replayRanges } from '../schema.ts';

export function createReplayRepository(db: Database) {
  return {
    async finishedRanges(chainId: number): Promise<{ from: number; to: number }[]> {
      const rows = await db.select().from(replayRanges).where(eq(replayRanges.chainId, chainId));
      return rows.map((r) => ({ from: r.fromBlock, to: r.toBlock }));
    },
    async markFinished(chainId: number, from: number, to: number): Promise<void> {
      await db
        .insert(replayRanges)
        .values({ chainId, fromBlock: from, toBlock: to })
        .onConflictDoNothing();
    },
    async forget(chainId: number): Promise<void> {
      await db.delete(replayRanges).where(and(eq(replayRanges.chainId, chainId)));
    },
  };
}

export type ReplayRepository = ReturnType<typeof createReplayRepository>;
