import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { DexKind } from '../../src/dex/pricing.ts';
import type { Database } from '../client.ts';
import { pairs, tokenHistory, tokenHistory1h, tokenHistory5m, tokens } from '../schema.ts';
import { isOrphaned } from './tokens.ts';

/** DEX state: pairs with their state and volume cursors, the token's DEX fields, refresh snapshots. */

export type PairRow = typeof pairs.$inferSelect;
export type TokenRow = typeof tokens.$inferSelect;

/** Integer digits that numeric(30,2) and numeric(40,18) hold (28 and 22); larger values are stored as null. */
const USD_INT_DIGITS = 28;
const PRICE_INT_DIGITS = 22;
const PRICE_SCALE = 18;

/** A double as a numeric literal that fits the column, or null (not finite, or too large). */
export function toNumeric(
  value: number | null | undefined,
  intDigits: number,
  scale: number,
): string | null {
  if (
    value === null ||
    value === undefined ||
    !Number.isFinite(value) ||
    Math.abs(value) >= 10 ** intDigits
  )
    return null;
  // toFixed keeps the column's scale exactly; tiny prices keep significant digits up to 18 decimals.
  return value.toFixed(scale);
}
/** A USD amount as the text of a Postgres numeric(30,2) column value. */
export const usdNumeric = (v: number | null | undefined) => toNumeric(v, USD_INT_DIGITS, 2);
/** A unit price as the text of a Postgres numeric(40,18) column value. */
export const priceNumeric = (v: number | null | undefined) =>
  toNumeric(v, PRICE_INT_DIGITS, PRICE_SCALE);

export interface PoolCreated {
  chainId: number;
  address: string;
  dex: string;
  factory: string;
  token0: string;
  token1: string;
  kind: DexKind;
  fee: number | null;
  /** V4 pool key fields (null for V2 and V3). */
  tickSpacing: number | null;
  hooks: string | null;
  creationBlockNumber: number;
  creationTxHash: string;
  /** With it, a pool from a block the chain no longer has is refused (a reorg raced the job). */
  creationBlockHash?: string;
}

export interface PairUpdate {
  chainId: number;
  address: string;
  dex: string;
  kind: DexKind;
  fee: number | null;
  token0: string;
  token1: string;
  quoteToken: string;
  reserve0: string;
  reserve1: string;
  sqrtPriceX96: string | null;
  liquidity: string | null;
  liquidityUsd: string | null;
  priceUsd: string | null;
  stateBlock: number;
  /** Volume: applied only if the stored cursor still equals `cursorBefore` (no other job scanned meanwhile). */
  volume: {
    cursorBefore: number | null;
    cursor: number;
    /** Where counting began; written by the first scan only. */
    fromAt: Date;
    buckets: Record<string, number>;
    volume24hUsd: string | null;
    lastSwapBlock: number | null;
    lastSwapAt: Date | null;
  };
}

export interface TokenDexUpdate {
  chainId: number;
  address: string;
  priceUsd: string | null;
  marketCapUsd: string | null;
  currentLiquidityUsd: string | null;
  /** Whether the token has liquidity now: the first time it does, initial_liquidity_at is set (once). */
  hasLiquidity: boolean;
  /** Written only while the stored value is null: the first liquidity ever observed in USD. */
  firstLiquidityUsd: string | null;
  volume24hUsd: string | null;
  lastTradeAt: Date | null;
  isActivelyTraded: boolean;
  dexHints: unknown;
  liquidityLock: unknown;
  refreshTier: string;
  nextRefreshAt: Date | null;
}

export interface Snapshot {
  chainId: number;
  address: string;
  bucketAt: Date;
  riskScore: number | null;
  priceUsd: string | null;
  liquidityUsd: string | null;
  volume24hUsd: string | null;
  marketCapUsd: string | null;
}

