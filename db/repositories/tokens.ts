import { and, count, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { creators, pairs, tokens } from '../schema.ts';

export type TokenRow = typeof tokens.$inferSelect;

export interface DetectedToken {
  chainId: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string;
  creationTxHash: string | null;
  creator: string | null;
  creatorIsContract: boolean | null;
  txOrigin: string | null;
  creationBlockNumber: number | null;
  creationBlockHash: string | null;
  creationTimestamp: Date | null;
  creationGasUsed: number | null;
  detectionSource: string;
}

export interface DetectedPair {
  chainId: number;
  address: string;
  dex: string;
  factory: string | null;
  token0: string;
  token1: string;
  creationBlockNumber: number | null;
  creationTxHash: string | null;
}

export interface TokenListQuery {
  chainId?: number;
  page: number;
  limit: number;
}

/** Pipeline stages in order; a token's `stage` only moves forward (a re-run never rewinds it). */
export const STAGE_ORDER = ['detected', 'bytecode', 'selectors', 'simulate', 'risk', 'dex'] as const;
export type Stage = (typeof STAGE_ORDER)[number];

/** SQL for `stage` advanced to `to` unless it is already there or beyond. */
export function advancedStage(to: Stage) {
  const order = sql.raw(`array[${STAGE_ORDER.map((s) => `'${s}'`).join(',')}]::text[]`);
  return sql`case when coalesce(array_position(${order}, ${tokens.stage}), 0) < array_position(${order}, ${to}::text) then ${to}::text else ${tokens.stage} end`;
}

/** Creation data fills gaps but never overwrites what an earlier sighting recorded. */
const keepFirst = (column: string) => sql.raw(`coalesce("tokens"."${column}", excluded."${column}")`);

export function createTokenRepository(db: Database) {
  return {
    /**
     * Idempotent: a second detection of the same token changes nothing but missing creation data.
     * The creator's token count moves only when the token row is new, in the same transaction.
     */
    async upsertDetected(token: DetectedToken): Promise<{ inserted: boolean; announced: boolean; row: TokenRow }> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(tokens)
          .values(token)
          .onConflictDoUpdate({
            target: [tokens.chainId, tokens.address],
            set: {
              creationTxHash: keepFirst('creation_tx_hash'),
              creator: keepFirst('creator'),
              creatorIsContract: keepFirst('creator_is_contract'),
              txOrigin: keepFirst('tx_origin'),
              creationBlockNumber: keepFirst('creation_block_number'),
              creationBlockHash: keepFirst('creation_block_hash'),
              creationTimestamp: keepFirst('creation_timestamp'),
              creationGasUsed: keepFirst('creation_gas_used'),
            },
          })
          // xmax = 0 only for a freshly inserted row version: tells insert from update in one round trip.
          .returning({ ...getTableColumns(tokens), inserted: sql<boolean>`(xmax = 0)` });
        if (!row) throw new Error('upsert returned no row');
        const { inserted, ...saved } = row;
        if (inserted && token.creator) {
          await tx
            .insert(creators)
            .values({ chainId: token.chainId, address: token.creator, totalTokens: 1 })
            .onConflictDoUpdate({
              target: [creators.chainId, creators.address],
              set: { totalTokens: sql`${creators.totalTokens} + 1`, lastSeen: sql`now()` },
            });
        }
        return { inserted, announced: saved.announcedAt !== null, row: saved };
      });
    },

    async markAnnounced(chainId: number, address: string): Promise<void> {
      await db.update(tokens).set({ announcedAt: new Date() })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, address), isNull(tokens.announcedAt)));
    },

    async updateBytecode(chainId: number, address: string, facts: { bytecodeHash: string; codeLength: number; proxyLike: boolean }) {
      await db.update(tokens)
        .set({ ...facts, stage: advancedStage('bytecode'), updatedAt: new Date() })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, address)));
    },

    async upsertPair(pair: DetectedPair): Promise<void> {
      await db.insert(pairs).values(pair).onConflictDoNothing();
    },

    /** Which of these addresses are already recorded as a token or a pair. */
    async knownAddresses(chainId: number, addresses: string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const [t, p] = await Promise.all([
        db.select({ a: tokens.address }).from(tokens).where(and(eq(tokens.chainId, chainId), inArray(tokens.address, addresses))),
        db.select({ a: pairs.address }).from(pairs).where(and(eq(pairs.chainId, chainId), inArray(pairs.address, addresses))),
      ]);
      return new Set([...t, ...p].map((r) => r.a));
    },

    async get(chainId: number | undefined, address: string): Promise<TokenRow | undefined> {
      const where = chainId === undefined ? eq(tokens.address, address) : and(eq(tokens.chainId, chainId), eq(tokens.address, address));
      const [row] = await db.select().from(tokens).where(where).orderBy(desc(tokens.detectedAt)).limit(1);
      return row;
    },

    async list(query: TokenListQuery): Promise<{ items: TokenRow[]; total: number }> {
      const where = query.chainId === undefined ? undefined : eq(tokens.chainId, query.chainId);
      const [items, [totalRow]] = await Promise.all([
        db.select().from(tokens).where(where)
          .orderBy(desc(tokens.detectedAt), desc(tokens.address))
          .limit(query.limit).offset((query.page - 1) * query.limit),
        db.select({ n: count() }).from(tokens).where(where),
      ]);
      return { items, total: totalRow?.n ?? 0 };
    },

    async countByChain(chainId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(tokens).where(eq(tokens.chainId, chainId));
      return row?.n ?? 0;
    },
  };
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;
