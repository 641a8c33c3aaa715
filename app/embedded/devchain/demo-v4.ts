// The demo launcher's Uniswap V4 launches: a token's liquidity goes into a native-currency V4
// pool, without a hook, with a fair fee hook, or with a hook that lets only the creator sell.
import type { NonceManager } from 'ethers';
import { HOOK_FLAGS, NO_HOOK, poolId, type V4PoolKey } from '../../../src/dex/v4/index.ts';
import {
  addLiquidityV4,
  deployHook,
  fullRangeLiquidity,
  initializePool,
  poolKeyOf,
  sqrtPriceX96Of,
  swapV4,
  type UniswapV4Deployment,
} from './uniswap-v4.ts';

/** Which V4 pool a launch gets: what a monitor must tell apart. */
export const V4_VENUES = ['v4-plain', 'v4-fee-hook', 'v4-sell-gate'] as const;
export type V4Venue = (typeof V4_VENUES)[number];

const FEE = 3000;
const TICK_SPACING = 60;
/** The fair hook's cut of every swap's output. */
const FEE_HOOK_BPS = 200n;
/** Native currency sent beyond the position's amount (the router refunds the rest). */
const NATIVE_MARGIN_DIVISOR = 50n;

export interface V4Launch {
  venue: V4Venue;
  poolId: string;
  key: V4PoolKey;
  /** The hook contract, or null for a pool without one. */
  hook: string | null;
}

async function hookFor(
  signer: NonceManager,
  v4: UniswapV4Deployment,
  venue: V4Venue,
  token: string,
  creator: string,
): Promise<string> {
  if (venue === 'v4-fee-hook')
    return deployHook(
      signer,
      'FeeHook',
      [v4.poolManager, creator, FEE_HOOK_BPS],
      HOOK_FLAGS.afterSwap | HOOK_FLAGS.afterSwapReturnDelta,
    );
  if (venue === 'v4-sell-gate')
    return deployHook(
      signer,
      'SellGateHook',
      [v4.poolManager, token, creator],
      HOOK_FLAGS.beforeSwap,
    );
  return NO_HOOK;
}

/**
 * Pools `tokens` of `token` (held by the signer, a little more than that for rounding) with `eth`
 * native currency in a new V4 pool of the venue's kind (full range), then buys `buyEth` worth
 * when asked.
 */
export async function launchIntoV4(
  signer: NonceManager,
  v4: UniswapV4Deployment,
  input: { token: string; venue: V4Venue; eth: bigint; tokens: bigint; buyEth: bigint | null },
): Promise<V4Launch> {
  const creator = (await signer.getAddress()).toLowerCase();
  const token = input.token.toLowerCase();
  const hook = await hookFor(signer, v4, input.venue, token, creator);
  const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING, hook);
  // Native currency (the zero address) is always currency0: price = tokens per native unit.
  await initializePool(signer, v4, key, sqrtPriceX96Of(input.eth, input.tokens));
  await addLiquidityV4(
    signer,
    v4,
    key,
    fullRangeLiquidity(input.eth, input.tokens),
    input.eth + input.eth / NATIVE_MARGIN_DIVISOR,
  );
  if (input.buyEth !== null) await swapV4(signer, v4, key, true, input.buyEth);
  return { venue: input.venue, poolId: poolId(key), key, hook: hook === NO_HOOK ? null : hook };
}
