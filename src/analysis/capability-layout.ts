import { AbiCoder, ParamType } from 'ethers';
import { addressFromLabel, splitTypes } from './calldata.ts';
import { type CallerCheck, unwrap } from './caller-patterns.ts';
import { type CodeModel, type PathTrace, walk } from './interpreter.ts';
import {
  asAddress,
  comparedReads,
  contains,
  entryKey,
  evaluate,
  flagReads,
  slotShape,
} from './storage-shapes.ts';
import { isCallerLeaf, isNode, type Node, type Sym } from './symbolic.ts';
import type { ExtractedFunction } from './types.ts';

/**
 * What the capability analysis (capabilities.ts) needs to know about a token before judging its
 * functions: the call data it walks them with, its balances mapping and supply slot (from its
 * own getters), and what transfer() and transferFrom() check on the paths where they fail.
 */

export interface TokenLayout {
  /** Base slot of the balances mapping (what balanceOf reads), or null. */
  balances: bigint | null;
  /** The slot totalSupply() reads, or null. */
  totalSupply: bigint | null;
  /** Base slot of the allowances (what allowance(holder, spender) reads as [holder][spender]). */
  allowances: bigint | null;
  /** Other per-holder mappings balanceOf adds to the balance (locked or vesting amounts). */
  held: bigint[];
}

export const SELECTORS = {
  balanceOf: '70a08231',
  allowance: 'dd62ed3e',
  totalSupply: '18160ddd',
  transfer: 'a9059cbb',
  transferFrom: '23b872dd',
} as const;
/** Steps for all capability walks of one contract, and per function. */
export const CAPABILITY_BUDGET = 150_000;
const FUNCTION_BUDGET = 12_000;
/** Forks per function: old tokens branch on every SafeMath check and modifier. */
export const MAX_PATHS = 160;
/** Address arguments get these, by position: distinct, recognisable, owned by no one. */
const ARG_ADDRESSES = Array.from({ length: 8 }, (_, i) =>
  addressFromLabel(`token-monitor.effect.argument.${i}`),
);
const ARG_VALUES = new Map(ARG_ADDRESSES.map((a, i) => [BigInt(a), i]));
/** The amount every walk moves, transfer() included: a cap below it stops that transfer. */
export const TRANSFER_AMOUNT = 1000n;
/** Steps from a blocking check to the failure it causes (building an Error(string) included). */
const MAX_FAILURE_DISTANCE = 100;
const abi = AbiCoder.defaultAbiCoder();
export const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * The walk's call data is concrete. The flipped variant (bools false, amounts zero) tells a
 * setter, whose stored value follows its argument, from a switch that stores a constant.
 */
export type ArgumentVariant = 'default' | 'flipped';

function value(type: ParamType, index: number, variant: ArgumentVariant): unknown {
  if (type.baseType === 'array') {
    const length = type.arrayLength === -1 ? 1 : type.arrayLength!;
    if (length > 16) throw new Error('array too long');
    return Array.from({ length }, () => value(type.arrayChildren!, index, variant));
  }
  if (type.baseType === 'tuple') return type.components!.map((c) => value(c, index, variant));
  if (type.baseType === 'address') return ARG_ADDRESSES[index % ARG_ADDRESSES.length];
  if (type.baseType === 'bool') return variant === 'default';
  if (type.baseType === 'string') return '';
  if (type.baseType === 'bytes') return '0x';
  if (type.baseType.startsWith('bytes')) return `0x${'00'.repeat(Number(type.baseType.slice(5)))}`;
  return variant === 'default' ? TRANSFER_AMOUNT : 0n;
}

/** Call data aiming each address argument at its own recognisable address. */
export function effectCalldata(
  selector: string,
  argumentTypes: string,
  variant: ArgumentVariant = 'default',
): string {
  const padding = '00'.repeat(32 * 4);
  try {
    const types = splitTypes(argumentTypes).map((t) => ParamType.from(t));
    return `0x${selector}${abi
      .encode(
        types,
        types.map((t, i) => value(t, i, variant)),
      )
      .slice(2)}${padding}`;
  } catch {
    return `0x${selector}${'00'.repeat(32 * 4)}${padding}`;
  }
}

