import type { DexConfig } from '../config/chains.ts';
import type { PoolState } from './pool-state.ts';
import { toUnits, valuePool } from './pricing.ts';
import type { TokenChainState } from './reader.ts';
import { hasHook } from './v4/index.ts';

/**
 * From chain state to what the service stores and shows: per-pair valuations, dex_hints,
 * token price, liquidity, market cap, and security_hints.liquidity_lock.
 */

/** Below this much pooled value a pair is not worth trading through (dex_hints.is_tradable). */
export const MIN_TRADABLE_LIQUIDITY_USD = 100;
/** Rounding of USD figures in dex_hints and of percentages. */
const USD_DECIMALS = 2;
const PCT_DECIMALS = 2;

/** Where users buy a token, by DEX name prefix and chain; a DEX config's `buy_url` wins. */
const BUY_URLS: { prefix: string; url: (chainId: number, token: string) => string | null }[] = [
  {
    prefix: 'uniswap',
    url: (chainId, token) => {
      const slug = (
        { 1: 'mainnet', 137: 'polygon', 42161: 'arbitrum', 8453: 'base', 56: 'bnb' } as Record<
          number,
          string
        >
      )[chainId];
      return slug ? `https://app.uniswap.org/swap?chain=${slug}&outputCurrency=${token}` : null;
    },
  },
  {
    prefix: 'pancakeswap',
    url: (chainId, token) =>
      chainId === 56 ? `https://pancakeswap.finance/swap?chain=bsc&outputCurrency=${token}` : null,
  },
  {
    prefix: 'quickswap',
    url: (chainId, token) =>
      chainId === 137 ? `https://quickswap.exchange/#/swap?outputCurrency=${token}` : null,
  },
];

export function buyUrl(dex: DexConfig | undefined, chainId: number, token: string): string | null {
  if (!dex) return null;
  if (dex.buy_url) return dex.buy_url.replaceAll('{token}', token);
  return BUY_URLS.find((b) => dex.name.startsWith(b.prefix))?.url(chainId, token) ?? null;
}

export interface TradingPair {
  dex: string;
  /** The pool's address; a V4 pool has none and is named by its pool id. */
  pair_address: string;
  quote_token: string;
  liquidity_usd: number | null;
  price_usd: number | null;
  /** V4: the pool id (null for V2 and V3 pairs). */
  pool_id: string | null;
  /** V4: the pool's hook contract (null without one, and for V2 and V3 pairs). */
  hook_address: string | null;
}

export interface DexHints {
  is_tradable: boolean;
  has_liquidity: boolean;
  has_v3_liquidity: boolean;
  /** A Uniswap V4 pool holds liquidity (beside has_v3_liquidity, which keeps its meaning). */
  has_v4_liquidity: boolean;
  total_liquidity_usd: number | null;
  token_price_usd: number | null;
  buy_url: string | null;
  num_trading_pairs: number;
  main_trading_pair: string | null;
  trading_pairs: TradingPair[];
  recommended_dex: string | null;
  volume_24h_usd: number | null;
}

export interface LiquidityLock {
  /** Share of the V2 LP supply (weighted by pair liquidity) held by known lockers, in percent; null without V2 LP. */
  locked_pct: number | null;
  /** Share sent to the zero or dead address, in percent. */
  burned_pct: number | null;
  lockers: { name: string; address: string; pair_address: string; locked_pct: number }[];
}

export interface PairValuation {
  pool: PoolState;
  priceUsd: number | null;
  liquidityUsd: number | null;
  hasLiquidity: boolean;
  quoteAmount: number;
}

export interface TokenDexFigures {
  pairs: PairValuation[];
  priceUsd: number | null;
  liquidityUsd: number | null;
  marketCapUsd: number | null;
  hasLiquidity: boolean;
  mainPair: PairValuation | null;
}

const round = (n: number | null, digits: number) => (n === null ? null : Number(n.toFixed(digits)));
const pct = (part: bigint, whole: bigint) =>
  whole === 0n ? 0 : Number((part * 1_000_000n) / whole) / 10_000;

