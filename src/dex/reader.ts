import { type DexConfig, type LockerConfig, UNISWAP_V3_FEES } from '../config/chains.ts';
import type { CallBatcher, ContractCall } from '../evm/multicall.ts';
import { type RpcOutcome, toQuantity } from '../evm/rpc.ts';
import { addressWord, calls, DEAD_ADDRESS, word, ZERO_ADDRESS } from './abi.ts';
import { type PoolState, readPoolStates } from './pool-state.ts';
import { type PoolRef, valuePool } from './pricing.ts';

/**
 * Reads a token's DEX state from the chain in two batched rounds at one block: (1) pool discovery
 * (V2 getPair, V3 getPool across fee tiers, against wrapped native and each stablecoin) with the
 * token's supply; (2) each pool's state (reserves, or slot0 + liquidity + balances, or a V4
 * pool's extsload) and, for V2, where its LP tokens are (burned, or held by known lockers). V4
 * pools come from the known pools (recorded from Initialize events). With Multicall3 each round
 * is one eth_call.
 */

/** The wrapped native token's USD price is re-read at most this often per chain and process. */
const NATIVE_PRICE_TTL_MS = 30_000;
/** A stablecoin is taken at 1 USD. */
const STABLECOIN_USD = 1;
/** Native currency as V4 pools hold it. */
const NATIVE = ZERO_ADDRESS;
const NATIVE_DECIMALS = 18;

export interface DexChain {
  chainId: number;
  wrappedNative: string;
  stablecoins: readonly string[];
  dexes: readonly DexConfig[];
  lockers: readonly LockerConfig[];
}

export interface TokenChainState {
  blockNumber: number;
  totalSupply: bigint | null;
  /** Token supply sitting at address(0) or the dead address (excluded from market cap). */
  burnedSupply: bigint;
  pools: PoolState[];
  decimals: ReadonlyMap<string, number>;
}

const sortPair = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

/**
 * The discovery calls for `token` and the pool each call would name. V4 pools cannot be asked for
 * (their key includes a hook): they are known from the PoolManager's Initialize events.
 */
export function discoveryCalls(
  chain: DexChain,
  token: string,
): { call: ContractCall; ref: Omit<PoolRef, 'address'> }[] {
  const quotes = [chain.wrappedNative, ...chain.stablecoins].filter((q) => q !== token);
  const out: { call: ContractCall; ref: Omit<PoolRef, 'address'> }[] = [];
  for (const dex of chain.dexes) {
    for (const quote of quotes) {
      const [token0, token1] = sortPair(token, quote);
      if (dex.kind === 'v2') {
        out.push({
          call: calls.getPair(dex.factory, token, quote),
          ref: { dex: dex.name, kind: 'v2', token0, token1, fee: null },
        });
      } else if (dex.kind === 'v3') {
        for (const fee of dex.fee_tiers ?? UNISWAP_V3_FEES) {
          out.push({
            call: calls.getPool(dex.factory, token, quote, fee),
            ref: { dex: dex.name, kind: 'v3', token0, token1, fee },
          });
        }
      }
    }
  }
  return out;
}

/** The pools the discovery answers name (a zero address: no such pool). */
function discovered(
  discovery: { ref: Omit<PoolRef, 'address'> }[],
  answers: readonly RpcOutcome<string>[],
): PoolRef[] {
  const found: PoolRef[] = [];
  for (const [i, d] of discovery.entries()) {
    const address = addressWord(answers[i]);
    if (address) found.push({ ...d.ref, address });
  }
  return found;
}

/** The discovered pools, plus the known pools of `token` against a quote token we can price. */
function poolsToRead(
  token: string,
  found: readonly PoolRef[],
  knownPools: readonly PoolRef[],
  quotes: ReadonlySet<string>,
): PoolRef[] {
  const pools = new Map(found.map((p) => [p.address, p]));
  for (const p of knownPools) {
    const other = p.token0 === token ? p.token1 : p.token0;
    // Pairs against tokens we cannot price (neither wrapped native nor a stablecoin) are left out.
    if (!pools.has(p.address) && quotes.has(other) && (p.token0 === token || p.token1 === token))
      pools.set(p.address, p);
  }
  return [...pools.values()];
}

/** The wrapped native token's USD price from its pools against stablecoins, or null without one. */
function deepestStablecoinPrice(
  chain: DexChain,
  states: readonly PoolState[],
  dec: ReadonlyMap<string, number>,
): number | null {
  let best: { depth: number; price: number } | null = null;
  for (const s of states) {
    if (!chain.stablecoins.includes(s.quote)) continue;
    const v = valuePool(
      s.ref,
      s.reading,
      chain.wrappedNative,
      { base: dec.get(chain.wrappedNative)!, quote: dec.get(s.quote)! },
      STABLECOIN_USD,
    );
    // The deepest pool sets the price: shallow pools are cheap to push around.
    if (v.priceUsd !== null && v.hasLiquidity && (!best || v.quoteAmount > best.depth))
      best = { depth: v.quoteAmount, price: v.priceUsd };
  }
  return best?.price ?? null;
}