/** "arg1" for an address from the call data, "the caller", or null. */
export function keyName(k: Sym): string | null {
  const a = asAddress(k);
  if (a !== null && ARG_VALUES.has(a)) return `argument ${ARG_VALUES.get(a)! + 1}`;
  return isCallerLeaf(k) ? 'the caller' : null;
}
/** `msg.sender == holder` with the holder from the call data is the holder acting, no privilege. */
export const isArgument = (address: bigint) => ARG_VALUES.has(address);
/** Per-record ownership (`grants[id].granter == msg.sender`) is no admin's privilege. */
export const isAdminCheck = (c: CallerCheck) =>
  !(c.kind === 'stored-address' && c.slot === null) &&
  !(c.kind === 'hardcoded-address' && isArgument(BigInt(c.address!)));
export const fromCalldata = (k: Sym) => {
  const a = asAddress(k);
  return a !== null && ARG_VALUES.has(a);
};

export interface Budget {
  left: number;
}

export function walkRecorded(
  model: CodeModel,
  fn: ExtractedFunction,
  budget: Budget,
  variant: ArgumentVariant = 'default',
) {
  const result = walk(model, effectCalldata(fn.selector, fn.arguments, variant), {
    budget: Math.max(1, Math.min(FUNCTION_BUDGET, budget.left)),
    record: true,
    maxPaths: MAX_PATHS,
  });
  budget.left -= result.steps;
  return result;
}

export const isSuccess = (t: PathTrace) =>
  (t.end === 'stop' || t.end === 'return') && !t.returnedZero;
export const isFailure = (t: PathTrace) =>
  t.end === 'revert' || t.end === 'invalid' || (t.end === 'return' && t.returnedZero);

/** The token's balances mapping and supply slot, from its own getters. */
export function discoverLayout(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  budget: Budget,
): TokenLayout {
  let totalSupply: bigint | null = null;
  const balanceOf = byId.get(SELECTORS.balanceOf);
  const { balances, held } = balanceOf
    ? balancesBase(model, balanceOf, budget)
    : { balances: null, held: [] };
  const supply = byId.get(SELECTORS.totalSupply);
  if (supply) {
    for (const t of walkRecorded(model, supply, budget).traces) {
      const first = t.reads.map((r) => slotShape(r)).find((s) => s?.kind === 'slot');
      if (first?.kind === 'slot') {
        totalSupply = first.slot;
        break;
      }
    }
  }
  return { balances, totalSupply, allowances: allowancesBase(model, byId, budget), held };
}

/**
 * The mapping balanceOf(holder) reads keyed by the holder. A balanceOf that adds locked amounts
 * (`balances[h] + sum(lockups[h])` when `locks[h]`) reads more than one: a mapping only branched
 * on as a flag is not the balances, nor one read on some paths only; the balances mapping is
 * read on every path. Failing that, the first one read.
 */
function balancesBase(model: CodeModel, balanceOf: ExtractedFunction, budget: Budget) {
  let first: bigint | null = null;
  let common: bigint[] | null = null;
  const all = new Set<bigint>();
  for (const t of walkRecorded(model, { ...balanceOf, arguments: 'address' }, budget).traces) {
    if (t.end !== 'return') continue;
    const flagBases = new Set(
      t.conditions.flatMap((c) =>
        flagReads(c.cond).flatMap((f) => {
          const shape = slotShape(f.load.args[0]!);
          return shape?.kind === 'map' ? [shape.base] : [];
        }),
      ),
    );
    const read: bigint[] = [];
    for (const r of t.reads) {
      const shape = slotShape(r);
      if (shape?.kind !== 'map' || keyName(shape.key) !== 'argument 1') continue;
      first ??= shape.base;
      if (!flagBases.has(shape.base) && !read.includes(shape.base)) read.push(shape.base);
    }
    for (const b of read) all.add(b);
    common = common === null ? read : common.filter((b) => read.includes(b));
  }
  const balances = common?.[0] ?? first;
  return { balances, held: [...all].filter((b) => b !== balances) };
}