export function valueToken(
  token: string,
  state: TokenChainState,
  quoteUsd: ReadonlyMap<string, number>,
): TokenDexFigures {
  const baseDecimals = state.decimals.get(token) ?? 18;
  const pairs = state.pools.map((pool): PairValuation => {
    const v = valuePool(
      pool.ref,
      pool.reading,
      token,
      { base: baseDecimals, quote: state.decimals.get(pool.quote) ?? 18 },
      quoteUsd.get(pool.quote) ?? null,
    );
    return {
      pool,
      priceUsd: v.priceUsd,
      liquidityUsd: v.liquidityUsd,
      hasLiquidity: v.hasLiquidity,
      quoteAmount: v.quoteAmount,
    };
  });
  const live = pairs.filter((p) => p.hasLiquidity);
  // The deepest pair sets the price: it is where a trade of any size actually executes.
  const mainPair =
    live
      .filter((p) => p.liquidityUsd !== null && p.priceUsd !== null)
      .sort((a, b) => b.liquidityUsd! - a.liquidityUsd!)[0] ?? null;
  const priced = live.filter((p) => p.liquidityUsd !== null);
  const liquidityUsd =
    priced.length > 0
      ? priced.reduce((sum, p) => sum + p.liquidityUsd!, 0)
      : live.length > 0
        ? null
        : 0;
  const priceUsd = mainPair?.priceUsd ?? null;
  const circulating =
    state.totalSupply === null
      ? null
      : state.totalSupply -
        (state.burnedSupply > state.totalSupply ? state.totalSupply : state.burnedSupply);
  const marketCapUsd =
    priceUsd !== null && circulating !== null
      ? priceUsd * toUnits(circulating, baseDecimals)
      : null;
  return {
    pairs,
    priceUsd,
    liquidityUsd,
    marketCapUsd: Number.isFinite(marketCapUsd) ? marketCapUsd : null,
    hasLiquidity: live.length > 0,
    mainPair,
  };
}

export function dexHints(
  figures: TokenDexFigures,
  context: {
    chainId: number;
    token: string;
    dexes: readonly DexConfig[];
    volume24hUsd: number | null;
  },
): DexHints {
  const live = figures.pairs
    .filter((p) => p.hasLiquidity)
    .sort((a, b) => (b.liquidityUsd ?? -1) - (a.liquidityUsd ?? -1));
  const main = figures.mainPair ?? live[0] ?? null;
  const recommended = main?.pool.ref.dex ?? null;
  return {
    is_tradable: live.some((p) => (p.liquidityUsd ?? 0) >= MIN_TRADABLE_LIQUIDITY_USD),
    has_liquidity: figures.hasLiquidity,
    has_v3_liquidity: live.some((p) => p.pool.ref.kind === 'v3'),
    has_v4_liquidity: live.some((p) => p.pool.ref.kind === 'v4'),
    total_liquidity_usd: round(figures.liquidityUsd, USD_DECIMALS),
    token_price_usd: figures.priceUsd,
    buy_url: buyUrl(
      context.dexes.find((d) => d.name === recommended),
      context.chainId,
      context.token,
    ),
    num_trading_pairs: live.length,
    main_trading_pair: main?.pool.ref.address ?? null,
    trading_pairs: live.map((p) => ({
      dex: p.pool.ref.dex,
      pair_address: p.pool.ref.address,
      quote_token: p.pool.quote,
      liquidity_usd: round(p.liquidityUsd, USD_DECIMALS),
      price_usd: p.priceUsd,
      pool_id: p.pool.ref.kind === 'v4' ? p.pool.ref.address : null,
      hook_address: hasHook(p.pool.ref.v4?.hooks) ? p.pool.ref.v4!.hooks : null,
    })),
    recommended_dex: recommended,
    volume_24h_usd: round(context.volume24hUsd, USD_DECIMALS),
  };
}

/**
 * LP burned or held by known lockers, over the V2 pairs with liquidity, weighted by each pair's
 * USD liquidity (equal weights when none is priced). V3 positions are NFTs held per position; their
 * locks are not measured here.
 */
export function liquidityLock(figures: TokenDexFigures): LiquidityLock {
  const v2 = figures.pairs.filter((p) => p.hasLiquidity && p.pool.lp && p.pool.lp.totalSupply > 0n);
  if (v2.length === 0) return { locked_pct: null, burned_pct: null, lockers: [] };
  const weights = v2.map((p) => p.liquidityUsd ?? 0);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const w = (i: number) => (totalWeight > 0 ? weights[i]! / totalWeight : 1 / v2.length);
  let locked = 0;
  let burned = 0;
  const lockers: LiquidityLock['lockers'] = [];
  v2.forEach((p, i) => {
    const lp = p.pool.lp!;
    burned += w(i) * pct(lp.burned, lp.totalSupply);
    for (const l of lp.locked) {
      const share = pct(l.amount, lp.totalSupply);
      locked += w(i) * share;
      lockers.push({
        name: l.name,
        address: l.address,
        pair_address: p.pool.ref.address,
        locked_pct: share,
      });
    }
  });
  return {
    locked_pct: round(locked, PCT_DECIMALS),
    burned_pct: round(burned, PCT_DECIMALS),
    lockers,
  };
}
