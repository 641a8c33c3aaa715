import { and, desc, eq, getTableColumns, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';
import type { Database } from '../client.ts';
import { analyses, creators, type tokenHistory, tokens } from '../schema.ts';
import type { AnalysisRow, CreatorRow, HistoryRow, TokenKey, TokenRow } from './rows.ts';

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

/** How long the tier bounds are reused as they are; after that the next read refreshes them. */
const CUT_FRESH_MS = 1_000;
/** Older than this, a read waits for fresh bounds instead of using these (an idle process). */
const CUT_MAX_AGE_MS = 5_000;

/**
 * The tier bounds, shared by the reads of one repository: read at most once a second (and in the
 * background while the previous value is under 5 s old), instead of one more round trip before
 * every history read. Both tiers are cut at the same value, so they still never overlap; the bounds
 * lag by at most 5 s (a snapshot at the 24 h boundary may come from the neighbouring tier).
 */
function createCutSource(db: Database) {
  let held: { cut: HistoryCut; at: number } | undefined;
  let refreshing: Promise<HistoryCut> | undefined;
  const refresh = () => {
    refreshing ??= db
      .execute<{ raw_from: string; five_from: string }>(HISTORY_CUT_QUERY)
      .then(([cut]) => {
        held = { cut: cut!, at: Date.now() };
        return cut!;
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };
  return async (): Promise<HistoryCut> => {
    const age = held ? Date.now() - held.at : Number.POSITIVE_INFINITY;
    if (held && age < CUT_FRESH_MS) return held.cut;
    if (held && age < CUT_MAX_AGE_MS) {
      // A failed background refresh is retried by the next read; the held bounds stay valid.
      refresh().catch(() => undefined);
      return held.cut;
    }
    return refresh();
  };
}

const dialect = new PgDialect();

/**
 * Runs the history read as a named prepared statement of its connection: after five executions
 * Postgres keeps a generic plan and prunes the partitions when it executes (planning the three
 * tiers' partitions took about 0.8 ms per read, executing it about 0.1 ms).
 */
async function preparedRows(db: Database, query: SQL): Promise<Record<string, unknown>[]> {
  const client = (db as unknown as { $client?: Sql }).$client;
  if (!client) return db.execute<Record<string, unknown>>(query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  return client.unsafe(text, params as never[], { prepare: true });
}

/** Everything a complete token object holds beyond its row: analyses, history, creator. */
export function detailQueries(db: Database) {
  const currentCut = createCutSource(db);
  return {
    /** The tokens' rows, each with its creator's row (null: no creator known or recorded yet). */
    async rowsWithCreators(
      keys: readonly TokenKey[],
    ): Promise<{ row: TokenRow; creator: CreatorRow | null }[]> {
      if (keys.length === 0) return [];
      return db
        .select({ row: tokens, creator: creators })
        .from(tokens)
        .leftJoin(
          creators,
          and(eq(creators.chainId, tokens.chainId), eq(creators.address, tokens.creator)),
        )
        .where(keysCondition(tokens, keys));
    },

    /**
     * At most `limit` snapshots per token, most recent first, across the retention tiers
     * (docs/scale.md): one ordered, limited index read per token (a lateral join), so the cost
     * does not grow with the token's history.
     */
    async histories(keys: readonly TokenKey[], limit: number): Promise<Map<string, HistoryRow[]>> {
      const result = new Map<string, HistoryRow[]>(keys.map((k) => [tokenKey(k), []]));
      if (keys.length === 0) return result;
      const rows = await preparedRows(db, historiesQuery(keys, limit, await currentCut()));
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

    /**
     * In one read of each token's analyses: at most `limit` scored analyses, newest first (the
     * complete object's `analyses`), and the admin functions of the newest static analysis (a
     * re-run may carry none of its own). Each row is ranked among the scored and among the static
     * rows; a row is returned when it is among the first `limit` of the one or the first of the other.
     */
    async analysesOf(
      keys: readonly TokenKey[],
      limit: number,
    ): Promise<{ recent: Map<string, AnalysisRow[]>; admin: Map<string, unknown> }> {
      const recent = new Map<string, AnalysisRow[]>(keys.map((k) => [tokenKey(k), []]));
      const admin = new Map<string, unknown>();
      if (keys.length === 0) return { recent, admin };
      const scored = sql`${analyses.riskScore} is not null`;
      const isStatic = sql`${analyses.details} ? 'static'`;
      const rankAmong = (kind: SQL) =>
        sql<
          string | null
        >`case when ${kind} then row_number() over (partition by ${analyses.chainId}, ${analyses.address}, ${kind} order by ${analyses.createdAt} desc, ${analyses.id} desc) end`;
      const ranked = db
        .select({
          ...getTableColumns(analyses),
          scoredRank: rankAmong(scored).as('scored_rank'),
          staticRank: rankAmong(isStatic).as('static_rank'),
          adminFunctions: sql<unknown>`${analyses.details}->'static'->'admin_functions'`.as(
            'admin_functions',
          ),
        })
        .from(analyses)
        .where(and(keysCondition(analyses, keys), or(scored, isStatic)))
        .as('ranked');
      const rows = await db
        .select()
        .from(ranked)
        .where(or(lte(ranked.scoredRank, sql`${limit}`), eq(ranked.staticRank, sql`1`)))
        .orderBy(ranked.chainId, ranked.address, desc(ranked.createdAt), desc(ranked.id));
      for (const { scoredRank, staticRank, adminFunctions, ...row } of rows) {
        if (scoredRank !== null && Number(scoredRank) <= limit)
          recent.get(tokenKey(row))?.push(row);
        if (staticRank !== null && Number(staticRank) === 1)
          admin.set(tokenKey(row), adminFunctions);
      }
      return { recent, admin };
    },
  };
}
