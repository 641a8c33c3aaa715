import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import {
  analyses,
  blockHashes,
  creators,
  holderBalances,
  pairs,
  scanCursors,
  tokenHistory,
  tokenHistory1h,
  tokenHistory5m,
  tokens,
  watchlist,
} from '../schema.ts';
import { lockChainExclusive } from './chain-lock.ts';
import { forgetHolders, undoHoldersAfter } from './holders.ts';

export interface BlockRecord {
  chainId: number;
  blockNumber: number;
  blockHash: string;
  parentHash: string;
  timestamp: Date;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Deletes the orphaned tokens' rows in the tables keyed by token, then their creators' counts. */
async function forgetTokens(
  tx: Tx,
  chainId: number,
  removed: { address: string; creator: string | null }[],
): Promise<void> {
  const addresses = removed.map((r) => r.address);
  if (addresses.length > 0) {
    for (const table of [analyses, tokenHistory, tokenHistory5m, tokenHistory1h, watchlist]) {
      await tx
        .delete(table)
        .where(and(eq(table.chainId, chainId), inArray(table.address, addresses)));
    }
  }
  const perCreator = new Map<string, number>();
  for (const { creator } of removed)
    if (creator) perCreator.set(creator, (perCreator.get(creator) ?? 0) + 1);
  for (const [creator, count] of perCreator) {
    await tx
      .update(creators)
      .set({ totalTokens: sql`greatest(${creators.totalTokens} - ${count}, 0)` })
      .where(and(eq(creators.chainId, chainId), eq(creators.address, creator)));
  }
}

/** The balances of removed tokens and pairs (what their Transfers left after the undo). */
async function forgetTokenHolders(tx: Tx, chainId: number, addresses: string[]): Promise<void> {
  if (addresses.length === 0) return;
  await tx
    .delete(holderBalances)
    .where(and(eq(holderBalances.chainId, chainId), inArray(holderBalances.token, addresses)));
}

async function rollbackChain(
  db: Database,
  chainId: number,
  ancestor: number,
  newBranch: BlockRecord[],
): Promise<{ address: string; creator: string | null }[]> {
  return db.transaction(async (tx) => {
    await lockChainExclusive(tx, chainId);
    await tx
      .delete(blockHashes)
      .where(and(eq(blockHashes.chainId, chainId), gt(blockHashes.blockNumber, ancestor)));
    if (newBranch.length > 0) await tx.insert(blockHashes).values(newBranch);
    const [kept] = await tx
      .select({ h: blockHashes.blockHash })
      .from(blockHashes)
      .where(and(eq(blockHashes.chainId, chainId), eq(blockHashes.blockNumber, ancestor)));
    // Balances lose exactly what the orphaned blocks' Transfers added (before their tokens go).
    await undoHoldersAfter(tx, chainId, ancestor, kept?.h ?? null);
    const removed = await tx
      .delete(tokens)
      .where(and(eq(tokens.chainId, chainId), gt(tokens.creationBlockNumber, ancestor)))
      .returning({ address: tokens.address, creator: tokens.creator });
    await forgetTokens(tx, chainId, removed);
    await forgetTokenHolders(tx, chainId, [
      ...removed.map((r) => r.address),
      ...(
        await tx
          .select({ address: pairs.address })
          .from(pairs)
          .where(and(eq(pairs.chainId, chainId), gt(pairs.creationBlockNumber, ancestor)))
      ).map((p) => p.address),
    ]);
    await tx
      .delete(pairs)
      .where(and(eq(pairs.chainId, chainId), gt(pairs.creationBlockNumber, ancestor)));
    await tx
      .update(scanCursors)
      .set({ nextBlock: ancestor + 1, updatedAt: new Date() })
      .where(eq(scanCursors.chainId, chainId));
    return removed;
  });
}

async function resetChain(db: Database, chainId: number): Promise<void> {
  await db.transaction(async (tx) => {
    for (const table of [
      tokens,
      pairs,
      analyses,
      tokenHistory,
      tokenHistory5m,
      tokenHistory1h,
      creators,
      blockHashes,
    ]) {
      await tx.delete(table).where(eq(table.chainId, chainId));
    }
    await forgetHolders(tx, chainId);
    await tx.delete(scanCursors).where(eq(scanCursors.chainId, chainId));
  });
}

export function createScanRepository(db: Database) {
  return {
    async getCursor(
      chainId: number,
    ): Promise<{ nextBlock: number; genesisHash: string | null } | undefined> {
      const [row] = await db.select().from(scanCursors).where(eq(scanCursors.chainId, chainId));
      return row ? { nextBlock: row.nextBlock, genesisHash: row.genesisHash } : undefined;
    },

    /** Records blocks as handed to the pipeline and advances the cursor, atomically. */
    async advance(
      chainId: number,
      blocks: BlockRecord[],
      nextBlock: number,
      genesisHash: string,
    ): Promise<void> {
      await db.transaction(async (tx) => {
        if (blocks.length > 0) {
          await tx
            .insert(blockHashes)
            .values(blocks)
            .onConflictDoUpdate({
              target: [blockHashes.chainId, blockHashes.blockNumber],
              set: {
                blockHash: sql`excluded.block_hash`,
                parentHash: sql`excluded.parent_hash`,
                timestamp: sql`excluded.timestamp`,
              },
            });
        }
        await tx
          .insert(scanCursors)
          .values({ chainId, nextBlock, genesisHash })
          .onConflictDoUpdate({
            target: scanCursors.chainId,
            set: { nextBlock, genesisHash, updatedAt: new Date() },
          });
      });
    },

    async getBlockHash(chainId: number, blockNumber: number): Promise<string | undefined> {
      const [row] = await db
        .select({ h: blockHashes.blockHash })
        .from(blockHashes)
        .where(and(eq(blockHashes.chainId, chainId), eq(blockHashes.blockNumber, blockNumber)));
      return row?.h;
    },

    /** Keeps the reorg window bounded. */
    async pruneBlockHashes(chainId: number, belowBlock: number): Promise<void> {
      await db
        .delete(blockHashes)
        .where(and(eq(blockHashes.chainId, chainId), lt(blockHashes.blockNumber, belowBlock)));
    },

    /** Tokens created after `ancestor`: what a rollback to it would remove. */
    async tokensAfter(chainId: number, ancestor: number): Promise<string[]> {
      const rows = await db
        .select({ address: tokens.address })
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), gt(tokens.creationBlockNumber, ancestor)));
      return rows.map((r) => r.address);
    },

    /**
     * Undoes the blocks after `ancestor` (a reorg): records the new branch's hashes, deletes what the
     * orphaned blocks produced (tokens, their analyses, history and watchlist entries, pairs),
     * corrects creator counts and rewinds the cursor, all in one transaction under the chain lock.
     */
    rollback: (chainId: number, ancestor: number, newBranch: BlockRecord[]) =>
      rollbackChain(db, chainId, ancestor, newBranch),

    /** Forgets everything about a chain: only for a restarted development chain whose history is gone. */
    resetChain: (chainId: number) => resetChain(db, chainId),
  };
}

export type ScanRepository = ReturnType<typeof createScanRepository>;
