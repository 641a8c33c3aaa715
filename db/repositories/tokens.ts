import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  ilike,
  inArray,
  isNull,
  like,
  lte,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { Sql } from 'postgres';
import { STAGE_ORDER, type Stage } from '../../workers/pipeline.ts';
import type { Database } from '../client.ts';
import { analyses, blockHashes, creators, pairs, type tokenHistory, tokens } from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';

export type TokenRow = typeof tokens.$inferSelect;
export type AnalysisRow = typeof analyses.$inferSelect;
export type HistoryRow = typeof tokenHistory.$inferSelect;
export type CreatorRow = typeof creators.$inferSelect;

export interface TokenKey {
  chainId: number;
  address: string;
}

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

export interface DetectedToken {
  chainId: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  /** Null when totalSupply() is routed by the dispatcher but reverted at first sight. */
  totalSupply: string | null;
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
  /** Not stored: checked against the scanner's record of the canonical chain. */
  creationBlockHash: string | null;
}

export type UpsertOutcome =
  | { status: 'recorded'; inserted: boolean; announced: boolean; row: TokenRow }
  /** The block left the canonical chain (a reorg): nothing was written. */
  | { status: 'orphaned' };

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * A write from a block that the scanner has since replaced is refused. The shared chain lock
 * orders this check against a reorg rollback, which holds the lock exclusively while it swaps
 * the block hashes and deletes what the orphaned blocks produced.
 */
async function isOrphaned(
  tx: Tx,
  chainId: number,
  blockNumber: number | null,
  blockHash: string | null,
): Promise<boolean> {
  if (blockNumber === null || blockHash === null) return false;
  await lockChainShared(tx, chainId);
  const [other] = await tx
    .select({ h: blockHashes.blockHash })
    .from(blockHashes)
    .where(and(eq(blockHashes.chainId, chainId), eq(blockHashes.blockNumber, blockNumber)));
  return other !== undefined && other.h !== blockHash;
}

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
  riskLevel?: string;
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
  const present = conditions.filter((c): c is SQL => c !== undefined);
  return present.length === 0 ? undefined : and(...present);
}

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

export const tokenKey = (k: TokenKey) => `${k.chainId}:${k.address}`;

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

/** SQL for `stage` advanced to `to` unless it is already there or beyond. */
export function advancedStage(to: Stage) {
  const order = sql.raw(`array[${STAGE_ORDER.map((s) => `'${s}'`).join(',')}]::text[]`);
  return sql`case when coalesce(array_position(${order}, ${tokens.stage}), 0) < array_position(${order}, ${to}::text) then ${to}::text else ${tokens.stage} end`;
}

/** Creation data fills gaps but never overwrites what an earlier sighting recorded. */
const keepFirst = (column: string) =>
  sql.raw(`coalesce("tokens"."${column}", excluded."${column}")`);

/**
 * Totals are exact when the planner expects at most EXACT_TOTAL_LIMIT matching rows; above it,
 * the planner's estimate. An exact count of a million-row match costs a scan of a million index
 * entries on every page (over 100 ms), while the first page itself reads 20 entries.
 */
export const EXACT_TOTAL_LIMIT = 10_000;

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

const HISTORY_COLUMNS = sql.raw(
  'bucket_at, risk_score, price_usd, liquidity_usd, volume_24h_usd, market_cap_usd',
);

/**
 * The tiers never overlap in what a reader sees: raw snapshots from `raw_from` on (the rollup
 * watermark or 24 h ago, whichever is earlier, so a lagging rollup hides nothing), 5 min rollups
 * below that down to 7 days ago, 1 h rollups below that. Without a watermark (no maintenance has
 * run) every raw snapshot is shown.
 */
