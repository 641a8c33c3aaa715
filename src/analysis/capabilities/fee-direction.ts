import type { DispatchedFunction } from '../bytecode/index.ts';
import { probeCalldata } from '../bytecode/index.ts';
import type { ExtractedFunction } from '../types.ts';
import {
  type CodeModel,
  contains,
  evaluateWith,
  isNode,
  type Node,
  type Sym,
  walk,
} from '../walk/index.ts';
import { type Blockers, collectBlockers } from './blockers.ts';
import { CAPABILITY_BUDGET, discoverLayout, TRANSFER_AMOUNT } from './layout.ts';
import type { Judged } from './verdicts.ts';

/**
 * Fee setters that can only lower the fee (the stealth-launch template's `reduceFee`:
 * `require(newFee <= _finalBuyTax && newFee <= _finalSellTax)` then both stored). Such a
 * function cannot make a holder pay more than when they bought, so it is no power over holders,
 * like a one-way opener (docs/risk-model.md, "Risk levels"). Pure.
 */

/** Steps allowed for the walk that decides it (a setter needs a few hundred). */
const FEE_WALK_BUDGET = 10_000;

/**
 * Whether `write` (a concrete value stored in plain slot `slot`) on a path is bounded by what the
 * slot held: with the old word one below the stored value, some condition the path passed would
 * have gone the other way. The path then cannot raise the slot.
 */
function cannotRaise(slot: bigint, value: bigint, conditions: readonly Condition[]): boolean {
  if (value === 0n) return true;
  const isOld = (n: Node) => n.op === 'sload' && n.args[0] === slot;
  const below = value - 1n;
  return conditions.some(({ cond, taken }) => {
    if (!contains(cond, isOld, 60)) return false;
    const outcome = evaluateWith(cond, (n) => (isOld(n) ? below : undefined));
    return outcome !== null && (outcome !== 0n) !== taken;
  });
}

type Condition = { cond: Node; taken: boolean };

const MAX_WORD = (1n << 256n) - 1n;

/** The constants an expression compares with (the bounds of the values that satisfy it). */
function constantsOf(expr: Node, out: Set<bigint>, budget = 60): Set<bigint> {
  for (const a of expr.args) {
    if (typeof a === 'bigint') out.add(a);
    else if (out.size < budget) constantsOf(a, out, budget);
  }
  return out;
}

/**
 * A path no storage can take: for one slot, no value satisfies every condition that depends on
 * that slot alone. The walk does not prune contradictions (the optimiser re-tests a slot the
 * path already bounded: `x < 1` then `x >= 1`), and such a path proves nothing. A single-slot
 * comparison changes outcome only at its constants, so values around them (and 0 and the
 * maximum) are enough to find a satisfying one when there is any.
 */
function infeasible(conditions: readonly Condition[]): boolean {
  const slots = new Set<bigint>();
  for (const { cond } of conditions)
    contains(
      cond,
      (n) => {
        if (n.op === 'sload' && typeof n.args[0] === 'bigint') slots.add(n.args[0]);
        return false;
      },
      60,
    );
  return [...slots].some((slot) => {
    const isSlot = (n: Node) => n.op === 'sload' && n.args[0] === slot;
    const alone = conditions.filter(
      ({ cond }) =>
        contains(cond, isSlot, 60) &&
        evaluateWith(cond, (n) => (isSlot(n) ? 0n : undefined)) !== null,
    );
    if (alone.length < 2) return false;
    const values = new Set<bigint>([0n, MAX_WORD]);
    for (const { cond } of alone)
      for (const k of constantsOf(cond, new Set()))
        for (const v of [k - 1n, k, k + 1n]) if (v >= 0n && v <= MAX_WORD) values.add(v);
    return ![...values].some((v) =>
      alone.every(({ cond, taken }) => {
        const outcome = evaluateWith(cond, (n) => (isSlot(n) ? v : undefined));
        return outcome !== null && (outcome !== 0n) === taken;
      }),
    );
  });
}

/**
 * Evidence that the function can only lower what it stores, or null when that is not proven.
 * Proven when the walk with call data of ones (a fee of 1) completes, some path succeeds, and
 * every write on every successful path stores a concrete value in a plain slot that one of the
 * path's conditions bounds by the slot's own earlier value. Anything else (a write to a mapping
 * or a packed slot, a value computed from other storage, an incomplete walk) is not proven.
 */
