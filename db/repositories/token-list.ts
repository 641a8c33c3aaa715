import {
  and,
  asc,
  count,
  eq,
  getTableColumns,
  gte,
  ilike,
  inArray,
  like,
  lte,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';
import type { RiskLevel } from '../../src/analysis/types.ts';
import type { Database } from '../client.ts';
import { tokens } from '../schema.ts';
import type { TokenRow } from './rows.ts';

/** The token list: its filters, order, totals and the queries that read it (createTokenRepository spreads them in). */

export const TOKEN_SORT_FIELDS = [
  'detected_at',
  'current_risk_score',
  'current_liquidity_usd',
  'name',
  'symbol',
] as const;
export type TokenSortField = (typeof TOKEN_SORT_FIELDS)[number];

const SORT_COLUMNS = {
  detected_at: tokens.detectedAt,
  current_risk_score: tokens.currentRiskScore,
  current_liquidity_usd: tokens.currentLiquidityUsd,
  name: tokens.name,
  symbol: tokens.symbol,
} as const;

/** LIKE wildcards in user input are literal characters. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface TokenListQuery {
  chainId?: number;
  /** Any of these chains (the PRO list's chain_ids). */
  chainIds?: number[];
  /** Any of these addresses (the PRO list's addresses). */
  addresses?: string[];
  page: number;
  limit: number;
  /** Rows to skip; overrides page when set (the PRO list's offset pagination). */
  offset?: number;
  riskLevel?: RiskLevel;
  minRiskScore?: number;
  maxRiskScore?: number;
  isHoneypot?: boolean;
  minLiquidityUsd?: number;
  /** Some liquidity now (true) or none measured (false). */
  hasLiquidity?: boolean;
  isActivelyTraded?: boolean;
  /** On the creation time, or the detection time when the creation time is unknown. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** Substring of name or symbol (case-insensitive), or a prefix of the address. */
  q?: string;
  creator?: string;
  sort?: { field: TokenSortField; direction: 'asc' | 'desc' };
  /**
   * Keyset pagination in the default order (detected_at desc, address desc): the rows after this
   * one, read as an index range whatever the depth. Page and offset are then ignored.
   */
  after?: ListCursor;
}

/** The position of a row in the default order; `detectedAt` exact to the microsecond (Postgres text). */
export interface ListCursor {
  detectedAt: string;
  address: string;
}

function listConditions(query: TokenListQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [];
  if (query.chainId !== undefined) conditions.push(eq(tokens.chainId, query.chainId));
  if (query.chainIds !== undefined) conditions.push(inArray(tokens.chainId, query.chainIds));
  if (query.addresses !== undefined) conditions.push(inArray(tokens.address, query.addresses));
  if (query.riskLevel !== undefined) conditions.push(eq(tokens.currentRiskLevel, query.riskLevel));
  if (query.minRiskScore !== undefined)
    conditions.push(gte(tokens.currentRiskScore, query.minRiskScore));
  if (query.maxRiskScore !== undefined)
    conditions.push(lte(tokens.currentRiskScore, query.maxRiskScore));
  if (query.isHoneypot === true) conditions.push(eq(tokens.currentRiskLevel, 'honeypot'));
  if (query.isHoneypot === false)
    conditions.push(sql`${tokens.currentRiskLevel} is distinct from 'honeypot'`);
  if (query.minLiquidityUsd !== undefined)
    conditions.push(gte(tokens.currentLiquidityUsd, String(query.minLiquidityUsd)));
  // Spelled as the partial indexes' predicates (tokens_liquid_list_idx, tokens_traded_list_idx).
  if (query.hasLiquidity === true) conditions.push(sql`${tokens.currentLiquidityUsd} > 0`);
  if (query.hasLiquidity === false)
    conditions.push(sql`coalesce(${tokens.currentLiquidityUsd}, 0) = 0`);
  if (query.isActivelyTraded !== undefined)
    conditions.push(
      query.isActivelyTraded
        ? sql`${tokens.isActivelyTraded}`
        : sql`not ${tokens.isActivelyTraded}`,
    );
  const createdAt = sql`coalesce(${tokens.creationTimestamp}, ${tokens.detectedAt})`;
  if (query.createdAfter)
    conditions.push(sql`${createdAt} >= ${query.createdAfter.toISOString()}::timestamptz`);
  if (query.createdBefore)
    conditions.push(sql`${createdAt} < ${query.createdBefore.toISOString()}::timestamptz`);
  if (query.creator !== undefined) conditions.push(eq(tokens.creator, query.creator));
  if (query.q !== undefined && query.q !== '') {
    const pattern = `%${escapeLike(query.q)}%`;
    const textMatch = or(ilike(tokens.name, pattern), ilike(tokens.symbol, pattern));
    conditions.push(
      /^0x[0-9a-fA-F]*$/.test(query.q)
        ? or(textMatch, like(tokens.address, `${escapeLike(query.q.toLowerCase())}%`))
        : textMatch,
    );
  }
  // A row comparison: one range of the list indexes (detected_at desc, address desc).
  if (query.after)
    conditions.push(
      sql`(${tokens.detectedAt}, ${tokens.address}) < (${query.after.detectedAt}::timestamptz, ${query.after.address})`,
    );
  const present = conditions.filter((c): c is SQL => c !== undefined);
  return present.length === 0 ? undefined : and(...present);
}

