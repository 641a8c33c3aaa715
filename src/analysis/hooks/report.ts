import {
  type HookPermission,
  hookAddressProblems,
  hookFlags,
  hookPermissions,
  type V4PoolKey,
} from '../../dex/v4/index.ts';
import type { HookControl } from './control.ts';

/**
 * A V4 pool's hook as the simulation report carries it (trading_simulation.hook): its permission
 * bits, what makes it unusable, who can change it, and what it did in the simulated trades.
 */

export interface CreatorRun {
  /** The creator's buy and sell of the smallest amount went through. */
  sell_ok: boolean;
  sell_fee_pct: number | null;
  error: string | null;
}

export interface HookEffects {
  /** No buy went through, and the hook is why (it reverted or gave no valid answer). */
  swaps_blocked: boolean;
  /** A bought position could not be sold because the hook reverted the sell. */
  sells_blocked: boolean;
  /** The hook's share of a buy's or a sell's output, in percent (the worst amount); null: unmeasured. */
  buy_fee_pct: number | null;
  sell_fee_pct: number | null;
  /** The first revert that came from the hook, decoded. */
  revert: string | null;
  creator: CreatorRun | null;
  /** The creator sells where a stranger cannot, or pays a lower fee. */
  treats_creator_differently: boolean;
  /** What happened, one sentence each (the web app shows them). */
  findings: string[];
}

export interface HookReport {
  address: string;
  pool_id: string;
  pool_manager: string;
  /** The low 14 bits of the address, 0x hex. */
  flags: string;
  permissions: HookPermission[];
  /** Why the hook cannot work: impossible permission bits, no code. */
  problems: string[];
  control: HookControl | null;
  /** Null when the pool could not be traded at all (no liquidity, a refused hook). */
  effects: HookEffects | null;
}

export function hookReport(input: {
  hook: string;
  poolId: string;
  poolManager: string;
  key: V4PoolKey;
  control: HookControl | null;
  effects: HookEffects | null;
}): HookReport {
  const problems = hookAddressProblems(input.hook, input.key.fee).map(
    (p) => `impossible permission bits (${p}): the PoolManager refuses such a pool`,
  );
  if (input.control && !input.control.has_code)
    problems.push('the hook address has no code: every call the PoolManager makes to it fails');
  return {
    address: input.hook,
    pool_id: input.poolId,
    pool_manager: input.poolManager,
    flags: `0x${hookFlags(input.hook).toString(16).padStart(4, '0')}`,
    permissions: hookPermissions(input.hook),
    problems,
    control: input.control,
    effects: input.effects,
  };
}

/** The owner can change what the hook does to swaps: it is upgradeable, or owner-set state is read in its swap callbacks. */
export const hookCanChangeSwaps = (r: HookReport): boolean =>
  !!r.control && (r.control.upgradeable || r.control.owner_settings.length > 0);