export function lowersOnly(
  model: CodeModel,
  fn: DispatchedFunction,
  label: string,
): LowersOnly | null {
  const result = walk(model, probeCalldata(fn.selector, fn.arguments, 'ones'), {
    record: true,
    budget: FEE_WALK_BUDGET,
  });
  if (!result.complete) return null;
  const succeeded = result.traces.filter(
    (t) =>
      (t.end === 'stop' || t.end === 'return') &&
      !t.returnedZero &&
      t.writes.length > 0 &&
      !infeasible(t.conditions),
  );
  if (succeeded.length === 0) return null;
  const slots = new Set<bigint>();
  for (const path of succeeded) {
    for (const w of path.writes) {
      if (typeof w.slot !== 'bigint' || typeof w.value !== 'bigint') return null;
      if (!cannotRaise(w.slot, w.value, path.conditions)) return null;
      slots.add(w.slot);
    }
  }
  const where = [...slots].map((s) => `0x${s.toString(16)}`).join(', ');
  return {
    slots: [...slots],
    detail:
      `${label} stores in slot${slots.size > 1 ? 's' : ''} ${where} only a value its own ` +
      'checks bound by what the slot already holds: it can only lower it',
  };
}

/** What lowersOnly proves: the plain slots the function writes, each only ever lowered. */
export interface LowersOnly {
  slots: bigint[];
  detail: string;
}

/** Values a lowered slot is tried at, with the constants of each check around them. */
const PROBE_WORDS = [0n, 1n, 99n, 100n, 101n, TRANSFER_AMOUNT, 10n ** 18n, 1n << 128n, MAX_WORD];

type CapCheck = { cond: Sym; taken: boolean; load: Node };

/**
 * Can lowering the slot make this failing check fail where it passed? Only if some value fails
 * it while a higher one passes. A cap (`amount <= maxTx`) does: lowering it stops a transfer. A
 * fee does not: `amount - amount * fee / 100` fails (underflow) only when the fee is high, so a
 * fee that can only go down can never start failing. A check that cannot be evaluated from the
 * slot alone counts as not failing, as the cap rule itself counts it (capabilities/one-way.ts capBlocks).
 */
function loweringBlocks(check: CapCheck): boolean {
  const words = new Set(PROBE_WORDS);
  if (isNode(check.cond))
    for (const k of constantsOf(check.cond, new Set()))
      for (const v of [k - 1n, k, k + 1n]) if (v >= 0n && v <= MAX_WORD) words.add(v);
  const sorted = [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const outcome = (v: bigint) =>
    evaluateWith(check.cond, (n) => (n === check.load ? v : undefined));
  const fails = sorted.map((v) => {
    const o = outcome(v);
    return o === null ? null : (o !== 0n) === check.taken;
  });
  return fails.some((f, i) => f === true && fails.slice(i + 1).some((g) => g === false));
}

const LIMIT_FAMILIES: ReadonlySet<string> = new Set(['max-tx', 'trading-switch']);

/**
 * The one-way-down rule (docs/risk-model.md, "Risk levels"): a judged function proven to only
 * lower the plain slots it writes is
 * - no fee power when it is a fee function (the stealth-launch template's `reduceFee`);
 * - no cap limit when every check transfer() fails on for those slots fails only when the slot is
 *   high (a tax that can only fall, read by the cap rule because `amount - tax` is checked).
 * Either is demoted to 'other' with the proof as evidence.
 */
export function applyLowersOnly(
  model: CodeModel | null,
  judged: readonly Judged[],
  functions: readonly ExtractedFunction[],
  labelOf: (fn: DispatchedFunction) => string,
): Judged[] {
  if (!model) return [...judged];
  const proofs = new Map<string, LowersOnly | null>();
  const proofOf = (fn: DispatchedFunction) => {
    if (!proofs.has(fn.selector)) proofs.set(fn.selector, lowersOnly(model, fn, labelOf(fn)));
    return proofs.get(fn.selector)!;
  };
  let caps: Blockers['caps'] | null = null;
  const capsOf = () => {
    if (caps) return caps;
    const byId = new Map(functions.map((f) => [f.selector, f]));
    const budget = { left: CAPABILITY_BUDGET };
    const layout = discoverLayout(model, byId, budget);
    caps = collectBlockers(model, byId, layout, budget).blockers.caps;
    return caps;
  };
  return judged.map((j) => {
    const family = j.entry?.family;
    if (!j.entry || (family !== 'fee' && !LIMIT_FAMILIES.has(family ?? ''))) return j;
    const proof = proofOf(j.fn);
    if (!proof) return j;
    let detail: string;
    if (family === 'fee') detail = `One-way: can only lower the fee. ${proof.detail}`;
    else {
      const checks = proof.slots.flatMap((slot) => capsOf().get(slot)?.checks ?? []);
      if (checks.length === 0 || checks.some(loweringBlocks)) return j;
      detail =
        `One-way: can only lower what transfer() checks. ${proof.detail}, and every check ` +
        'transfer() fails on it fails only when it is high: lowering it stops no transfer';
    }
    return {
      ...j,
      entry: { ...j.entry, family: 'other', risk_level: 'low' },
      verdict: {
        ...j.verdict,
        evidence: [{ kind: 'bytecode', selector: j.fn.selector, detail }, ...j.verdict.evidence],
      },
    };
  });
}
