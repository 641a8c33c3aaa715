import type { Blockers } from './capability-layout.ts';
import { contains, evaluate } from './storage-shapes.ts';
import type { Node, Sym } from './symbolic.ts';

/**
 * One-way switches: a privileged write to a flag transfer() checks, that can only store the value
 * under which the check passes (release(), releaseTokenTransfer(), defrost()). After it, the owner
 * cannot stop holders any more, so it is no limit. Pure.
 */

const ALL_BITS = (1n << 256n) - 1n;

type SlotBlocker = Blockers['slots'] extends Map<bigint, infer B> ? B : never;

/**
 * The bit at `shift` that writing `value` to `slot` leaves, whatever the slot held before, or
 * null when it depends on something else (the call data, the caller, another slot).
 */
export function storedBit(value: Sym, slot: bigint, shift: number): bigint | null {
  const s = BigInt(shift);
  if (typeof value === 'bigint') return (value >> s) & 1n;
  let old: Node | null = null;
  contains(
    value,
    (n) => {
      if (n.op !== 'sload' || n.args[0] !== slot) return false;
      old = n;
      return true;
    },
    60,
  );
  // No read of the old word: the value depends on something unknown.
  if (old === null) return null;
  const whenClear = evaluate(value, old, 0n);
  const whenSet = evaluate(value, old, ALL_BITS);
  if (whenClear === null || whenSet === null) return null;
  const bit = (whenClear >> s) & 1n;
  return bit === ((whenSet >> s) & 1n) ? bit : null;
}

/**
 * Can this write only store values under which every failing check on the flag passes? Times
 * (a lock until some date) and values that depend on anything but constants always count as
 * limits; a check whose outcome could not be read counts as blocking either way.
 */
export function oneWayWrite(
  value: Sym,
  slot: bigint,
  shifts: readonly number[],
  blocker: SlotBlocker,
): boolean {
  if (blocker.timed) return false;
  return shifts.every((shift) => {
    const bit = storedBit(value, slot, shift);
    if (bit === null) return false;
    return bit === 1n ? !blocker.blocksWhenSet : !blocker.blocksWhenClear;
  });
}