/** The columns of a list item: the general list reads only these. */
const LIST_COLUMNS = {
  address: tokens.address,
  chainId: tokens.chainId,
  name: tokens.name,
  symbol: tokens.symbol,
  currentRiskScore: tokens.currentRiskScore,
  currentRiskLevel: tokens.currentRiskLevel,
  currentLiquidityUsd: tokens.currentLiquidityUsd,
  isActivelyTraded: tokens.isActivelyTraded,
  detectedAt: tokens.detectedAt,
};
export type TokenListRow = Pick<TokenRow, keyof typeof LIST_COLUMNS>;

/** The list item's columns and detected_at to the microsecond (a Date holds milliseconds): a cursor. */
const LIST_PAGE_COLUMNS = {
  ...LIST_COLUMNS,
  cursorAt: sql<string>`to_json(${tokens.detectedAt}) #>> '{}'`.as('cursor_at'),
};
export type TokenListPageRow = TokenListRow & { cursorAt: string };

/** The columns of a PRO list summary (its quality score and last update included). */
const SUMMARY_COLUMNS = {
  chainId: tokens.chainId,
  address: tokens.address,
  currentRiskScore: tokens.currentRiskScore,
  currentLiquidityUsd: tokens.currentLiquidityUsd,
  creationTxHash: tokens.creationTxHash,
  creationBlockNumber: tokens.creationBlockNumber,
  creationTimestamp: tokens.creationTimestamp,
  skeletonHash: tokens.skeletonHash,
  tradingSimulation: tokens.tradingSimulation,
  dexUpdatedAt: tokens.dexUpdatedAt,
  refreshTier: tokens.refreshTier,
  updatedAt: tokens.updatedAt,
  riskUpdatedAt: tokens.riskUpdatedAt,
};
export type TokenSummaryRow = Pick<TokenRow, keyof typeof SUMMARY_COLUMNS>;

/**
 * Totals are exact when the planner expects at most EXACT_TOTAL_LIMIT matching rows; above it,
 * the planner's estimate. An exact count of a million-row match costs a scan of a million index
 * entries on every page (over 100 ms), while the first page itself reads 20 entries.
 */
export const EXACT_TOTAL_LIMIT = 1_000;

/** Nulls (not yet scored, no liquidity) last in both directions; detection time and address break ties. */
function listOrder(query: TokenListQuery): SQL[] {
  const sort = query.sort ?? { field: 'detected_at', direction: 'desc' };
  const column = SORT_COLUMNS[sort.field];
  const primary =
    sort.direction === 'desc' ? sql`${column} desc nulls last` : sql`${column} asc nulls last`;
  // `nulls last` spelled out on the (non-null) tie-breakers too: the list indexes are built so,
  // and Postgres matches an index to an ORDER BY only when the null ordering agrees.
  const tiebreak =
    sort.direction === 'desc'
      ? [sql`${tokens.detectedAt} desc nulls last`, sql`${tokens.address} desc nulls last`]
      : [asc(tokens.detectedAt), asc(tokens.address)];
  return [primary, ...(sort.field === 'detected_at' ? tiebreak.slice(1) : tiebreak)];
}

const TOKEN_COLUMNS = Object.entries(getTableColumns(tokens));

/** A raw driver row (snake_case) as drizzle would map it: the same parsers, the same types. */
function fromDriverRow(raw: Record<string, unknown>): TokenRow {
  return Object.fromEntries(
    TOKEN_COLUMNS.map(([key, column]) => {
      const value = raw[column.name];
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
    }),
  ) as TokenRow;
}

