import type { PathTrace } from '../walk/index.ts';
import {
  comparedReads,
  contains,
  evaluate,
  evaluateWith,
  flagReads,
  isNode,
  type Node,
  type Sym,
  sameSym,
  slotShape,
} from '../walk/index.ts';
import type { Blockers, EntryBlocker } from './blockers.ts';
import type { TokenLayout } from './layout.ts';

/**
 * One-way switches: a privileged write to a flag transfer() checks, that can only store the value
 * under which the check passes (release(), releaseTokenTransfer(), defrost()). After it, the owner
 * cannot stop holders any more, so it is no limit. The same holds for one account's entry: an
 * unfreeze(address) that can only clear `frozen[account]`, a write of zero to the amount held
 * back from an account. Pure.
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

/** The block a flag check is judged at, should it also read the time. */
const PRESENT = { timestamp: 1_800_000_000n, number: 25_000_000n };

/**
 * The words a write of `value` to `slot` can leave, whatever the slot held before (two
 * candidates when it keeps some old bits), or null when it depends on something unknown.
 */
function storedWords(value: Sym, slot: Sym): bigint[] | null {
  if (typeof value === 'bigint') return [value];
  let old: Node | null = null;
  contains(
    value,
    (n) => {
      if (n.op !== 'sload' || !sameSym(n.args[0]!, slot)) return false;
      old = n;
      return true;
    },
    60,
  );
  if (old === null) {
    // No read of the old word: a value that is one word whatever else it reads (`supply * 0`).
    const word = evaluateWith(value, () => undefined);
    return word === null ? null : [word];
  }
  const words = [evaluate(value, old, 0n), evaluate(value, old, ALL_BITS)];
  return words.every((w) => w !== null) ? (words as bigint[]) : null;
}

/**
 * Can this write of an account's entry only store values under which every failing check on it
 * passes? `unfreeze(account)` storing false where transfer fails on true, a release storing zero
 * as the amount held back or as the time locked until. Anything unknown counts as a limit.
 */
export function oneWayEntryWrite(value: Sym, slot: Sym, blocker: EntryBlocker): boolean {
  const words = storedWords(value, slot);
  if (words === null) return false;
  // Nothing held back, nothing to wait for. Any other amount or time counts: the walk's call
  // data is concrete, so a `lock(account, until)` storing its argument reads as a constant.
  if (blocker.kind !== 'flag') return words.every((w) => w === 0n);
  return blocker.checks.length > 0 && words.every((word) => passes(blocker.checks, word));
}

type Checks = EntryBlocker['checks'];

/** Does every failing check pass when its load holds `word` (at the present block)? */
function passes(checks: Checks, word: bigint): boolean {
  return checks.every((c) => {
    const outcome = evaluateWith(c.cond, (n) =>
      n === c.load
        ? word
        : n.op === 'timestamp'
          ? PRESENT.timestamp
          : n.op === 'number'
            ? PRESENT.number
            : undefined,
    );
    // The failing path took the branch `taken`: the check passes when the outcome differs.
    return outcome !== null && (outcome !== 0n) !== c.taken;
  });
}

/**
 * Does this write of a cap on the amount moved (`maxSell`) store a value under which transfer's
 * own amount fails a check? Proven only: a value that cannot be read, or a cap some amount can
 * pass (a bounded setter, removeLimits() storing the maximum), stops no holder. A per-account
 * entry other than a balance in the check (`soldToday[from] + amount <= maxSellPerDay`) is read
 * at zero: a holder who never sold, as every holder is on empty storage. A balance stays
 * unknown: a cap on what a wallet holds, or a share of a balance, is not proven that way.
 */
