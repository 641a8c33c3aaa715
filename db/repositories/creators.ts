import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { creators, tokens } from '../schema.ts';
import type { CreatorRow, TokenRow } from './tokens.ts';

/** Creator reputation rows (written by the detect and risk stages), read by the API. */

export const CREATOR_SORT_FIELDS = ['last_seen', 'total_tokens', 'reputation_score'] as const;
export type CreatorSortField = (typeof CREATOR_SORT_FIELDS)[number];

const SORT_COLUMNS = {
  last_seen: creators.lastSeen,
  total_tokens: creators.totalTokens,
  reputation_score: creators.reputationScore,
} as const;

export interface CreatorListQuery {
  chainId?: number;
  page: number;
  limit: number;
  sort: CreatorSortField;
}

export function createCreatorRepository(db: Database) {
  return {
    async list(query: CreatorListQuery): Promise<{ items: CreatorRow[]; total: number }> {
      const where: SQL | undefined = query.chainId === undefined ? undefined : eq(creators.chainId, query.chainId);
      const [items, [totalRow]] = await Promise.all([
        db.select().from(creators).where(where)
          .orderBy(desc(SORT_COLUMNS[query.sort]), desc(creators.lastSeen), desc(creators.address))
          .limit(query.limit).offset((query.page - 1) * query.limit),
        db.select({ n: count() }).from(creators).where(where),
      ]);
      return { items, total: totalRow?.n ?? 0 };
    },

    /** One row per chain the address created tokens on (newest activity first). */
    async byAddress(address: string, chainId?: number): Promise<CreatorRow[]> {
      const where = chainId === undefined ? eq(creators.address, address) : and(eq(creators.address, address), eq(creators.chainId, chainId));
      return db.select().from(creators).where(where).orderBy(desc(creators.lastSeen));
    },

    async tokensOf(chainId: number, address: string, limit: number): Promise<TokenRow[]> {
      return db.select().from(tokens)
        .where(and(eq(tokens.chainId, chainId), eq(tokens.creator, address)))
        .orderBy(desc(tokens.detectedAt), desc(tokens.address))
        .limit(limit);
    },
  };
}

export type CreatorRepository = ReturnType<typeof createCreatorRepository>;
