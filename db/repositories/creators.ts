import { and, count, desc, eq, ne, type SQL, sql } from 'drizzle-orm';
import {
  type CreatorCounts,
  rates,
  reputationScore,
  SUCCESS_MAX_RISK_SCORE,
  SUCCESS_MIN_AGE_HOURS,
} from '../../src/analysis/creators.ts';
import type { Database } from '../client.ts';
import { creators, tokens } from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';
import type { CreatorRow, TokenRow } from './tokens.ts';

/**
 * Creator reputation in Postgres, written by the pipeline and read by the API. Counts are
 * recomputed from the tokens table with the definitions of src/analysis/creators.ts (scam,
 * success), never incremented, so that a job that runs twice, or a token whose status changes,
 * leaves the right numbers.
 */

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

// SQL mirror of tokenOutcome(): keep the two in step (creators.test.ts checks them against each other).
const isScam = sql`(coalesce(${tokens.isHoneypot}, false) or ${tokens.liquidityPulledAt} is not null)`;
const isSuccess = sql`(not ${isScam}
  and ${tokens.currentRiskScore} is not null and ${tokens.currentRiskScore} <= ${SUCCESS_MAX_RISK_SCORE}
  and coalesce(${tokens.creationTimestamp}, ${tokens.detectedAt}) <= now() - make_interval(hours => ${SUCCESS_MIN_AGE_HOURS})
  and ((${tokens.tradingSimulation}->>'is_sellable') = 'true' or ${tokens.isActivelyTraded}))`;

export interface CreatorReputation extends CreatorCounts {
  address: string;
  chain_id: number;
  reputation_score: number;
  success_rate: number | null;
  scam_rate: number | null;
}

const reputationOf = (chainId: number, creator: string, c: CreatorCounts): CreatorReputation => ({
  address: creator,
  chain_id: chainId,
  ...c,
  reputation_score: reputationScore(c),
  ...rates(c),
});

/** Whether the creator's row already holds these numbers. */
async function storedAlready(
  tx: Pick<Database, 'select'>,
  chainId: number,
  creator: string,
  r: CreatorCounts & { reputation_score: number },
): Promise<boolean> {
  const [stored] = await tx
    .select({
      total: creators.totalTokens,
      successes: creators.successCount,
      scams: creators.scamCount,
      score: creators.reputationScore,
    })
    .from(creators)
    .where(and(eq(creators.chainId, chainId), eq(creators.address, creator)));
  return (
    stored?.total === r.total_tokens &&
    stored.successes === r.success_count &&
    stored.scams === r.scam_count &&
    stored.score === r.reputation_score
  );
}

/** A creator's token counts, read by `executor` (a transaction, or the database). */
async function countTokens(
  executor: Pick<Database, 'select'>,
  chainId: number,
  creator: string,
  excludeToken?: string,
): Promise<CreatorCounts> {
  const where = and(
    eq(tokens.chainId, chainId),
    eq(tokens.creator, creator),
    excludeToken ? ne(tokens.address, excludeToken) : undefined,
  );
  const [row] = await executor
    .select({
      total: sql<number>`count(*)::int`,
      scams: sql<number>`(count(*) filter (where ${isScam}))::int`,
      successes: sql<number>`(count(*) filter (where ${isSuccess}))::int`,
    })
    .from(tokens)
    .where(where);
  return {
    total_tokens: row?.total ?? 0,
    scam_count: row?.scams ?? 0,
    success_count: row?.successes ?? 0,
  };
}

/** Recomputes a creator's row from their tokens (idempotent). */
async function refreshCreator(
  db: Database,
  chainId: number,
  creator: string,
): Promise<CreatorReputation> {
  return db.transaction(async (tx) => {
    // Shared like token writes, so a reorg rollback (exclusive) cannot fall between the counts and
    // the write: counts read before a rollback and written after it would restore its tokens.
    await lockChainShared(tx, chainId);
    const c = await countTokens(tx, chainId, creator);
    const result = reputationOf(chainId, creator, c);
    const score = result.reputation_score;
    // Unchanged numbers are not written: an upsert would lock the creator's row until commit,
    // and the risk jobs of one prolific creator's tokens would wait on each other for nothing.
    if (await storedAlready(tx, chainId, creator, result)) return result;
    await tx
      .insert(creators)
      .values({
        chainId,
        address: creator,
        totalTokens: c.total_tokens,
        successCount: c.success_count,
        scamCount: c.scam_count,
        reputationScore: score,
      })
      .onConflictDoUpdate({
        target: [creators.chainId, creators.address],
        set: {
          totalTokens: c.total_tokens,
          successCount: c.success_count,
          scamCount: c.scam_count,
          reputationScore: score,
        },
      });
    return result;
  });
}

/** The creators list and one creator's rows and tokens. */
function creatorReads(db: Database) {
  return {
    async list(query: CreatorListQuery): Promise<{ items: CreatorRow[]; total: number }> {
      const where: SQL | undefined =
        query.chainId === undefined ? undefined : eq(creators.chainId, query.chainId);
      const [items, [totalRow]] = await Promise.all([
        db
          .select()
          .from(creators)
          .where(where)
          .orderBy(desc(SORT_COLUMNS[query.sort]), desc(creators.lastSeen), desc(creators.address))
          .limit(query.limit)
          .offset((query.page - 1) * query.limit),
        db.select({ n: count() }).from(creators).where(where),
      ]);
      return { items, total: totalRow?.n ?? 0 };
    },

    /** One row per chain the address created tokens on (newest activity first). */
    async byAddress(address: string, chainId?: number): Promise<CreatorRow[]> {
      const where =
        chainId === undefined
          ? eq(creators.address, address)
          : and(eq(creators.address, address), eq(creators.chainId, chainId));
      return db.select().from(creators).where(where).orderBy(desc(creators.lastSeen));
    },

    async tokensOf(chainId: number, address: string, limit: number): Promise<TokenRow[]> {
      return db
        .select()
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), eq(tokens.creator, address)))
        .orderBy(desc(tokens.detectedAt), desc(tokens.address))
        .limit(limit);
    },
  };
}

export function createCreatorRepository(db: Database) {
  const counts = (
    chainId: number,
    creator: string,
    excludeToken?: string,
    executor: Pick<Database, 'select'> = db,
  ) => countTokens(executor, chainId, creator, excludeToken);
  const refresh = (chainId: number, creator: string) => refreshCreator(db, chainId, creator);
  return {
    ...creatorReads(db),
    counts,
    refresh,

    /** Reputation as the risk stage sees it: the creator's other tokens only, so a token never judges itself. */
    async reputationExcluding(
      chainId: number,
      creator: string,
      token: string,
    ): Promise<CreatorReputation> {
      return reputationOf(chainId, creator, await counts(chainId, creator, token));
    },

    /**
     * For the DEX stage (docs/dex.md): the token's liquidity was pulled. Marks it (the first time
     * counts) and recomputes its creator's reputation; returns the creator, or null when unknown.
     */
    async recordLiquidityPulled(
      chainId: number,
      token: string,
      at: Date = new Date(),
    ): Promise<CreatorReputation | null> {
      const [row] = await db
        .update(tokens)
        .set({
          liquidityPulledAt: sql`coalesce(${tokens.liquidityPulledAt}, ${at.toISOString()}::timestamptz)`,
          updatedAt: new Date(),
        })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, token)))
        .returning({ creator: tokens.creator });
      if (!row?.creator) return null;
      return refresh(chainId, row.creator);
    },
  };
}

export type CreatorRepository = ReturnType<typeof createCreatorRepository>;