export function capBlocks(
  value: Sym,
  slot: bigint,
  checks: Checks,
  balances: bigint | null = null,
): boolean {
  const words = storedWords(value, slot) ?? [];
  const fresh = (n: Node) => {
    if (n.op !== 'sload') return false;
    const shape = slotShape(n.args[0]!);
    return shape !== null && shape.kind !== 'slot' && shape.base !== balances;
  };
  return words.some((word) =>
    checks.some((c) => {
      const outcome = evaluateWith(c.cond, (n) =>
        n === c.load ? word : fresh(n) ? 0n : undefined,
      );
      return outcome !== null && (outcome !== 0n) === c.taken;
    }),
  );
}

/** The block's own clock: a write of exactly this is "now". */
const isClock = (x: Sym) => isNode(x) && (x.op === 'timestamp' || x.op === 'number');

const ALL_ONES = (1n << 256n) - 1n;
/** A stand-in for the clock when evaluating a written word: any value far from 0 and all ones. */
const CLOCK_PROBE = 0x1234567n;

/**
 * Does the written word hold the block time or number itself, whatever the slot held? The
 * clock, masked (`and(number, mask)`), or merged into the old word by via-IR's unoptimised
 * update (`or(and(sload(s), 0), shl(0, number))`).
 */
function storesClock(value: Sym): boolean {
  const stored = isNode(value) && value.op === 'and' ? value.args.find(isNode) : value;
  if (stored !== undefined && isClock(stored)) return true;
  return [0n, ALL_ONES].every(
    (old) =>
      evaluateWith(value, (n) =>
        isClock(n) ? CLOCK_PROBE : n.op === 'sload' ? old : undefined,
      ) === CLOCK_PROBE,
  );
}

/**
 * A launch time set once: the write stores the current block time or number itself (no offset
 * the caller chooses) into `slot`, on a path that can run only once: it needed `slot` to hold
 * zero (`require(launchedAt == 0); launchedAt = block.number`), or a flag it flips with a
 * constant (`require(!tradingOpen); tradingOpen = true; launchTime = block.timestamp`). A
 * check against `launchedAt + N` then passes N blocks later whatever the owner does, so it is
 * no lever on holders: anti-bot blocks after a launch. A setter of N is judged on its own.
 */
export function launchOnce(t: PathTrace, value: Sym, slot: bigint): boolean {
  if (!storesClock(value)) return false;
  return t.conditions.some((c) =>
    flagReads(c.cond).some((read) => {
      const shape = slotShape(read.load.args[0]!);
      if (shape?.kind !== 'slot') return false;
      const holds = (word: bigint) => {
        const outcome = evaluate(c.cond, read.load, word);
        return outcome === null ? null : (outcome !== 0n) === c.taken;
      };
      // The slot itself at zero, and no time in it.
      if (shape.slot === slot)
        return (
          read.shift === 0 && holds(0n) === true && holds(1n) === false && !holds(PRESENT.number)
        );
      // A flag the same path turns, for good, to the value its check refuses.
      const whenClear = holds(0n);
      const whenSet = holds(1n << BigInt(read.shift));
      if (whenClear === null || whenSet === null || whenClear === whenSet) return false;
      const needed = whenSet ? 1n : 0n;
      return t.writes.some((w) => {
        const written = slotShape(w.slot);
        if (written?.kind !== 'slot' || written.slot !== shape.slot) return false;
        const bit = storedBit(w.value, shape.slot, read.shift);
        return bit !== null && bit !== needed;
      });
    }),
  );
}

/**
 * A setter that compares its value with the supply (`require(max >= totalSupply / 1000)`) keeps
 * the cap above a share of it: the walk's supply is unknown, so such a path proves no stop. The
 * overflow check of a cap computed from the supply (`supply * pct / 100`) is no such comparison.
 */
export function boundedBySupply(
  t: PathTrace,
  layout: TokenLayout,
  /** Checked-arithmetic branches (`supply * pct` overflows): they bound nothing. */
  arithmetic: ReadonlySet<number> = new Set(),
): boolean {
  if (layout.totalSupply === null) return false;
  return t.conditions.some(
    (c) =>
      !arithmetic.has(c.pc) &&
      comparedReads(c.cond).some((load) => load.args[0] === layout.totalSupply),
  );
}