/**
 * The planner's estimate first (one EXPLAIN, about a millisecond): above EXACT_TOTAL_LIMIT it
 * is the answer. Only a filter expected to match fewer rows is counted, and that count stops at
 * EXACT_TOTAL_LIMIT + 1 rows. A capped count of a filter that matches many scattered rows (a
 * chain, a risk level and some liquidity together) reads thousands of heap pages.
 */
async function total(db: Database, query: TokenListQuery): Promise<number> {
  // The whole filtered list, whichever page the cursor is on.
  const where = listConditions({ ...query, after: undefined });
  // EXPLAIN takes a statement, not a subquery: the builder's SQL with its parameters.
  const statement = db.select({ one: sql`1` }).from(tokens).where(where).getSQL();
  const plan = await db.execute<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    sql`explain (format json) ${statement}`,
  );
  const estimate = Math.round([...plan][0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  if (estimate > EXACT_TOTAL_LIMIT) return estimate;
  const capped = db
    .select({ one: sql`1` })
    .from(tokens)
    .where(where)
    .limit(EXACT_TOTAL_LIMIT + 1)
    .as('capped');
  const [row] = await db.select({ n: count() }).from(capped);
  const exact = row?.n ?? 0;
  return exact <= EXACT_TOTAL_LIMIT ? exact : Math.max(estimate, exact);
}

/** One page of a select from tokens: the list's filters, order, limit and offset. */
function pageOf<T extends PgSelect>(select: T, query: TokenListQuery) {
  return select
    .where(listConditions(query))
    .orderBy(...listOrder(query))
    .limit(query.limit + 1)
    .offset(query.after ? 0 : (query.offset ?? (query.page - 1) * query.limit));
}

export interface ListPage<Row> {
  items: Row[];
  total: number;
  /** Whether rows follow this page: read, never derived from `total`, which may be an estimate. */
  hasMore: boolean;
}

/** The page (one row more than asked, to know whether more follow) and the total, in parallel. */
async function pageAndTotal<Row>(
  db: Database,
  page: Promise<Row[]>,
  query: TokenListQuery,
): Promise<ListPage<Row>> {
  const [rows, n] = await Promise.all([page, total(db, query)]);
  const items = rows.slice(0, query.limit);
  const hasMore = rows.length > query.limit;
  const before = query.after ? 0 : (query.offset ?? (query.page - 1) * query.limit);
  // An estimate can fall short of the rows a page has just seen: never report fewer.
  const seen = items.length > 0 ? before + items.length + (hasMore ? 1 : 0) : 0;
  return { items, hasMore, total: Math.max(n, seen) };
}

/** The filtered, sorted token list: a page, a page of list items, or every match in batches. */
export function listQueries(db: Database) {
  return {
    /** The page, whether more follow, and the total (exact up to EXACT_TOTAL_LIMIT). */
    list(query: TokenListQuery): Promise<ListPage<TokenRow>> {
      return pageAndTotal(db, pageOf(db.select().from(tokens).$dynamic(), query), query);
    },

    /** The list with only the list-item columns: a third of the columns to read and map. */
    listItems(query: TokenListQuery): Promise<ListPage<TokenListPageRow>> {
      return pageAndTotal(
        db,
        pageOf(db.select(LIST_PAGE_COLUMNS).from(tokens).$dynamic(), query),
        query,
      );
    },

    /** The list with only what a PRO list summary shows. */
    listSummaries(query: TokenListQuery): Promise<ListPage<TokenSummaryRow>> {
      return pageAndTotal(
        db,
        pageOf(db.select(SUMMARY_COLUMNS).from(tokens).$dynamic(), query),
        query,
      );
    },

    /**
     * The filtered list in list order, in batches read from a server-side cursor: memory holds one
     * batch at a time however many rows match. The cursor's connection is held until the caller
     * stops iterating (or breaks out, which closes it).
     */
    async *listBatches(
      query: Omit<TokenListQuery, 'page' | 'limit' | 'offset'>,
      batchSize: number,
    ): AsyncGenerator<TokenRow[]> {
      const built = db
        .select()
        .from(tokens)
        .where(listConditions({ ...query, page: 1, limit: 0 }))
        .orderBy(...listOrder({ ...query, page: 1, limit: 0 }))
        .toSQL();
      const client = (db as unknown as { $client: Sql }).$client;
      for await (const batch of client
        .unsafe(built.sql, built.params as never[])
        .cursor(batchSize)) {
        yield batch.map(fromDriverRow);
      }
    },
  };
}