function allowancesBase(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  budget: Budget,
): bigint | null {
  const getter = byId.get(SELECTORS.allowance);
  if (!getter) return null;
  const fn = { ...getter, arguments: 'address,address' };
  for (const t of walkRecorded(model, fn, budget).traces) {
    for (const r of t.reads) {
      const shape = slotShape(r);
      if (
        shape?.kind === 'map2' &&
        keyName(shape.outer) === 'argument 1' &&
        keyName(shape.inner) === 'argument 2'
      )
        return shape.base;
    }
  }
  return null;
}

/** What transfer()/transferFrom() test on their failing paths. */
export interface Blockers {
  /** Plain slots tested as a flag or against the block time: slot → bit offset and how. */
  slots: Map<
    bigint,
    {
      shifts: Set<number>;
      timed: boolean;
      where: string;
      blocksWhenSet: boolean;
      /** Some failing check fails when the flag is clear (`require(released)`). */
      blocksWhenClear: boolean;
    }
  >;
  /** Mappings tested with an account key: base → how. */
  mappings: Map<bigint, EntryBlocker>;
  /**
   * Plain slots compared by size with the amount moved (`require(amount <= maxSell)`): a cap.
   * The checks keep the walk's concrete amount, so a stored cap can be tested against it.
   */
  caps: Map<bigint, { where: string; checks: EntryBlocker['checks']; sell: boolean }>;
}

/** A per-account entry a failing check tests, and how, so a write can be judged by its value. */
export interface EntryBlocker {
  where: string;
  /**
   * `flag`: tested as a boolean (`frozen[from]`); `time`: compared with the block time or number
   * (`lockedUntil[from]`); `amount`: an amount held back (`balance - locked[from] >= value`).
   */
  kind: 'flag' | 'time' | 'amount';
  /** The failing checks on this entry, each with the load it tests: to evaluate a stored value. */
  checks: { cond: Sym; taken: boolean; load: Node }[];
}

export function collectBlockers(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  layout: TokenLayout,
  budget: Budget,
  /** Sees every path of transfer() and transferFrom() that succeeds (their own writes). */
  onSuccess: (t: PathTrace) => void = () => {},
): { blockers: Blockers; complete: boolean } {
  const blockers: Blockers = { slots: new Map(), mappings: new Map(), caps: new Map() };
  let complete = byId.has(SELECTORS.transfer);
  for (const [name, selector] of [
    ['transfer', SELECTORS.transfer],
    ['transferFrom', SELECTORS.transferFrom],
  ] as const) {
    const fn = byId.get(selector);
    if (!fn) continue;
    const args = name === 'transfer' ? 'address,uint256' : 'address,address,uint256';
    const result = walkRecorded(model, { ...fn, arguments: args }, budget);
    complete &&= result.complete;
    for (const t of result.traces) if (isSuccess(t)) onSuccess(t);
    // Mappings the transfer itself moves amounts in are balances (however many), not locks.
    const moved = new Set(
      result.traces
        .filter(isSuccess)
        .flatMap((t) => t.writes.map((w) => slotShape(w.slot)))
        .flatMap((sh) => (sh && sh.kind !== 'slot' ? [sh.base] : [])),
    );
    const recipient = ARG_ADDRESSES[name === 'transfer' ? 0 : 1]!;
    for (const t of result.traces) {
      if (!isFailure(t)) continue;
      // A sale: the path proved the recipient is an address the token stores (its pair).
      const sell = t.conditions.some((c) => equalsStored(c.cond, c.taken, BigInt(recipient)));
      // A check fails at once (`require`, `if (…) return false`): the branches taken shortly
      // before the failure decided it; one followed by a long stretch of code decided something
      // else (a fee, a route). `if (locked) require(msg.sender == owner)` needs both branches.
      for (let i = t.conditions.length - 1; i >= 0; i--) {
        const branch = t.conditions[i]!;
        if (t.steps - branch.step > MAX_FAILURE_DISTANCE) break;
        const where = `${name}() branches on it at pc ${branch.pc} to a path that fails`;
        // Before the last branch only global flags count: per-account entries tested earlier
        // are exemptions the failing check then overrides (fee exclusions, whitelists).
        addBlockers(blockers, branch, where, layout, moved, i === t.conditions.length - 1, sell);
      }
    }
  }
  return { blockers, complete };
}