export function historiesQuery(keys: readonly TokenKey[], limit: number): SQL {
  const values = sql.join(
    keys.map((k) => sql`(${k.chainId}::int, ${k.address}::text)`),
    sql`, `,
  );
  const tier = (
    table: string,
    range: SQL,
  ) => sql`(select ${HISTORY_COLUMNS} from ${sql.raw(table)} h
      where h.chain_id = k.chain_id and h.address = k.address and ${range} order by h.bucket_at desc limit ${limit})`;
  return sql`
    with cut as (
      select least(coalesce((select rolled_up_until from history_maintenance where name = 'rollup'), '-infinity'::timestamptz),
                   now() - interval '24 hours') as raw_from,
             now() - interval '7 days' as five_from
    )
    select k.chain_id, k.address, t.* from (values ${values}) as k(chain_id, address)
    cross join cut
    cross join lateral (
      select * from (
        ${tier('token_history', sql`h.bucket_at >= cut.raw_from`)}
        union all
        ${tier('token_history_5m', sql`h.bucket_at < cut.raw_from and h.bucket_at >= cut.five_from`)}
        union all
        ${tier('token_history_1h', sql`h.bucket_at < least(cut.raw_from, cut.five_from)`)}
      ) u order by u.bucket_at desc limit ${limit}
    ) t
    order by k.chain_id, k.address, t.bucket_at desc`;
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

export function createTokenRepository(db: Database) {
  /** The page and its total (exact up to EXACT_TOTAL_LIMIT, estimated above), in parallel. */
  /**
   * The planner's estimate first (one EXPLAIN, about a millisecond): above EXACT_TOTAL_LIMIT it
   * is the answer. Only a filter expected to match fewer rows is counted, and that count stops at
   * EXACT_TOTAL_LIMIT + 1 rows. A capped count of a filter that matches many scattered rows (a
   * chain, a risk level and some liquidity together) reads thousands of heap pages.
   */
  async function total(query: TokenListQuery): Promise<number> {
    const where = listConditions(query);
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

  return {
    /**
     * Idempotent: a second detection of the same token changes nothing but missing creation data.
     * The creator's token count moves only when the token row is new, in the same transaction.
     */
    async upsertDetected(token: DetectedToken): Promise<UpsertOutcome> {
      return db.transaction(async (tx) => {
        if (await isOrphaned(tx, token.chainId, token.creationBlockNumber, token.creationBlockHash))
          return { status: 'orphaned' as const };
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
        return {
          status: 'recorded' as const,
          inserted,
          announced: saved.announcedAt !== null,
          row: saved,
        };
      });
    },

    async markAnnounced(chainId: number, address: string): Promise<void> {
      await db
        .update(tokens)
        .set({ announcedAt: new Date() })
        .where(
          and(eq(tokens.chainId, chainId), eq(tokens.address, address), isNull(tokens.announcedAt)),
        );
    },

    async updateBytecode(
      chainId: number,
      address: string,
      facts: { bytecodeHash: string; codeLength: number; proxyLike: boolean },
    ) {
      await db
        .update(tokens)
        .set({ ...facts, stage: advancedStage('bytecode'), updatedAt: new Date() })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, address)));
    },

    async upsertPair(pair: DetectedPair): Promise<'recorded' | 'orphaned'> {
      return db.transaction(async (tx) => {
        if (await isOrphaned(tx, pair.chainId, pair.creationBlockNumber, pair.creationBlockHash))
          return 'orphaned';
        const { creationBlockHash: _checkedOnly, ...row } = pair;
        await tx.insert(pairs).values(row).onConflictDoNothing();
        return 'recorded';
      });
    },

    /** Which of these addresses are already recorded as a token or a pair. */
    async knownAddresses(chainId: number, addresses: string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const [t, p] = await Promise.all([
        db
          .select({ a: tokens.address })
          .from(tokens)
          .where(and(eq(tokens.chainId, chainId), inArray(tokens.address, addresses))),
        db
          .select({ a: pairs.address })
          .from(pairs)
          .where(and(eq(pairs.chainId, chainId), inArray(pairs.address, addresses))),
      ]);
      return new Set([...t, ...p].map((r) => r.a));
    },

    async get(chainId: number | undefined, address: string): Promise<TokenRow | undefined> {
      const where =
        chainId === undefined
          ? eq(tokens.address, address)
          : and(eq(tokens.chainId, chainId), eq(tokens.address, address));
      const [row] = await db
        .select()
        .from(tokens)
        .where(where)
        .orderBy(desc(tokens.detectedAt))
        .limit(1);
      return row;
    },

    /** The page and the total (exact up to EXACT_TOTAL_LIMIT), two queries in parallel. */
    async list(query: TokenListQuery): Promise<{ items: TokenRow[]; total: number }> {
      const [items, n] = await Promise.all([
        db
          .select()
          .from(tokens)
          .where(listConditions(query))
          .orderBy(...listOrder(query))
          .limit(query.limit)
          .offset(query.offset ?? (query.page - 1) * query.limit),
        total(query),
      ]);
      return { items, total: n };
    },

    /** The list with only the list-item columns: a third of the columns to read and map. */
    async listItems(query: TokenListQuery): Promise<{ items: TokenListRow[]; total: number }> {
      const [items, n] = await Promise.all([
        db
          .select(LIST_COLUMNS)
          .from(tokens)
          .where(listConditions(query))
          .orderBy(...listOrder(query))
          .limit(query.limit)
          .offset(query.offset ?? (query.page - 1) * query.limit),
        total(query),
      ]);
      return { items, total: n };
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
      const rows = await db.execute<Record<string, unknown>>(historiesQuery(keys, limit));
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

    /** A token submitted by a user (refresh or analyze of an unknown contract): no creation data. */
    async upsertSubmitted(token: {
      chainId: number;
      address: string;
      name: string | null;
      symbol: string | null;
      decimals: number | null;
      totalSupply: string | null;
    }) {
      const outcome = await this.upsertDetected({
        ...token,
        creationTxHash: null,
        creator: null,
        creatorIsContract: null,
        txOrigin: null,
        creationBlockNumber: null,
        creationBlockHash: null,
        creationTimestamp: null,
        creationGasUsed: null,
        detectionSource: 'submitted',
      });
      // Without a creation block there is nothing a reorg could orphan.
      if (outcome.status !== 'recorded') throw new Error('a submitted token cannot be orphaned');
      return outcome;
    },

    async countByChain(chainId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(tokens).where(eq(tokens.chainId, chainId));
      return row?.n ?? 0;
    },
  };
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;
