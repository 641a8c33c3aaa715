import type {
  AdminFamily,
  AdminFunction,
  Evidence,
  ExtractedFunction,
  FunctionRisk,
} from '../types.ts';
import { decodeRevert, type RawResult } from './codec.ts';

/**
 * What a behaviour probe saw, read as an admin power (src/analysis/simulation/behaviour.ts runs the probes):
 * the effect of one candidate call against the control run, and a finding as an admin function.
 * Pure.
 */

/** A tax difference at or above this (percentage points) is an effect, not rounding. */
export const TAX_EFFECT_PP = 0.1;

export type CallerRole = 'owner' | 'hidden-owner' | 'creator' | 'proxy-admin';

export interface PrivilegedCaller {
  address: string;
  role: CallerRole;
}

export interface BehaviourFinding {
  selector: string;
  arguments: string;
  family: AdminFamily;
  caller: string;
  caller_role: CallerRole;
  /** What was observed, in words. */
  detail: string;
  /** Numbers read without and with the call (a fee: the sell tax, and the cap the setter accepts). */
  before?: Record<string, string>;
  after?: Record<string, string>;
}

/** One AdminProbe run (contracts/src/service/TradeSimulator.sol), decoded. */
export interface ProbeOutcome {
  trader: string;
  before: RawResult;
  adminOk: boolean;
  adminError: string;
  balanceBefore: bigint;
  balanceAfter: bigint;
  supplyBefore: bigint;
  supplyAfter: bigint;
  after: RawResult;
}

/** A flat argument list's types, or null when it nests tuples. */
export function splitFlat(args: string): string[] | null {
  if (args.includes('(')) return null;
  return args
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

const taxPct = (expected: bigint, got: bigint) =>
  expected > 0n ? Number(((expected - got) * 10_000n) / expected) / 100 : null;
export const sellTax = (r: RawResult) =>
  r.sell.ok ? taxPct(r.sellAmount, r.sellPairReceived) : null;
const buyTax = (r: RawResult) => (r.buy.ok ? taxPct(r.buyExpected, r.buyReceived) : null);
const sellWorks = (r: RawResult) => r.buy.ok && r.sell.ok;

/**
 * The effect of one candidate call compared with the control run (pure). Returns the family and
 * what was seen, or null when the call changed nothing observable.
 */
export function classifyEffect(
  control: ProbeOutcome,
  probe: ProbeOutcome,
  f: ExtractedFunction,
  value: bigint,
): { family: AdminFamily; detail: string } | null {
  if (!probe.adminOk) return null;
  const namesAddress = (splitFlat(f.arguments) ?? []).some((t) => t.startsWith('address'));
  const delta = probe.balanceAfter - probe.balanceBefore;
  const supplyDelta = probe.supplyAfter - probe.supplyBefore;
  if (delta !== 0n) {
    const seen = `the trader's balance went from ${probe.balanceBefore} to ${probe.balanceAfter} and the supply changed by ${supplyDelta}`;
    // Set to exactly the argument from a non-zero balance: a balance rewrite, not a mint.
    if (
      probe.balanceAfter === value &&
      probe.balanceBefore !== 0n &&
      probe.balanceBefore + value !== value
    )
      return { family: 'balance-change', detail: `${seen} (set to the argument)` };
    if (delta > 0n && supplyDelta === delta)
      return { family: 'mint', detail: `${seen} (new tokens)` };
    if (delta < 0n) return { family: 'burn-from', detail: `${seen} (taken from the holder)` };
    return { family: 'balance-change', detail: seen };
  }
  if (!control.after.buy.ok && probe.after.buy.ok)
    return {
      family: 'trading-switch',
      detail: 'a buy that reverted without the call succeeds after it',
    };
  const blockedBuy = control.after.buy.ok && !probe.after.buy.ok;
  const blockedSell = sellWorks(control.after) && probe.after.buy.ok && !probe.after.sell.ok;
  if (blockedBuy || blockedSell) {
    const what = blockedBuy
      ? `a buy that works without the call reverts after it (${decodeRevert(probe.after.buy.revertData)})`
      : `a sell that works without the call reverts after it (${decodeRevert(probe.after.sell.revertData)})`;
    return namesAddress
      ? { family: 'blacklist', detail: `${what}, for the address named in the call` }
      : { family: 'pause', detail: `${what}, for everyone` };
  }
  const taxes = [
    ['buy', buyTax(control.after), buyTax(probe.after)],
    ['sell', sellTax(control.after), sellTax(probe.after)],
  ] as const;
  for (const [side, was, now] of taxes) {
    if (was === null || now === null || Math.abs(was - now) < TAX_EFFECT_PP) continue;
    const detail = `the ${side} tax went from ${was}% to ${now}%`;
    return namesAddress && now === 0
      ? { family: 'fee-exclusion', detail }
      : { family: 'fee', detail };
  }
  return null;
}

const FAMILY_RISK: Record<AdminFamily, FunctionRisk> = {
  mint: 'high',
  'burn-from': 'critical',
  blacklist: 'high',
  whitelist: 'medium',
  pause: 'high',
  fee: 'high',
  'fee-siphon': 'critical',
  'max-tx': 'medium',
  'trading-switch': 'high',
  'fee-exclusion': 'low',
  'router-pair': 'medium',
  withdraw: 'medium',
  upgrade: 'critical',
  'ownership-transfer': 'low',
  renounce: 'low',
  'balance-change': 'critical',
  other: 'low',
};

/** A finding as an admin function, so that risk and hints treat it like a catalogued one. */
export function findingToAdminFunction(f: BehaviourFinding): AdminFunction {
  const evidence: Evidence[] = [
    {
      kind: 'simulation',
      selector: f.selector,
      detail: `0x${f.selector}(${f.arguments}) called by the ${f.caller_role} ${f.caller}: ${f.detail}; the same call from a stranger reverted`,
    },
  ];
  return {
    name: `0x${f.selector}`,
    signature: `0x${f.selector}(${f.arguments})`,
    selector: f.selector,
    family: f.family,
    risk_level: FAMILY_RISK[f.family],
    description: `unnamed admin function found by behaviour (${f.family})`,
    access_control: f.caller_role === 'owner' ? 'owner-only' : 'role',
    evidence,
    // Found by running it: the effect is the proof.
    proof: {
      status: 'proven',
      detail: evidence[0]!.detail,
      ...(f.before ? { before: f.before } : {}),
      ...(f.after ? { after: f.after } : {}),
    },
  };
}
