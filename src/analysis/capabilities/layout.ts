import { AbiCoder, ParamType } from 'ethers';
import { addressFromLabel, splitTypes } from '../bytecode/index.ts';
import type { ExtractedFunction } from '../types.ts';
import type { CallerCheck } from '../walk/index.ts';
import {
  asAddress,
  type CodeModel,
  flagReads,
  isCallerLeaf,
  memberOffset,
  type PathTrace,
  type Sym,
  slotShape,
  walk,
} from '../walk/index.ts';

/**
 * What the capability analysis (capabilities.ts) needs to know about a token before judging its
 * functions: the call data it walks them with, its balances mapping and supply slot (from its
 * own getters). What transfer() and transferFrom() check on the paths where they fail is in
 * capabilities/blockers.ts.
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
  /**
   * The struct member of the balances entry balanceOf reads (`accounts[h].balance`), 0 for a
   * plain mapping, null when unknown: other members of the entry (`accounts[h].frozen`) are not
   * the balance.
   */
  balanceMember: bigint | null;
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
export const ARG_ADDRESSES = Array.from({ length: 8 }, (_, i) =>
  addressFromLabel(`token-monitor.effect.argument.${i}`),
);
const ARG_VALUES = new Map(ARG_ADDRESSES.map((a, i) => [BigInt(a), i]));
/** Is this word one of the walk's address arguments? */
export const isArgumentAddress = (word: bigint): boolean => ARG_VALUES.has(word);
/** The amount every walk moves, transfer() included: a cap below it stops that transfer. */
export const TRANSFER_AMOUNT = 1000n;
const abi = AbiCoder.defaultAbiCoder();
export const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * The walk's call data is concrete. The flipped variant (bools false, amounts zero) tells a
 * setter, whose stored value follows its argument, from a switch that stores a constant.
 */
export type ArgumentVariant = 'default' | 'flipped' | 'one';

function value(type: ParamType, index: number, variant: ArgumentVariant): unknown {
  if (type.baseType === 'array') {
    const length = type.arrayLength === -1 ? 1 : type.arrayLength!;
    if (length > 16) throw new Error('array too long');
    return Array.from({ length }, () => value(type.arrayChildren!, index, variant));
  }
  if (type.baseType === 'tuple') return type.components!.map((c) => value(c, index, variant));
  if (type.baseType === 'address') return ARG_ADDRESSES[index % ARG_ADDRESSES.length];
  if (type.baseType === 'bool') return variant !== 'flipped';
  if (type.baseType === 'string') return '';
  if (type.baseType === 'bytes') return '0x';
  if (type.baseType.startsWith('bytes')) return `0x${'00'.repeat(Number(type.baseType.slice(5)))}`;
  const amount = variant === 'default' ? TRANSFER_AMOUNT : variant === 'one' ? 1n : 0n;
  // A narrow integer (uint8) cannot hold the amount: ABI encoding would throw and leave the
  // whole call data zero (address arguments included). It takes 1 instead, which an enum or a
  // status (`require(kind < 3)`, 1 = frozen) accepts.
  const bits = /^u?int(\d+)$/.exec(type.baseType)?.[1];
  if (bits === undefined) return amount;
  const max = (1n << BigInt(Number(bits) - (type.baseType.startsWith('int') ? 1 : 0))) - 1n;
  return amount > max ? 1n : amount;
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
  const { balances, held, balanceMember } = balanceOf
    ? balancesBase(model, byId, balanceOf, budget)
    : { balances: null, held: [], balanceMember: null };
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
  const allowances = allowancesBase(model, byId, budget);
  return { balances, totalSupply, allowances, held, balanceMember };
}

/**
 * The mapping balanceOf(holder) reads keyed by the holder. A balanceOf that adds locked amounts
 * (`balances[h] + sum(lockups[h])` when `locks[h]`) reads more than one: a mapping only branched
 * on as a flag is not the balances, nor one read on some paths only; the balances mapping is
 * read on every path. When several are read on every path (`accounts[h] +
 * investors[h].lockedAmount`, a vesting entry that old compilers read first), the balances are
 * the one transfer() writes on the most paths: what transfer moves, not what it only releases
 * for some holders. A reflection token reads one mapping or another (`_isExcluded[h] ?
 * _tOwned[h] : _rOwned[h]`), none on every path: the balances are then the one transfer() writes
 * on most of its paths (`_rOwned`, every holder's; `_tOwned` only for excluded accounts).
 * Failing that, the first one read.
 */
function balancesBase(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  balanceOf: ExtractedFunction,
  budget: Budget,
) {
  let first: bigint | null = null;
  let common: bigint[] | null = null;
  const all = new Set<bigint>();
  const members = new Map<bigint, bigint | null>();
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
      if (!members.has(shape.base)) members.set(shape.base, memberOffset(r));
      if (!flagBases.has(shape.base) && !read.includes(shape.base)) read.push(shape.base);
    }
    for (const b of read) all.add(b);
    common = common === null ? read : common.filter((b) => read.includes(b));
  }
  const balances =
    (common !== null && common.length > 1 ? mostWritten(model, byId, common, budget) : null) ??
    common?.[0] ??
    (all.size > 1 ? mostWritten(model, byId, [...all], budget) : null) ??
    [...all][0] ??
    first;
  const member = members.get(balances ?? -1n);
  return {
    balances,
    held: [...all].filter((b) => b !== balances),
    balanceMember: member === undefined ? null : member,
  };
}

/**
 * Of `candidates`, the mapping transfer() writes on the most paths that do not revert, or null.
 * A path that returns false keeps its writes too: old tokens whose internal transfer never sets
 * its return value answer false after moving the tokens.
 */
function mostWritten(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  candidates: readonly bigint[],
  budget: Budget,
): bigint | null {
  const transfer = byId.get(SELECTORS.transfer);
  if (!transfer) return null;
  const counts = new Map<bigint, number>();
  const walked = walkRecorded(model, { ...transfer, arguments: 'address,uint256' }, budget);
  for (const t of walked.traces.filter((x) => x.end === 'stop' || x.end === 'return')) {
    const bases = new Set(
      t.writes.map((w) => slotShape(w.slot)).map((x) => (x?.kind === 'map' ? x.base : null)),
    );
    for (const b of candidates) if (bases.has(b)) counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  let best: bigint | null = null;
  for (const b of candidates) if ((counts.get(b) ?? 0) > (counts.get(best ?? -1n) ?? 0)) best = b;
  return best;
}

const MAX_WORD = (1n << 256n) - 1n;
const word = (v: bigint) => v.toString(16).padStart(64, '0');

/**
 * Whether allowance(holder, spender) answers the maximum for this spender, whoever the holder
 * is: an allowance the token declares to everyone who asks (Solady's infinite allowance for
 * Permit2), so what that spender moves without reading a stored allowance is no hidden take.
 * A transferFrom that skips the allowance for an address allowance() answers 0 for stays one.
 */
export function declaresInfiniteAllowance(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  spender: bigint,
  budget: Budget,
): boolean {
  if (!byId.has(SELECTORS.allowance) || budget.left <= 0) return false;
  const data = `0x${SELECTORS.allowance}${word(BigInt(ARG_ADDRESSES[0]!))}${word(spender)}`;
  const result = walk(model, data, {
    budget: Math.max(1, Math.min(FUNCTION_BUDGET, budget.left)),
    record: true,
    maxPaths: MAX_PATHS,
  });
  budget.left -= result.steps;
  const answers = result.traces.filter((t) => t.end === 'return');
  return result.complete && answers.length > 0 && answers.every((t) => t.returned === MAX_WORD);
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
