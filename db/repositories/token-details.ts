import { and, desc, eq, getTableColumns, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { analyses, creators, type tokenHistory, tokens } from '../schema.ts';
import type { AnalysisRow, CreatorRow, HistoryRow, TokenKey, TokenRow } from './tokens.ts';

/** Reads of what is known about given tokens, several at once (createTokenRepository spreads them in). */

export const tokenKey = (k: TokenKey) => `${k.chainId}:${k.address}`;

/** (chain_id, address) pairs grouped by chain: one indexed IN per chain. */
function keysCondition(
  table: {
    chainId:
      | typeof tokens.chainId
      | typeof analyses.chainId
      | typeof tokenHistory.chainId
      | typeof creators.chainId;
    address:
      | typeof tokens.address
      | typeof analyses.address
      | typeof tokenHistory.address
      | typeof creators.address;
  },
  keys: readonly TokenKey[],
): SQL | undefined {
  const byChain = new Map<number, string[]>();
  for (const k of keys) byChain.set(k.chainId, [...(byChain.get(k.chainId) ?? []), k.address]);
  return or(
    ...[...byChain].map(([chainId, addresses]) =>
      and(eq(table.chainId, chainId), inArray(table.address, addresses)),
    ),
  );
}

const HISTORY_COLUMNS = sql.raw(
  'bucket_at, risk_score, price_usd, liquidity_usd, volume_24h_usd, market_cap_usd',
);

/**
 * Where each tier starts, read first and passed to the history query as constants: the tiers never
 * overlap in what a reader sees: raw snapshots from `raw_from` on (the rollup watermark or 24 h
 * ago, whichever is earlier, so a lagging rollup hides nothing), 5 min rollups below that down to
 * 7 days ago (`five_from`), 1 h rollups below that. Without a watermark (no maintenance has run)
 * every raw snapshot is shown.
 */
export const HISTORY_CUT_QUERY = sql`
  select least(coalesce((select rolled_up_until from history_maintenance where name = 'rollup'), '-infinity'::timestamptz),
               now() - interval '24 hours')::text as raw_from,
         (now() - interval '7 days')::text as five_from`;

export interface HistoryCut {
  raw_from: string;
  five_from: string;
}

/**
 * Bounds given as values, not computed in the statement: the planner then prunes the day
 * partitions at plan time (a handful instead of every partition of three tables; planning every
 * partition took 10 ms at 30 days, the read itself under 1 ms).
 */
export function historiesQuery(keys: readonly TokenKey[], limit: number, cut: HistoryCut): SQL {
  const values = sql.join(
    keys.map((k) => sql`(${k.chainId}::int, ${k.address}::text)`),
    sql`, `,
  );
  const rawFrom = sql`${cut.raw_from}::timestamptz`;
  const fiveFrom = sql`${cut.five_from}::timestamptz`;
  const tier = (
    table: string,
    range: SQL,
  ) => sql`(select ${HISTORY_COLUMNS} from ${sql.raw(table)} h
      where h.chain_id = k.chain_id and h.address = k.address and ${range} order by h.bucket_at desc limit ${limit})`;
  return sql`
    select k.chain_id, k.address, t.* from (values ${values}) as k(chain_id, address)
    cross join lateral (
      select * from (
        ${tier('token_history', sql`h.bucket_at >= ${rawFrom}`)}
        union all
        ${tier('token_history_5m', sql`h.bucket_at < ${rawFrom} and h.bucket_at >= ${fiveFrom}`)}
        union all
        ${tier('token_history_1h', sql`h.bucket_at < least(${rawFrom}, ${fiveFrom})`)}
      ) u order by u.bucket_at desc limit ${limit}
    ) t
    order by k.chain_id, k.address, t.bucket_at desc`;
}

/** Everything a complete token object holds beyond its row: analyses, history, creator. */
export function detailQueries(db: Database) {
  return {
    async getMany(keys: readonly TokenKey[]): Promise<TokenRow[]> {
      if (keys.length === 0) return [];
      return db.select().from(tokens).where(keysCondition(tokens, keys));
    },

    /** The newest analysis row of each token. */
    async latestAnalyses(keys: readonly TokenKey[]): Promise<Map<string, AnalysisRow>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .selectDistinctOn([analyses.chainId, analyses.address])
        .from(analyses)
        .where(keysCondition(analyses, keys))
        .orderBy(analyses.chainId, analyses.address, desc(analyses.createdAt), desc(analyses.id));
      return new Map(rows.map((r) => [tokenKey(r), r]));
    },

    /**
     * At most `limit` snapshots per token, most recent first, across the retention tiers
     * (docs/scale.md): one ordered, limited index read per token (a lateral join), so the cost
     * does not grow with the token's history.
     */
    async histories(keys: readonly TokenKey[], limit: number): Promise<Map<string, HistoryRow[]>> {
      const result = new Map<string, HistoryRow[]>(keys.map((k) => [tokenKey(k), []]));
      if (keys.length === 0) return result;
      const [cut] = await db.execute<{ raw_from: string; five_from: string }>(HISTORY_CUT_QUERY);
      const rows = await db.execute<Record<string, unknown>>(historiesQuery(keys, limit, cut!));
      for (const r of rows) {
        const row: HistoryRow = {
          chainId: Number(r.chain_id),
          address: String(r.address),
          bucketAt: new Date(r.bucket_at as string),
          riskScore: r.risk_score === null ? null : Number(r.risk_score),
          priceUsd: r.price_usd as string | null,
          liquidityUsd: r.liquidity_usd as string | null,
          volume24hUsd: r.volume_24h_usd as string | null,
          marketCapUsd: r.market_cap_usd as string | null,
        };
        result.get(tokenKey(row))?.push(row);
      }
      return result;
    },

    /** At most `limit` scored analyses per token, newest first (the complete object's `analyses`). */
    async recentAnalyses(
      keys: readonly TokenKey[],
      limit: number,
    ): Promise<Map<string, AnalysisRow[]>> {
      const result = new Map<string, AnalysisRow[]>(keys.map((k) => [tokenKey(k), []]));
      if (keys.length === 0) return result;
      const ranked = db
        .select({
          ...getTableColumns(analyses),
          rank: sql<number>`row_number() over (partition by ${analyses.chainId}, ${analyses.address} order by ${analyses.createdAt} desc, ${analyses.id} desc)`.as(
            'rank',
          ),
        })
        .from(analyses)
        .where(and(keysCondition(analyses, keys), sql`${analyses.riskScore} is not null`))
        .as('ranked');
      const rows = await db
        .select()
        .from(ranked)
        .where(lte(ranked.rank, limit))
        .orderBy(ranked.chainId, ranked.address, ranked.rank);
      for (const { rank: _rank, ...row } of rows) result.get(tokenKey(row))?.push(row);
      return result;
    },

    /** The admin functions of each token's newest static analysis (a re-run may carry none of its own). */
    async latestAdminFunctions(keys: readonly TokenKey[]): Promise<Map<string, unknown>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .selectDistinctOn([analyses.chainId, analyses.address], {
          chainId: analyses.chainId,
          address: analyses.address,
          adminFunctions: sql<unknown>`${analyses.details}->'static'->'admin_functions'`,
        })
        .from(analyses)
        .where(and(keysCondition(analyses, keys), sql`${analyses.details} ? 'static'`))
        .orderBy(analyses.chainId, analyses.address, desc(analyses.createdAt), desc(analyses.id));
      return new Map(rows.map((r) => [tokenKey(r), r.adminFunctions]));
    },

    async creatorsOf(keys: readonly TokenKey[]): Promise<Map<string, CreatorRow>> {
      if (keys.length === 0) return new Map();
      const rows = await db.select().from(creators).where(keysCondition(creators, keys));
      return new Map(rows.map((r) => [tokenKey(r), r]));
    },
  };
}
