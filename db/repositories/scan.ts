import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { analyses, blockHashes, creators, pairs, scanCursors, tokenHistory, tokens } from '../schema.ts';

export interface BlockRecord {
  chainId: number;
  blockNumber: number;
  blockHash: string;
  parentHash: string;
  timestamp: Date;
}

export function createScanRepository(db: Database) {
  return {
    async getCursor(chainId: number): Promise<{ nextBlock: number; genesisHash: string | null } | undefined> {
      const [row] = await db.select().from(scanCursors).where(eq(scanCursors.chainId, chainId));
      return row ? { nextBlock: row.nextBlock, genesisHash: row.genesisHash } : undefined;
    },

    /** Records blocks as handed to the pipeline and advances the cursor, atomically. */
    async advance(chainId: number, blocks: BlockRecord[], nextBlock: number, genesisHash: string): Promise<void> {
      await db.transaction(async (tx) => {
        if (blocks.length > 0) {
          await tx.insert(blockHashes).values(blocks).onConflictDoUpdate({
            target: [blockHashes.chainId, blockHashes.blockNumber],
            set: { blockHash: sql`excluded.block_hash`, parentHash: sql`excluded.parent_hash`, timestamp: sql`excluded.timestamp` },
          });
        }
        await tx.insert(scanCursors).values({ chainId, nextBlock, genesisHash }).onConflictDoUpdate({
          target: scanCursors.chainId,
          set: { nextBlock, genesisHash, updatedAt: new Date() },
        });
      });
    },

    async getBlockHash(chainId: number, blockNumber: number): Promise<string | undefined> {
      const [row] = await db.select({ h: blockHashes.blockHash }).from(blockHashes)
        .where(and(eq(blockHashes.chainId, chainId), eq(blockHashes.blockNumber, blockNumber)));
      return row?.h;
    },

    /** Keeps the reorg window bounded. */
    async pruneBlockHashes(chainId: number, belowBlock: number): Promise<void> {
      await db.delete(blockHashes).where(and(eq(blockHashes.chainId, chainId), lt(blockHashes.blockNumber, belowBlock)));
    },

    /** Forgets everything about a chain: only for a restarted development chain whose history is gone. */
    async resetChain(chainId: number): Promise<void> {
      await db.transaction(async (tx) => {
        for (const table of [tokens, pairs, analyses, tokenHistory, creators, blockHashes]) {
          await tx.delete(table).where(eq(table.chainId, chainId));
        }
        await tx.delete(scanCursors).where(eq(scanCursors.chainId, chainId));
      });
    },
  };
}

export type ScanRepository = ReturnType<typeof createScanRepository>;