export interface DexReader {
  /** The token's pools (discovered, plus `knownPools`) and their state at `blockNumber`. */
  readToken(
    token: string,
    blockNumber: number,
    knownPools?: readonly PoolRef[],
  ): Promise<TokenChainState>;
  /** USD price of each quote token at `blockNumber` (stablecoins 1; wrapped native from its deepest stablecoin pool). */
  quotePrices(blockNumber: number): Promise<Map<string, number>>;
  /** Token decimals, cached: quote tokens' decimals never change. */
  decimals(tokens: readonly string[], blockNumber: number): Promise<Map<string, number>>;
}

export function createDexReader(chain: DexChain, batcher: CallBatcher): DexReader {
  // Native currency (the zero address in V4 pools) is priced as wrapped native.
  const quotes = new Set([NATIVE, chain.wrappedNative, ...chain.stablecoins]);
  const decimalsCache = new Map<string, number>([[NATIVE, NATIVE_DECIMALS]]);
  let native: { at: number; usd: number | null } | undefined;

  // A token without decimals() is read as 18, the ERC-20 convention.
  const rememberDecimals = (token: string, d: bigint | null) =>
    decimalsCache.set(token, d !== null && d <= 77n ? Number(d) : 18);

  async function decimals(
    tokens: readonly string[],
    blockNumber: number,
  ): Promise<Map<string, number>> {
    const missing = [...new Set(tokens)].filter((t) => !decimalsCache.has(t));
    if (missing.length > 0) {
      const outcomes = await batcher.call(
        missing.map((t) => calls.decimals(t)),
        toQuantity(blockNumber),
      );
      for (const [i, t] of missing.entries()) rememberDecimals(t, word(outcomes[i]));
    }
    return new Map(tokens.map((t) => [t, decimalsCache.get(t)!]));
  }

  async function discoverAndRead(
    token: string,
    blockNumber: number,
    knownPools: readonly PoolRef[],
    extra: ContractCall[],
  ) {
    const discovery = discoveryCalls(chain, token);
    const round1 = await batcher.call(
      [...discovery.map((d) => d.call), ...extra],
      toQuantity(blockNumber),
    );
    const pools = poolsToRead(token, discovered(discovery, round1), knownPools, quotes);
    const states = await readPoolStates(
      batcher,
      token,
      pools,
      chain.lockers,
      toQuantity(blockNumber),
    );
    return { states, extra: round1.slice(discovery.length) };
  }

  async function nativeUsd(blockNumber: number): Promise<number | null> {
    if (native && Date.now() - native.at < NATIVE_PRICE_TTL_MS) return native.usd;
    if (chain.stablecoins.length === 0) return null;
    const { states } = await discoverAndRead(chain.wrappedNative, blockNumber, [], []);
    const dec = await decimals([chain.wrappedNative, ...states.map((s) => s.quote)], blockNumber);
    native = { at: Date.now(), usd: deepestStablecoinPrice(chain, states, dec) };
    return native.usd;
  }

  return {
    decimals,
    async quotePrices(blockNumber) {
      const prices = new Map<string, number>(chain.stablecoins.map((s) => [s, STABLECOIN_USD]));
      const usd = await nativeUsd(blockNumber);
      if (usd !== null) prices.set(chain.wrappedNative, usd).set(NATIVE, usd);
      return prices;
    },
    async readToken(token, blockNumber, knownPools = []) {
      // Decimals not yet cached ride along in the first round instead of costing a round of their own.
      const unknownDecimals = [token, ...quotes].filter((t) => !decimalsCache.has(t));
      const extra = [
        calls.totalSupply(token),
        calls.balanceOf(token, ZERO_ADDRESS),
        calls.balanceOf(token, DEAD_ADDRESS),
        ...unknownDecimals.map((t) => calls.decimals(t)),
      ];
      const { states, extra: answers } = await discoverAndRead(
        token,
        blockNumber,
        knownPools,
        extra,
      );
      for (const [i, t] of unknownDecimals.entries()) rememberDecimals(t, word(answers[3 + i]));
      const dec = await decimals([token, ...states.map((s) => s.quote)], blockNumber);
      return {
        blockNumber,
        totalSupply: word(answers[0]),
        burnedSupply: (word(answers[1]) ?? 0n) + (word(answers[2]) ?? 0n),
        pools: states,
        decimals: dec,
      };
    },
  };
}