/** Raised when another job advanced a pair's volume cursor first; the job retries from the new cursor. */
export class VolumeCursorConflict extends Error {
  constructor(pair: string) {
    super(`volume cursor of ${pair} moved during the refresh`);
    this.name = 'VolumeCursorConflict';
  }
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * A pair's state (upserted) and its volume cursor, moved only from the cursor this refresh started
 * at: when another job moved it first, VolumeCursorConflict rolls the refresh back.
 */
async function savePair(tx: Tx, p: PairUpdate): Promise<void> {
  const state = {
    dex: p.dex,
    kind: p.kind,
    fee: p.fee,
    quoteToken: p.quoteToken,
    reserve0: p.reserve0,
    reserve1: p.reserve1,
    sqrtPriceX96: p.sqrtPriceX96,
    liquidity: p.liquidity,
    liquidityUsd: p.liquidityUsd,
    priceUsd: p.priceUsd,
    stateBlock: p.stateBlock,
    updatedAt: new Date(),
  };
  await tx
    .insert(pairs)
    .values({
      chainId: p.chainId,
      address: p.address,
      token0: p.token0,
      token1: p.token1,
      ...state,
    })
    .onConflictDoUpdate({ target: [pairs.chainId, pairs.address], set: state });
  const v = p.volume;
  const moved = await tx
    .update(pairs)
    .set({
      volumeCursorBlock: v.cursor,
      volumeBuckets: v.buckets,
      volume24hUsd: v.volume24hUsd,
      volumeFromAt: sql`coalesce(${pairs.volumeFromAt}, ${v.fromAt.toISOString()}::timestamptz)`,
      lastSwapBlock: sql`coalesce(${v.lastSwapBlock}::bigint, ${pairs.lastSwapBlock})`,
      lastSwapAt: sql`coalesce(${v.lastSwapAt?.toISOString() ?? null}::timestamptz, ${pairs.lastSwapAt})`,
    })
    .where(
      and(
        eq(pairs.chainId, p.chainId),
        eq(pairs.address, p.address),
        v.cursorBefore === null
          ? sql`${pairs.volumeCursorBlock} is null`
          : eq(pairs.volumeCursorBlock, v.cursorBefore),
      ),
    )
    .returning({ a: pairs.address });
  if (moved.length === 0) throw new VolumeCursorConflict(p.address);
}

/** The token's DEX fields; first liquidity and the last trade only ever move forward. */
async function saveTokenFigures(tx: Tx, t: TokenDexUpdate): Promise<void> {
  await tx
    .update(tokens)
    .set({
      priceUsd: t.priceUsd,
      marketCapUsd: t.marketCapUsd,
      currentLiquidityUsd: t.currentLiquidityUsd,
      initialLiquidityUsd: t.hasLiquidity
        ? sql`coalesce(${tokens.initialLiquidityUsd}, ${t.firstLiquidityUsd}::numeric)`
        : sql`${tokens.initialLiquidityUsd}`,
      initialLiquidityAt: t.hasLiquidity
        ? sql`coalesce(${tokens.initialLiquidityAt}, now())`
        : sql`${tokens.initialLiquidityAt}`,
      volume24hUsd: t.volume24hUsd,
      lastTradeAt: sql`greatest(${tokens.lastTradeAt}, ${t.lastTradeAt?.toISOString() ?? null}::timestamptz)`,
      isActivelyTraded: t.isActivelyTraded,
      dexHints: t.dexHints,
      liquidityLock: t.liquidityLock,
      refreshTier: t.refreshTier,
      nextRefreshAt: t.nextRefreshAt,
      dexUpdatedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(and(eq(tokens.chainId, t.chainId), eq(tokens.address, t.address)));
}

/** The bucket's snapshot: an upsert on chain, address and bucket, so a retried job rewrites it. */
async function saveSnapshot(tx: Tx, s: Snapshot): Promise<void> {
  await tx
    .insert(tokenHistory)
    .values(s)
    .onConflictDoUpdate({
      target: [tokenHistory.chainId, tokenHistory.address, tokenHistory.bucketAt],
      set: {
        riskScore: s.riskScore,
        priceUsd: s.priceUsd,
        liquidityUsd: s.liquidityUsd,
        volume24hUsd: s.volume24hUsd,
        marketCapUsd: s.marketCapUsd,
      },
    });
}

/** The token and pair reads of the dex stage and its scheduler. */
function dexReads(db: Database) {
  // Read on every analysis pass (the holders report, V4 candidates): prepared, one round trip.
  const pairsOfQuery = db
    .select()
    .from(pairs)
    .where(
      and(
        eq(pairs.chainId, sql.placeholder('chainId')),
        or(eq(pairs.token0, sql.placeholder('token')), eq(pairs.token1, sql.placeholder('token'))),
      ),
    )
    .prepare('pairs_of');
  return {
    async token(chainId: number, address: string): Promise<TokenRow | undefined> {
      const [row] = await db
        .select()
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, address)));
      return row;
    },

    async pairsOf(chainId: number, token: string): Promise<PairRow[]> {
      return pairsOfQuery.execute({ chainId, token });
    },

    /**
     * The tokens of these recorded pools (addresses; V4: pool ids) that had no liquidity at their
     * last refresh, or have had no refresh yet: V2 reserves, V3 and V4 in-range liquidity.
     */
    async unfundedPoolTokens(chainId: number, addresses: string[]): Promise<string[]> {
      if (addresses.length === 0) return [];
      const empty = (column: typeof pairs.liquidity) => or(isNull(column), eq(column, '0'));
      const rows = await db
        .select({ token0: pairs.token0, token1: pairs.token1 })
        .from(pairs)
        .where(
          and(
            eq(pairs.chainId, chainId),
            inArray(pairs.address, addresses),
            or(
              and(eq(pairs.kind, 'v2'), or(empty(pairs.reserve0), empty(pairs.reserve1))),
              and(inArray(pairs.kind, ['v3', 'v4']), empty(pairs.liquidity)),
            ),
          ),
        );
      return rows.flatMap((r) => [r.token0, r.token1]);
    },

    /** Which of these pool addresses (V4: pool ids) are recorded. */
    async recordedPools(chainId: number, addresses: string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const rows = await db
        .select({ a: pairs.address })
        .from(pairs)
        .where(and(eq(pairs.chainId, chainId), inArray(pairs.address, addresses)));
      return new Set(rows.map((r) => r.a));
    },

    /** Which of these addresses are recorded tokens. */
    async knownTokens(chainId: number, addresses: string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const rows = await db
        .select({ a: tokens.address })
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), inArray(tokens.address, addresses)));
      return new Set(rows.map((r) => r.a));
    },

    /**
     * Tokens due for a refresh by `until`, on the given chains, in (chain, address) order after
     * `after` (keyset pagination: the fan-out reads any number of tokens in bounded pages).
     */
    async dueTokens(
      chainIds: number[],
      until: Date,
      limit: number,
      after?: { chainId: number; address: string },
    ) {
      if (chainIds.length === 0) return [];
      const page = after
        ? or(
            gt(tokens.chainId, after.chainId),
            and(eq(tokens.chainId, after.chainId), gt(tokens.address, after.address)),
          )
        : undefined;
      return db
        .select({ chainId: tokens.chainId, address: tokens.address })
        .from(tokens)
        .where(
          and(
            isNotNull(tokens.nextRefreshAt),
            lte(tokens.nextRefreshAt, until),
            inArray(tokens.chainId, chainIds),
            page,
          ),
        )
        .orderBy(asc(tokens.chainId), asc(tokens.address))
        .limit(limit);
    },
  };
}

