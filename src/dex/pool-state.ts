import type { LockerConfig } from '../config/chains.ts';
import type { CallBatcher, ContractCall } from '../evm/multicall.ts';
import type { RpcOutcome } from '../evm/rpc.ts';
import { calls, DEAD_ADDRESS, word, ZERO_ADDRESS } from './abi.ts';
import type { PoolReading, PoolRef } from './pricing.ts';
import { decodePoolState, poolStateCall, virtualReserves } from './v4/index.ts';

/**
 * A pool's state at one block, as the DEX reader's second round reads it: V2 reserves and where
 * the pool's LP tokens are (burned, or held by known lockers); V3 slot0, liquidity and the pool's
 * balances of its two tokens; V4 slot0 and liquidity from the PoolManager's storage (one extsload,
 * as StateLibrary reads them). Each pool's calls are laid out in a fixed order, and its answers
 * are read back in that order.
 */

/** Uniswap V2 mints this much LP to address(0) on a pool's first deposit: locked by design, not "burned" by anyone. */
export const V2_MINIMUM_LIQUIDITY = 1000n;

export interface LpHolding {
  totalSupply: bigint;
  /** LP at address(0) beyond the minimum liquidity, plus LP at the dead address. */
  burned: bigint;
  locked: { name: string; address: string; amount: bigint }[];
}

export interface PoolState {
  ref: PoolRef;
  quote: string;
  reading: PoolReading;
  lp: LpHolding | null;
}

/** V2: reserves, LP supply, LP at address(0), at the dead address, then at each locker. */
const V2_LOCKER_OFFSET = 4;

function poolCalls(pool: PoolRef, lockers: readonly LockerConfig[]): ContractCall[] {
  if (pool.kind === 'v2') {
    return [
      calls.getReserves(pool.address),
      calls.totalSupply(pool.address),
      calls.balanceOf(pool.address, ZERO_ADDRESS),
      calls.balanceOf(pool.address, DEAD_ADDRESS),
      ...lockers.map((l) => calls.balanceOf(pool.address, l.address)),
    ];
  }
  if (pool.kind === 'v4') return pool.v4 ? [poolStateCall(pool.v4.poolManager, pool.address)] : [];
  return [
    calls.slot0(pool.address),
    calls.liquidity(pool.address),
    calls.balanceOf(pool.token0, pool.address),
    calls.balanceOf(pool.token1, pool.address),
  ];
}

function lpHolding(
  outcomes: RpcOutcome<string>[],
  lockers: readonly LockerConfig[],
): LpHolding | null {
  const totalSupply = word(outcomes[1]);
  if (totalSupply === null) return null;
  const atZero = word(outcomes[2]) ?? 0n;
  const atDead = word(outcomes[3]) ?? 0n;
  const burned = (atZero > V2_MINIMUM_LIQUIDITY ? atZero - V2_MINIMUM_LIQUIDITY : 0n) + atDead;
  const locked = lockers
    .map((l, i) => ({
      name: l.name,
      address: l.address,
      amount: word(outcomes[V2_LOCKER_OFFSET + i]) ?? 0n,
    }))
    .filter((l) => l.amount > 0n);
  return { totalSupply, burned, locked };
}

/** The pool's state from its answers, or null when the pool did not answer its core reads. */
function interpretPool(
  pool: PoolRef,
  quote: string,
  outcomes: RpcOutcome<string>[],
  lockers: readonly LockerConfig[],
): PoolState | null {
  if (pool.kind === 'v2') {
    const reserve0 = word(outcomes[0], 0);
    const reserve1 = word(outcomes[0], 1);
    if (reserve0 === null || reserve1 === null) return null;
    const reading = { amount0: reserve0, amount1: reserve1 };
    return { ref: pool, quote, reading, lp: lpHolding(outcomes, lockers) };
  }
  if (pool.kind === 'v4') {
    // A pool the manager does not know reads as zeros: no price, no liquidity (never an error).
    const v4 = decodePoolState(outcomes[0]);
    if (!v4) return null;
    const reserves = virtualReserves(v4.sqrtPriceX96, v4.liquidity);
    return {
      ref: pool,
      quote,
      lp: null,
      reading: { ...reserves, sqrtPriceX96: v4.sqrtPriceX96, liquidity: v4.liquidity },
    };
  }
  const sqrtPriceX96 = word(outcomes[0], 0);
  const liquidity = word(outcomes[1]);
  if (sqrtPriceX96 === null || liquidity === null) return null;
  return {
    ref: pool,
    quote,
    lp: null,
    reading: {
      amount0: word(outcomes[2]) ?? 0n,
      amount1: word(outcomes[3]) ?? 0n,
      sqrtPriceX96,
      liquidity,
    },
  };
}

/**
 * Reads the state of `token`'s `pools` at `blockTag` in one batch. Lockers hold V2 LP only (V3
 * positions are NFTs). Pools that do not answer are left out.
 */
export async function readPoolStates(
  batcher: CallBatcher,
  token: string,
  pools: readonly PoolRef[],
  lockers: readonly LockerConfig[],
  blockTag: string,
): Promise<PoolState[]> {
  const lockersOf = (p: PoolRef) => (p.kind === 'v2' ? lockers : []);
  const perPool = pools.map((p) => poolCalls(p, lockersOf(p)));
  const answers = await batcher.call(perPool.flat(), blockTag);
  const states: PoolState[] = [];
  let offset = 0;
  for (const [i, pool] of pools.entries()) {
    const count = perPool[i]!.length;
    const quote = pool.token0 === token ? pool.token1 : pool.token0;
    const state = interpretPool(
      pool,
      quote,
      answers.slice(offset, offset + count),
      lockersOf(pool),
    );
    offset += count;
    if (state) states.push(state);
  }
  return states;
}
