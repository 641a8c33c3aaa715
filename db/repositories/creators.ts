import { and, count, desc, eq, ne, type Placeholder, type SQL, sql } from 'drizzle-orm';
import {
  type CreatorCounts,
  PRIOR_SUCCESSES,
  PRIOR_TOTAL,
  rates,
  reputationScore,
  SCAM_WEIGHT,
  SUCCESS_MAX_RISK_SCORE,
  SUCCESS_MIN_AGE_HOURS,
} from '../../src/analysis/risk/index.ts';
import type { Database } from '../client.ts';
import { pipelinedTransaction } from '../pipelined.ts';
import { creators, tokens } from '../schema.ts';
import { chainLockShared } from './chain-lock.ts';
import type { CreatorRow, TokenRow } from './tokens.ts';

/**
 * Creator reputation in Postgres, written by the pipeline and read by the API. Counts are
 * recomputed from the tokens table with the definitions of src/analysis/risk/creators.ts (scam,
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

export const reputationOf = (
  chainId: number,
  creator: string,
  c: CreatorCounts,
): CreatorReputation => ({
  address: creator,
  chain_id: chainId,
  ...c,
  reputation_score: reputationScore(c),
  ...rates(c),
});

/** A creator's token counts as SQL columns (`total`, `scams`, `successes`) of a select from tokens. */
export const creatorCountColumns = {
  total: sql<number>`count(*)::int`,
  scams: sql<number>`(count(*) filter (where ${isScam}))::int`,
  successes: sql<number>`(count(*) filter (where ${isSuccess}))::int`,
};

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
  const [row] = await executor.select(creatorCountColumns).from(tokens).where(where);
  return countsOf(row);
}

const countsOf = (row: Record<string, unknown> | undefined): CreatorCounts => ({
  total_tokens: Number(row?.total ?? 0),
  scam_count: Number(row?.scams ?? 0),
  success_count: Number(row?.successes ?? 0),
});

/** SQL mirror of reputationScore() over two count expressions (creators.test.ts checks it). */
export const reputationScoreSql = (successes: SQL, scams: SQL) =>
  sql`round(100.0 * (${successes} + ${PRIOR_SUCCESSES}) / (${successes} + ${SCAM_WEIGHT} * ${scams} + ${PRIOR_TOTAL}))::int`;

/**
 * One statement that recounts a creator's tokens and stores the numbers (idempotent), answering the
 * counts. It must run after the chain's lock is taken shared, in the same transaction: counts read
 * before a reorg rollback (which holds the lock exclusively) and written after it would restore its
 * tokens. Unchanged numbers are not written (an update would add a row version for nothing).
 */
export function creatorRefreshStatement(
  chainId: number | Placeholder,
  creator: string | Placeholder,
): SQL {
  const score = reputationScoreSql(sql`c.successes`, sql`c.scams`);
  return sql`with c as (
      select ${creatorCountColumns.total} as total, ${creatorCountColumns.scams} as scams,
        ${creatorCountColumns.successes} as successes
      from ${tokens} where ${and(eq(tokens.chainId, chainId), eq(tokens.creator, creator))}
    ), stored as (
      insert into ${creators} (chain_id, address, total_tokens, success_count, scam_count, reputation_score)
      select ${chainId}::int, ${creator}::text, c.total, c.successes, c.scams, ${score} from c
      on conflict (chain_id, address) do update set total_tokens = excluded.total_tokens,
        success_count = excluded.success_count, scam_count = excluded.scam_count,
        reputation_score = excluded.reputation_score
      where (${creators.totalTokens}, ${creators.successCount}, ${creators.scamCount}, ${creators.reputationScore})
        is distinct from (excluded.total_tokens, excluded.success_count, excluded.scam_count, excluded.reputation_score)
    )
    select total, scams, successes from c`;
}

/** Recomputes a creator's row from their tokens (idempotent), in one round trip. */
async function refreshCreator(
  db: Database,
  chainId: number,
  creator: string,
): Promise<CreatorReputation> {
  const [, counted] = await pipelinedTransaction(db, [
    chainLockShared(chainId),
    creatorRefreshStatement(chainId, creator),
  ]);
  return reputationOf(chainId, creator, countsOf(counted?.[0]));
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
