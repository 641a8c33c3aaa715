import type { ExtractedFunction } from '../types.ts';
import { evaluateWith, isNode, type PathTrace, type Sym, slotShape } from '../walk/index.ts';
import { TRANSFER_AMOUNT } from './layout.ts';
/**
 * Fees a transfer takes as a share of the amount, and who sets them: a success path of
 * transfer() or transferFrom() that writes `amount * sload(slot) / divisor` (into the fee
 * wallet's balance, or the amount less it into the recipient's) names the slot and its divisor;
 * a privileged path that stores its number argument in that slot is the fee's setter. With the
 * highest value the setter accepts (static/fee-caps.ts, searched by execution) this tells
 * whether the fee can take the whole amount: a cap at or above the divisor is a limit, whatever
 * the setter is called and whether or not the token has a pool yet.
 */

export interface FeeSlot {
  slot: bigint;
  /** The largest constant the transfer divides the slot's share by (10,000 for basis points). */
  divisor: bigint;
  /** Selectors of the privileged functions that store their argument in the slot. */
  setters: string[];
}

/** Nodes searched per written value: fee arithmetic sits a few levels deep. */
const SEARCH_BUDGET = 400;

/** The `x * sload(slot) / divisor` shares in what a path writes, by slot. */
export function recordFeeDivisors(t: PathTrace, out: Map<bigint, bigint>): void {
  for (const w of t.writes) {
    const stack: Sym[] = [w.value];
    let seen = 0;
    while (stack.length > 0 && seen++ < SEARCH_BUDGET) {
      const x = stack.pop()!;
      if (!isNode(x)) continue;
      const [numerator, divisor] = x.args;
      if (x.op === 'div' && typeof divisor === 'bigint' && divisor > 1n && numerator !== undefined)
        for (const slot of multipliedSlots(numerator))
          if (divisor > (out.get(slot) ?? 0n)) out.set(slot, divisor);
      stack.push(...x.args);
    }
  }
}

/** Plain slots loaded as a factor of a product in `expr` (`mul(amount, sload(slot))`). */
function multipliedSlots(expr: Sym): bigint[] {
  const out: bigint[] = [];
  const stack: Sym[] = [expr];
  let seen = 0;
  while (stack.length > 0 && seen++ < SEARCH_BUDGET) {
    const x = stack.pop()!;
    if (!isNode(x)) continue;
    if (x.op === 'mul')
      for (const factor of x.args) {
        const slot = loadedSlot(factor);
        if (slot !== null) out.push(slot);
      }
    if (x.op !== 'div') stack.push(...x.args);
  }
  return out;
}

/** The plain slot a factor reads (`sload(s)`, or a packed field of it: `and(shr(k, sload(s)), m)`). */
function loadedSlot(factor: Sym): bigint | null {
  let cur = factor;
  for (let i = 0; i < 4 && isNode(cur); i++) {
    if (cur.op === 'sload') {
      const shape = slotShape(cur.args[0]!);
      return shape?.kind === 'slot' ? shape.slot : null;
    }
    if (cur.op !== 'and' && cur.op !== 'shr') return null;
    const next = cur.args.find((a) => isNode(a));
    if (next === undefined) return null;
    cur = next;
  }
  return null;
}

/** A privileged path's writes of its number argument to plain slots: the setter of each. */
export function recordFeeSetters(
  t: PathTrace,
  fn: ExtractedFunction,
  out: Map<bigint, Set<string>>,
): void {
  if (!/int/.test(fn.arguments)) return;
  for (const w of t.writes) {
    if (!storesArgument(w.value)) continue;
    const shape = slotShape(w.slot);
    if (shape?.kind !== 'slot') continue;
    const setters = out.get(shape.slot) ?? new Set<string>();
    setters.add(fn.selector);
    out.set(shape.slot, setters);
  }
}

const ALL_ONES = (1n << 256n) - 1n;

/**
 * Does the written word hold the argument itself, whatever the slot held? Plainly, or merged
 * into the old word by via-IR's unoptimised update (`or(and(sload(s), 0), 1000)`).
 */
function storesArgument(value: Sym): boolean {
  if (value === TRANSFER_AMOUNT) return true;
  return [0n, ALL_ONES].every(
    (old) => evaluateWith(value, (n) => (n.op === 'sload' ? old : undefined)) === TRANSFER_AMOUNT,
  );
}

/** The fee slots some privileged function sets. */
export function feeSlots(
  divisors: ReadonlyMap<bigint, bigint>,
  setters: ReadonlyMap<bigint, Set<string>>,
): FeeSlot[] {
  const out: FeeSlot[] = [];
  for (const [slot, divisor] of divisors) {
    const by = setters.get(slot);
    if (by && by.size > 0) out.push({ slot, divisor, setters: [...by] });
  }
  return out;
}
