import type { ExtractedFunction } from '../types.ts';
import { evaluateWith, isNode, type PathTrace, type Sym, slotShape } from '../walk/index.ts';
import { isArgumentAddress, TRANSFER_AMOUNT } from './layout.ts';
/**
 * Fees a transfer takes as a share of the amount, and who sets them: a success path of
 * transfer() or transferFrom() that writes `amount * sload(slot) / divisor` (into the fee
 * wallet's balance, or the amount less it into the recipient's) names the slot and its divisor;
 * a privileged path that stores its number argument in that slot is the fee's setter. With the
 * highest value the setter accepts (static/fee-caps.ts, searched by execution) this tells
 * whether the fee can take the whole amount: a cap at or above the divisor is a limit, whatever
 * the setter is called and whether or not the token has a pool yet. A fee credited to the balance
 * of an address read from storage (`balances[feeWallet] += fee`) that a privileged function sets
 * (`setFeeWallet(address)`, or transferOwnership() when the fee goes to owner()) is routed to a
 * wallet the owner chooses: uncapped, a siphon.
 */

export interface FeeSlot {
  slot: bigint;
  /** The largest constant the transfer divides the slot's share by (10,000 for basis points). */
  divisor: bigint;
  /** Selectors of the privileged functions that store their argument in the slot. */
  setters: string[];
  /**
   * Slots holding the address the fee is credited to: the privileged functions that set each, and
   * whether it is the privileged caller's own slot (the fee goes to owner()).
   */
  wallets: { slot: bigint; setters: string[]; privileged: boolean }[];
}

/** What the walks of transfer() and of privileged functions found about fees. */
export interface FeeRecords {
  /** Fee slot → the largest divisor its share is taken by. */
  divisors: Map<bigint, bigint>;
  /** Fee slot → the plain slots holding the address its share is credited to. */
  recipients: Map<bigint, Set<bigint>>;
  /** Plain slot → privileged functions that store their number argument there. */
  setters: Map<bigint, Set<string>>;
  /** Plain slot → privileged functions that store an address argument there. */
  addressSetters: Map<bigint, Set<string>>;
  /** Plain slots holding an address a privileged path compares the caller with (the owner's). */
  privileged: Set<bigint>;
}

export const newFeeRecords = (): FeeRecords => ({
  divisors: new Map(),
  recipients: new Map(),
  setters: new Map(),
  addressSetters: new Map(),
  privileged: new Set(),
});

/** The slots of the stored addresses a privileged path's caller checks compare the caller with. */
export function recordPrivilegedSlots(t: PathTrace, records: FeeRecords): void {
  for (const g of t.guards)
    if (g.kind === 'stored-address' && g.slot) records.privileged.add(BigInt(g.slot));
}

/** Nodes searched per written value: fee arithmetic sits a few levels deep. */
const SEARCH_BUDGET = 400;

/**
 * The `x * sload(slot) / divisor` shares in what a path writes, by slot; and where a share is
 * credited to a mapping entry keyed by an address read from a plain slot, that slot.
 */
export function recordFeeDivisors(t: PathTrace, records: FeeRecords): void {
  for (const w of t.writes) {
    const stack: Sym[] = [w.value];
    const shares = new Set<bigint>();
    let seen = 0;
    while (stack.length > 0 && seen++ < SEARCH_BUDGET) {
      const x = stack.pop()!;
      if (!isNode(x)) continue;
      const [numerator, divisor] = x.args;
      if (x.op === 'div' && typeof divisor === 'bigint' && divisor > 1n && numerator !== undefined)
        for (const slot of multipliedSlots(numerator)) {
          shares.add(slot);
          if (divisor > (records.divisors.get(slot) ?? 0n)) records.divisors.set(slot, divisor);
        }
      stack.push(...x.args);
    }
    if (shares.size === 0) continue;
    const shape = slotShape(w.slot);
    const wallet = shape?.kind === 'map' ? loadedSlot(shape.key) : null;
    if (wallet === null) continue;
    for (const slot of shares) {
      const wallets = records.recipients.get(slot) ?? new Set<bigint>();
      wallets.add(wallet);
      records.recipients.set(slot, wallets);
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

/**
 * A privileged path's writes of its number argument to plain slots (the setter of each fee) and of
 * an address argument (the setter of each wallet).
 */
export function recordFeeSetters(t: PathTrace, fn: ExtractedFunction, records: FeeRecords): void {
  const numbers = /int/.test(fn.arguments);
  const addresses = /address/.test(fn.arguments);
  if (!numbers && !addresses) return;
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind !== 'slot') continue;
    const into =
      numbers && storesArgument(w.value)
        ? records.setters
        : addresses && storesAddress(w.value)
          ? records.addressSetters
          : null;
    if (into === null) continue;
    const setters = into.get(shape.slot) ?? new Set<string>();
    setters.add(fn.selector);
    into.set(shape.slot, setters);
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

/** An address argument stored whole, whatever else the slot's word held (a packed owner). */
function storesAddress(value: Sym): boolean {
  const stored = evaluateWith(value, (n) => (n.op === 'sload' ? 0n : undefined));
  return typeof stored === 'bigint' && isArgumentAddress(stored);
}

/** The fee slots some privileged function sets, with the wallets their share goes to. */
export function feeSlots(records: FeeRecords): FeeSlot[] {
  const out: FeeSlot[] = [];
  for (const [slot, divisor] of records.divisors) {
    const by = records.setters.get(slot);
    if (!by || by.size === 0) continue;
    const wallets = [...(records.recipients.get(slot) ?? [])].map((wallet) => ({
      slot: wallet,
      setters: [...(records.addressSetters.get(wallet) ?? [])],
      privileged: records.privileged.has(wallet),
    }));
    out.push({ slot, divisor, setters: [...by], wallets });
  }
  return out;
}