type Branch = PathTrace['conditions'][number];

/** Does the branch outcome prove `address == sload(slot)` (`if (to == pair)`)? */
function equalsStored(cond: Sym, taken: boolean, address: bigint): boolean {
  let cur = cond;
  let want = taken;
  while (isNode(cur) && cur.op === 'iszero') {
    cur = cur.args[0]!;
    want = !want;
  }
  if (!isNode(cur) || cur.args.length !== 2) return false;
  const proves = (cur.op === 'eq' && want) || ((cur.op === 'sub' || cur.op === 'xor') && !want);
  if (!proves) return false;
  const [a, b] = cur.args.map((x) => unwrap(x).core) as [Sym, Sym];
  const stored = (x: Sym) => isNode(x) && x.op === 'sload';
  return (a === address && stored(b)) || (b === address && stored(a));
}

/** The flags, times and per-account amounts one branch on a failing path tests. */
function addBlockers(
  blockers: Blockers,
  branch: Branch,
  where: string,
  layout: TokenLayout,
  moved: ReadonlySet<bigint>,
  last: boolean,
  sell: boolean,
): void {
  const timed = contains(branch.cond, (n) => n.op === 'timestamp' || n.op === 'number', 40);
  for (const read of flagReads(branch.cond)) {
    const shape = slotShape(read.load.args[0]!);
    if (shape?.kind === 'slot') {
      if (shape.slot === layout.totalSupply || (!last && blockers.slots.has(shape.slot))) continue;
      const entry = blockers.slots.get(shape.slot) ?? {
        shifts: new Set<number>(),
        timed,
        where,
        blocksWhenSet: false,
        blocksWhenClear: false,
      };
      entry.shifts.add(read.shift);
      entry.blocksWhenSet ||= blocksWhenSet(branch, read.load, timed, 1n << BigInt(read.shift));
      entry.blocksWhenClear ||= blocksWhenSet(branch, read.load, timed, 0n);
      blockers.slots.set(shape.slot, entry);
    } else if (
      last &&
      shape?.kind === 'map' &&
      shape.base !== layout.balances &&
      keyName(shape.key) !== null &&
      blocksWhenSet(branch, read.load, timed)
    ) {
      const entry = blockers.mappings.get(shape.base) ?? {
        where,
        kind: timed ? 'time' : 'flag',
        checks: [],
      };
      entry.checks.push({ cond: branch.cond, taken: branch.taken, load: read.load });
      blockers.mappings.set(shape.base, entry);
    }
  }
  // An amount held back per account (`balance - locked[from] >= value`): a lock.
  for (const load of last ? comparedReads(branch.cond) : []) {
    const shape = slotShape(load.args[0]!);
    if (shape?.kind === 'slot') {
      if (timed || shape.slot === layout.totalSupply) continue;
      const cap = blockers.caps.get(shape.slot) ?? { where, checks: [], sell: false };
      cap.checks.push({ cond: branch.cond, taken: branch.taken, load });
      cap.sell ||= sell;
      blockers.caps.set(shape.slot, cap);
      continue;
    }
    if (!shape || shape.base === layout.balances || moved.has(shape.base)) continue;
    // An allowance is keyed by the holder and the caller; that is the holder's own limit.
    if (shape.kind === 'map2' && isCallerLeaf(shape.inner)) continue;
    const key = entryKey(shape);
    if (key !== null && keyName(key) !== null && !blockers.mappings.has(shape.base)) {
      blockers.mappings.set(shape.base, {
        where: `${where} (an amount held back per account)`,
        kind: 'amount',
        checks: [],
      });
    }
  }
}

/**
 * Does an account's entry block when it holds `bit` (set by default)? A blacklist (`frozen[from]`)
 * fails when true; an exemption list (`whitelisted[from]`) fails when false and is no freeze.
 * Unknown counts as yes.
 */
function blocksWhenSet(
  branch: PathTrace['conditions'][number],
  load: Node,
  timed: boolean,
  bit = 1n,
): boolean {
  if (timed) return true;
  const outcome = evaluate(branch.cond, load, bit);
  return outcome === null || (outcome !== 0n) === branch.taken;
}
