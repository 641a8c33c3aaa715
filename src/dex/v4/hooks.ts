import { id } from 'ethers';

/**
 * Uniswap V4 hook permissions. A hook's address says which callbacks the PoolManager makes: each
 * of its low 14 bits is one permission (v4-core's Hooks.sol), so a hook cannot add a callback
 * after deployment without moving to another address, and a pool's key names its hook for good.
 */

/** The permission bits, as v4-core's Hooks library numbers them (bit 13 down to bit 0). */
export const HOOK_FLAGS = {
  beforeInitialize: 1 << 13,
  afterInitialize: 1 << 12,
  beforeAddLiquidity: 1 << 11,
  afterAddLiquidity: 1 << 10,
  beforeRemoveLiquidity: 1 << 9,
  afterRemoveLiquidity: 1 << 8,
  beforeSwap: 1 << 7,
  afterSwap: 1 << 6,
  beforeDonate: 1 << 5,
  afterDonate: 1 << 4,
  beforeSwapReturnDelta: 1 << 3,
  afterSwapReturnDelta: 1 << 2,
  afterAddLiquidityReturnDelta: 1 << 1,
  afterRemoveLiquidityReturnDelta: 1 << 0,
} as const;

export type HookPermission = keyof typeof HOOK_FLAGS;

export const ALL_HOOK_MASK = (1 << 14) - 1;
/** LPFeeLibrary.DYNAMIC_FEE_FLAG: the pool's fee is set by its hook. */
export const DYNAMIC_FEE_FLAG = 0x800000;
export const NO_HOOK = '0x0000000000000000000000000000000000000000';

/** A return-delta permission is only usable with the callback that returns it (Hooks.isValidHookAddress). */
const DELTA_NEEDS: readonly [HookPermission, HookPermission][] = [
  ['beforeSwapReturnDelta', 'beforeSwap'],
  ['afterSwapReturnDelta', 'afterSwap'],
  ['afterAddLiquidityReturnDelta', 'afterAddLiquidity'],
  ['afterRemoveLiquidityReturnDelta', 'afterRemoveLiquidity'],
];

/** Permissions that run during a swap: what can refuse, tax or reprice a trade. */
export const SWAP_PERMISSIONS: readonly HookPermission[] = [
  'beforeSwap',
  'afterSwap',
  'beforeSwapReturnDelta',
  'afterSwapReturnDelta',
];

/** The low 14 bits of a hook address. */
export function hookFlags(hook: string): number {
  return Number(BigInt(hook) & BigInt(ALL_HOOK_MASK));
}

export function hookPermissions(hook: string): HookPermission[] {
  const flags = hookFlags(hook);
  return (Object.keys(HOOK_FLAGS) as HookPermission[]).filter((p) => (flags & HOOK_FLAGS[p]) !== 0);
}

export const hasHook = (hook: string | null | undefined): hook is string =>
  !!hook && BigInt(hook) !== 0n;

/**
 * Why the PoolManager would refuse this hook address for a pool with `fee` (its
 * Hooks.isValidHookAddress rules, explained), or [] when it is a possible hook address.
 */
export function hookAddressProblems(hook: string, fee: number): string[] {
  const flags = hookFlags(hook);
  const has = (p: HookPermission) => (flags & HOOK_FLAGS[p]) !== 0;
  const dynamic = fee === DYNAMIC_FEE_FLAG;
  const problems = DELTA_NEEDS.filter(([delta, action]) => has(delta) && !has(action)).map(
    ([delta, action]) => `permission ${delta} without ${action}: the delta could never be returned`,
  );
  if (!hasHook(hook)) {
    if (dynamic) problems.push('a dynamic fee without a hook to set it');
  } else if (flags === 0 && !dynamic) {
    problems.push(
      'a hook address without any permission bit and a static fee: the hook is never called',
    );
  }
  return problems;
}

const KEY = '(address,address,uint24,int24,address)';
const LIQUIDITY = '(int24,int24,int256,bytes32)';
const SWAP = '(bool,int256,uint160)';
/** The callbacks' signatures (IHooks), by name: what a permission makes the PoolManager call. */
export const HOOK_CALLBACKS = {
  beforeInitialize: `beforeInitialize(address,${KEY},uint160)`,
  afterInitialize: `afterInitialize(address,${KEY},uint160,int24)`,
  beforeAddLiquidity: `beforeAddLiquidity(address,${KEY},${LIQUIDITY},bytes)`,
  afterAddLiquidity: `afterAddLiquidity(address,${KEY},${LIQUIDITY},int256,int256,bytes)`,
  beforeRemoveLiquidity: `beforeRemoveLiquidity(address,${KEY},${LIQUIDITY},bytes)`,
  afterRemoveLiquidity: `afterRemoveLiquidity(address,${KEY},${LIQUIDITY},int256,int256,bytes)`,
  beforeSwap: `beforeSwap(address,${KEY},${SWAP},bytes)`,
  afterSwap: `afterSwap(address,${KEY},${SWAP},int256,bytes)`,
  beforeDonate: `beforeDonate(address,${KEY},uint256,uint256,bytes)`,
  afterDonate: `afterDonate(address,${KEY},uint256,uint256,bytes)`,
} as const;

export type HookCallback = keyof typeof HOOK_CALLBACKS;

/** Selector (8 hex digits, no 0x) → callback name. */
export const HOOK_CALLBACK_BY_SELECTOR: ReadonlyMap<string, HookCallback> = new Map(
  (Object.entries(HOOK_CALLBACKS) as [HookCallback, string][]).map(([name, sig]) => [
    id(sig).slice(2, 10),
    name,
  ]),
);

export const hookCallbackSelector = (name: HookCallback): string =>
  id(HOOK_CALLBACKS[name]).slice(2, 10);
