/**
 * Pricing from pool state. Amounts are uint256 on chain; USD figures are doubles (a relative error
 * of about 1e-16, far below what a USD figure needs). A pool is priced against its quote token
 * (wrapped native or a stablecoin), whose USD price comes from its own stablecoin pool.
 */

export type DexKind = 'v2' | 'v3' | 'v4';

/** A pool as discovered: which DEX, which tokens (token0 < token1, as the factories sort them). */
export interface PoolRef {
  dex: string;
  kind: DexKind;
  address: string;
  token0: string;
  token1: string;
  /** V3 fee tier (hundredths of a basis point); V4 LP fee; null for V2. */
  fee: number | null;
  /** V4: the PoolManager holding the pool (`address` is then the pool id), and the key's rest. */
  v4?: { poolManager: string; tickSpacing: number; hooks: string };
}

/** What was read from a pool at one block. */
export interface PoolReading {
  /** V2 reserves, V3 token balances held by the pool, V4 virtual reserves of its in-range liquidity. */
  amount0: bigint;
  amount1: bigint;
  /** V3 and V4: current sqrt(price) as Q64.96 and in-range liquidity. */
  sqrtPriceX96?: bigint;
  liquidity?: bigint;
}

export interface PoolValuation {
  /** Base token price in quote tokens; null when the pool cannot price it (empty, or V3 without in-range liquidity). */
  priceInQuote: number | null;
  priceUsd: number | null;
  /** Both sides valued in USD; null when the quote token has no USD price. */
  liquidityUsd: number | null;
  /** Base and quote amounts in whole tokens. */
  baseAmount: number;
  quoteAmount: number;
  hasLiquidity: boolean;
}

const Q96 = 2 ** 96;

/** A raw token amount in whole tokens. */
export function toUnits(raw: bigint, decimals: number): number {
  return Number(raw) / 10 ** decimals;
}

/** V2: token1 per token0 from the reserves, in whole tokens. */
export function v2Price1Per0(
  reserve0: bigint,
  reserve1: bigint,
  decimals0: number,
  decimals1: number,
): number | null {
  if (reserve0 === 0n || reserve1 === 0n) return null;
  return toUnits(reserve1, decimals1) / toUnits(reserve0, decimals0);
}

/** V3: token1 per token0 from sqrtPriceX96 = sqrt(raw1/raw0) · 2^96, in whole tokens. */
export function v3Price1Per0(
  sqrtPriceX96: bigint,
  decimals0: number,
  decimals1: number,
): number | null {
  if (sqrtPriceX96 === 0n) return null;
  const sqrt = Number(sqrtPriceX96) / Q96;
  return sqrt * sqrt * 10 ** (decimals0 - decimals1);
}

/**
 * Values a pool for `base` against its other token. Liquidity counts both sides: the base side at
 * the pool's own price, the quote side at the quote's USD price (for V2 that is twice the quote side).
 */
export function valuePool(
  pool: PoolRef,
  reading: PoolReading,
  base: string,
  decimals: { base: number; quote: number },
  quoteUsd: number | null,
): PoolValuation {
  const baseIs0 = pool.token0 === base;
  const rawBase = baseIs0 ? reading.amount0 : reading.amount1;
  const rawQuote = baseIs0 ? reading.amount1 : reading.amount0;
  const baseAmount = toUnits(rawBase, decimals.base);
  const quoteAmount = toUnits(rawQuote, decimals.quote);
  const [d0, d1] = baseIs0 ? [decimals.base, decimals.quote] : [decimals.quote, decimals.base];

  let price1Per0: number | null;
  let hasLiquidity: boolean;
  if (pool.kind === 'v2') {
    price1Per0 = v2Price1Per0(reading.amount0, reading.amount1, d0, d1);
    hasLiquidity = reading.amount0 > 0n && reading.amount1 > 0n;
  } else {
    // A V3 or V4 pool without in-range liquidity has a price nobody can trade at.
    hasLiquidity = (reading.liquidity ?? 0n) > 0n && (reading.amount0 > 0n || reading.amount1 > 0n);
    price1Per0 = hasLiquidity ? v3Price1Per0(reading.sqrtPriceX96 ?? 0n, d0, d1) : null;
  }
  const priceInQuote =
    price1Per0 === null || price1Per0 === 0 ? null : baseIs0 ? price1Per0 : 1 / price1Per0;
  const priceUsd = priceInQuote !== null && quoteUsd !== null ? priceInQuote * quoteUsd : null;
  const liquidityUsd =
    quoteUsd === null || !hasLiquidity
      ? hasLiquidity
        ? null
        : 0
      : quoteAmount * quoteUsd + (priceUsd === null ? 0 : baseAmount * priceUsd);
  return {
    priceInQuote,
    priceUsd: isFiniteOrNull(priceUsd),
    liquidityUsd: isFiniteOrNull(liquidityUsd),
    baseAmount,
    quoteAmount,
    hasLiquidity,
  };
}

export function isFiniteOrNull(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

/** Relative change from `before` to `after` (0.1 = 10 %); Infinity from zero to something, 0 when both are zero. */
export function relativeChange(before: number, after: number): number {
  if (before === 0) return after === 0 ? 0 : Number.POSITIVE_INFINITY;
  return Math.abs(after - before) / Math.abs(before);
}
