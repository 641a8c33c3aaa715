import type { PathTrace } from '../walk/index.ts';
import {
  changedBits,
  contains,
  evaluate,
  flagReads,
  type Node,
  type Sym,
  slotShape,
  T_CALLER,
} from '../walk/index.ts';
import { storedBit } from './one-way.ts';

/**
 * Capabilities the state of the chain has closed for good. A capability's path may need a flag
 * in a plain slot to hold one value (`require(!mintingFinished)`, `require(!released)`, a
 * one-shot `require(!initialized)`); when storage holds the other value and no function of the
 * contract can store the needed one again, no one can take that path any more. Pure: the caller
 * reads the slots (static.ts).
 */

/** A flag a capability's path needs: bit `shift` of plain slot `slot` must be `bit`. */
export interface FlagRequirement {
  slot: bigint;
  shift: number;
  bit: 0n | 1n;
  /** Where the path tests it, for the evidence. */
  pc: number;
  /** The branch as the path took it, to evaluate with the word storage really holds. */
  cond: Sym;
  taken: boolean;
  load: Node;
}

/** The flags a path tested on the way to its effect, each with the only value that lets it pass. */
export function flagRequirements(t: PathTrace): FlagRequirement[] {
  const out: FlagRequirement[] = [];
  for (const c of t.conditions) {
    // Caller checks decide who, not when; times are no flags.
    if ((c.cond.taint & T_CALLER) !== 0) continue;
    if (contains(c.cond, (n) => n.op === 'timestamp' || n.op === 'number', 40)) continue;
    for (const read of flagReads(c.cond)) {
      const shape = slotShape(read.load.args[0]!);
      if (shape?.kind !== 'slot') continue;
      const passes = (word: bigint) => {
        const outcome = evaluate(c.cond, read.load, word);
        return outcome === null ? null : (outcome !== 0n) === c.taken;
      };
      const whenClear = passes(0n);
      const whenSet = passes(1n << BigInt(read.shift));
      if (whenClear === null || whenSet === null || whenClear === whenSet) continue;
      out.push({
        slot: shape.slot,
        shift: read.shift,
        bit: whenSet ? 1n : 0n,
        pc: c.pc,
        cond: c.cond,
        taken: c.taken,
        load: read.load,
      });
    }
  }
  return out;
}

/** Every value any walked function can write to each plain slot, on a path that succeeds. */
export type SlotWrites = Map<bigint, Sym[]>;

export function recordSlotWrites(t: PathTrace, writes: SlotWrites): void {
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind !== 'slot') continue;
    const list = writes.get(shape.slot) ?? [];
    list.push(w.value);
    writes.set(shape.slot, list);
  }
}

/** Does the path's branch go the way the path took it when the slot holds `word`? */
const holds = (r: FlagRequirement, word: bigint) => {
  const outcome = evaluate(r.cond, r.load, word);
  return outcome !== null && (outcome !== 0n) === r.taken;
};

/**
 * Could this write let the requirement hold again? A packed write that keeps the flag's bit (the
 * owner written beside it) cannot; a constant is evaluated; a stored bit that is a constant is
 * compared; anything else (the call data, arithmetic) could.
 */
function reopens(r: FlagRequirement, value: Sym): boolean {
  if (((changedBits(value, r.slot) >> BigInt(r.shift)) & 1n) === 0n) return false;
  if (typeof value === 'bigint') return holds(r, value);
  const bit = storedBit(value, r.slot, r.shift);
  return bit === null || bit === r.bit;
}

/**
 * The first requirement storage breaks for good, or null: the path's branch goes the other way
 * with the word the slot holds now, and no recorded write can make it go that way again.
 */
export function closedRequirement(
  requirements: readonly FlagRequirement[],
  storage: ReadonlyMap<bigint, bigint>,
  writes: SlotWrites,
): FlagRequirement | null {
  for (const r of requirements) {
    const word = storage.get(r.slot);
    if (word === undefined || holds(r, word) || evaluate(r.cond, r.load, word) === null) continue;
    if (!(writes.get(r.slot) ?? []).some((value) => reopens(r, value))) return r;
  }
  return null;
}
