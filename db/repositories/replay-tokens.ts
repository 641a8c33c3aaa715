import { and, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { blockHashes, creators, tokens } from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';
import { type DetectedToken, KEEP_FIRST_CREATION, type UpsertOutcome } from './tokens.ts';

/**
 * The replay's token writes, a batch at a time: what `upsertDetected` and `markAnnounced`
 * (db/repositories/tokens.ts) do for one token, done for every token of a replay batch in a few
 * statements. One transaction per token would queue the batch's transactions behind each other
 * on their creator's row (a factory creates many tokens) and cost five round trips per token.
 * Same rules: creation data fills gaps and never overwrites, a creator's count moves only for
 * rows that are new, and tokens of a block the scanner has since replaced are refused.
 */

/** Block numbers whose recorded hash differs from the one the tokens were detected in. */
async function orphanedBlocks(
  tx: Parameters<Parameters<Database['transaction']>[0]>[0],
  chainId: number,
  batch: readonly DetectedToken[],
): Promise<Set<number>> {
  const numbers = [
    ...new Set(
      batch.flatMap((t) => (t.creationBlockNumber === null ? [] : [t.creationBlockNumber])),
    ),
  ];
  if (numbers.length === 0) return new Set();
  // The shared chain lock orders this check against a reorg rollback (exclusive).
  await lockChainShared(tx, chainId);
  const recorded = await tx
    .select({ n: blockHashes.blockNumber, h: blockHashes.blockHash })
    .from(blockHashes)
    .where(and(eq(blockHashes.chainId, chainId), inArray(blockHashes.blockNumber, numbers)));
  const hashOf = new Map(recorded.map((r) => [r.n, r.h]));
  const orphaned = new Set<number>();
  for (const t of batch) {
    const n = t.creationBlockNumber;
    if (n === null || t.creationBlockHash === null) continue;
    const other = hashOf.get(n);
    if (other !== undefined && other !== t.creationBlockHash) orphaned.add(n);
  }
  return orphaned;
}

export function createReplayTokenWriter(db: Database) {
  return {
    /** Upserts the tokens of one chain; outcomes in the order given. */
    async upsertDetectedMany(
      chainId: number,
      batch: readonly DetectedToken[],
    ): Promise<UpsertOutcome[]> {
      if (batch.length === 0) return [];
      return db.transaction(async (tx) => {
        const orphaned = await orphanedBlocks(tx, chainId, batch);
        // One row per address (a contract redeployed at the same address keeps its first
        // sighting), in address order so that concurrent batches lock rows in the same order.
        const unique = new Map<string, DetectedToken>();
        for (const t of batch) {
          const ok = t.creationBlockNumber === null || !orphaned.has(t.creationBlockNumber);
          if (ok && !unique.has(t.address)) unique.set(t.address, t);
        }
        const rows = [...unique.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
        const saved =
          rows.length === 0
            ? []
            : await tx
                .insert(tokens)
                .values(rows)
                .onConflictDoUpdate({
                  target: [tokens.chainId, tokens.address],
                  set: KEEP_FIRST_CREATION,
                })
                // xmax = 0 only for a freshly inserted row version: tells insert from update.
                .returning({ ...getTableColumns(tokens), inserted: sql<boolean>`(xmax = 0)` });
        const perCreator = new Map<string, number>();
        for (const row of saved)
          if (row.inserted && row.creator)
            perCreator.set(row.creator, (perCreator.get(row.creator) ?? 0) + 1);
        if (perCreator.size > 0) {
          const counts = [...perCreator].sort(([a], [b]) => (a < b ? -1 : 1));
          await tx
            .insert(creators)
            .values(counts.map(([address, n]) => ({ chainId, address, totalTokens: n })))
            .onConflictDoUpdate({
              target: [creators.chainId, creators.address],
              set: {
                totalTokens: sql`${creators.totalTokens} + excluded.total_tokens`,
                lastSeen: sql`now()`,
              },
            });
        }
        const byAddress = new Map(saved.map((r) => [r.address, r]));
        return batch.map((t): UpsertOutcome => {
          const row = byAddress.get(t.address);
          if (!row) return { status: 'orphaned' };
          const { inserted, ...stored } = row;
          return {
            status: 'recorded',
            inserted,
            announced: stored.announcedAt !== null,
            row: stored,
          };
        });
      });
    },

    async markAnnouncedMany(chainId: number, addresses: readonly string[]): Promise<void> {
      if (addresses.length === 0) return;
      await db
        .update(tokens)
        .set({ announcedAt: new Date() })
        .where(
          and(
            eq(tokens.chainId, chainId),
            inArray(tokens.address, [...addresses]),
            isNull(tokens.announcedAt),
          ),
        );
    },
  };
}

export type ReplayTokenWriter = ReturnType<typeof createReplayTokenWriter>;