/** Pools from factory events, and one refresh's writes. */
function dexWrites(db: Database) {
  return {
    /**
     * A pair seen through its factory's PairCreated/PoolCreated event (or a V4 PoolManager's
     * Initialize); fills what an LP probe left open. Refused when its block was orphaned.
     */
    async recordPoolCreated(pair: PoolCreated): Promise<'recorded' | 'orphaned'> {
      const { creationBlockHash, ...row } = pair;
      return db.transaction(async (tx) => {
        if (await isOrphaned(tx, row.chainId, row.creationBlockNumber, creationBlockHash ?? null))
          return 'orphaned';
        await tx
          .insert(pairs)
          .values(row)
          .onConflictDoUpdate({
            target: [pairs.chainId, pairs.address],
            set: {
              kind: sql`coalesce(${pairs.kind}, excluded.kind)`,
              fee: sql`coalesce(${pairs.fee}, excluded.fee)`,
              tickSpacing: sql`coalesce(${pairs.tickSpacing}, excluded.tick_spacing)`,
              hooks: sql`coalesce(${pairs.hooks}, excluded.hooks)`,
              factory: sql`coalesce(${pairs.factory}, excluded.factory)`,
              creationBlockNumber: sql`coalesce(${pairs.creationBlockNumber}, excluded.creation_block_number)`,
              creationTxHash: sql`coalesce(${pairs.creationTxHash}, excluded.creation_tx_hash)`,
            },
          });
        return 'recorded';
      });
    },

    /**
     * One refresh, in one transaction: pair states and volume cursors, the token's DEX fields,
     * and the bucket's snapshot (an upsert on chain, address and bucket: a retried job rewrites it,
     * never duplicates it).
     */
    async saveRefresh(update: {
      token: TokenDexUpdate;
      pairs: PairUpdate[];
      snapshot: Snapshot;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        for (const p of update.pairs) await savePair(tx, p);
        await saveTokenFigures(tx, update.token);
        await saveSnapshot(tx, update.snapshot);
      });
    },
  };
}

/** The token's snapshots in token_history and its rollups. */
function dexHistory(db: Database) {
  return {
    /**
     * The newest snapshot before `bucketAt` (the previous refresh's figures): a raw snapshot, or
     * for a token refreshed less often than raw snapshots are kept, the newest rollup.
     */
    async previousSnapshot(chainId: number, address: string, bucketAt: Date) {
      for (const table of [tokenHistory, tokenHistory5m, tokenHistory1h]) {
        const [row] = await db
          .select()
          .from(table)
          .where(
            and(
              eq(table.chainId, chainId),
              eq(table.address, address),
              lt(table.bucketAt, bucketAt),
            ),
          )
          .orderBy(desc(table.bucketAt))
          .limit(1);
        if (row) return row;
      }
      return undefined;
    },

    async history(chainId: number, address: string) {
      return db
        .select()
        .from(tokenHistory)
        .where(and(eq(tokenHistory.chainId, chainId), eq(tokenHistory.address, address)))
        .orderBy(asc(tokenHistory.bucketAt));
    },
  };
}

export function createDexRepository(db: Database) {
  return { ...dexReads(db), ...dexWrites(db), ...dexHistory(db) };
}

export type DexRepository = ReturnType<typeof createDexRepository>;
