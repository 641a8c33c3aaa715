import type { ExtractedFunction } from '../types.ts';
import {
  evaluateWith,
  isNode,
  type PathTrace,
  type Sym,
  slotShape,
  unwrap,
} from '../walk/index.ts';
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
  /** Bits the fee's field is shifted by within its slot (0 unless packed: `uint16 a; uint16 b`). */
  shift: number;
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
  /** Fee field (`fieldKey`) → its slot, shift and the largest divisor its share is taken by. */
  divisors: Map<string, { slot: bigint; shift: number; divisor: bigint }>;
  /** Fee field → the plain slots holding the address its share is credited to. */
  recipients: Map<string, Set<bigint>>;
  /** Field of a plain slot → privileged functions that store their number argument there. */
  setters: Map<string, Set<string>>;
  /** Plain slot (decimal) → privileged functions that store an address argument there. */
  addressSetters: Map<string, Set<string>>;
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

/** A field of a plain slot: a packed slot holds several fees, each with its own setter. */
const fieldKey = (slot: bigint, shift: number) => `${slot}:${shift}`;

/** Nodes searched per written value: fee arithmetic sits a few levels deep. */
const SEARCH_BUDGET = 400;

/**
 * The `x * sload(slot) / divisor` shares in what a path writes, by slot; and where a share is
 * credited to a mapping entry keyed by an address read from a plain slot, that slot.
 */
export function recordFeeDivisors(t: PathTrace, records: FeeRecords): void {
  for (const w of t.writes) {
    const stack: Sym[] = [w.value];
    const shares = new Set<string>();
    let seen = 0;
    while (stack.length > 0 && seen++ < SEARCH_BUDGET) {
      const x = stack.pop()!;
      if (!isNode(x)) continue;
      const [numerator, divisor] = x.args;
      if (x.op === 'div' && typeof divisor === 'bigint' && divisor > 1n && numerator !== undefined)
        for (const field of multipliedFields(numerator)) {
          const key = fieldKey(field.slot, field.shift);
          shares.add(key);
          if (divisor > (records.divisors.get(key)?.divisor ?? 0n))
            records.divisors.set(key, { ...field, divisor });
        }
      stack.push(...x.args);
    }
    if (shares.size === 0) continue;
    const shape = slotShape(w.slot);
    const wallet = shape?.kind === 'map' ? loadedField(shape.key) : null;
    if (wallet === null) continue;
    for (const key of shares) {
      const wallets = records.recipients.get(key) ?? new Set<bigint>();
      wallets.add(wallet.slot);
      records.recipients.set(key, wallets);
    }
  }
}

/** Fields of plain slots loaded as a factor of a product in `expr` (`mul(amount, sload(slot))`). */
function multipliedFields(expr: Sym): { slot: bigint; shift: number }[] {
  const out: { slot: bigint; shift: number }[] = [];
  const stack: Sym[] = [expr];
  let seen = 0;
  while (stack.length > 0 && seen++ < SEARCH_BUDGET) {
    const x = stack.pop()!;
    if (!isNode(x)) continue;
    if (x.op === 'mul')
      for (const factor of x.args) {
        const field = loadedField(factor);
        if (field !== null) out.push(field);
      }
    if (x.op !== 'div') stack.push(...x.args);
  }
  return out;
}

/**
 * The field of a plain slot a factor reads: `sload(s)`, or a packed field of it
 * (`and(shr(k, sload(s)), m)`, `div(sload(s), 2^k)`), with its shift.
 */
function loadedField(factor: Sym): { slot: bigint; shift: number } | null {
  const { core, shift } = unwrap(factor);
  if (!isNode(core) || core.op !== 'sload') return null;
  const shape = slotShape(core.args[0]!);
  return shape?.kind === 'slot' ? { slot: shape.slot, shift } : null;
}

/**
 * A privileged path's writes of its number argument to plain slots (the setter of each fee) and of
 * an address argument (the setter of each wallet).
 */
export function recordFeeSetters(
  t: PathTrace,
  fn: ExtractedFunction,
  records: FeeRecords,
  /** The number the walk passed as every number argument. */
  amount: bigint = TRANSFER_AMOUNT,
): void {
  const numbers = /int/.test(fn.arguments);
  const addresses = /address/.test(fn.arguments);
  if (!numbers && !addresses) return;
  const add = (into: Map<string, Set<string>>, key: string) =>
    into.set(key, (into.get(key) ?? new Set<string>()).add(fn.selector));
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind !== 'slot') continue;
    const fields = numbers ? storedArgumentFields(w.value, amount) : [];
    for (const shift of fields) add(records.setters, fieldKey(shape.slot, shift));
    if (fields.length === 0 && addresses && storesAddress(w.value))
      add(records.addressSetters, String(shape.slot));
  }
}

const ALL_ONES = (1n << 256n) - 1n;

/** Bits of the argument's field that must read back as the argument (1000 needs ten). */
const FIELD_CHECK = (1n << 10n) - 1n;

/**
 * The fields of the written word that hold the number argument itself, whatever the slot held:
 * plainly, merged into the old word by via-IR's unoptimised update (`or(and(sload(s), 0), 1000)`),
 * or as fields of a packed slot (`uint16 buyFee; uint16 sellFee`:
 * `or(and(sload(s), not(shl(k, m))), shl(k, 1000))`, the optimizer merging a setter's fields into
 * one word). A field holds it when it reads back as the argument over a zero word and over all
 * ones (an increment or an `or` into the old word is no store: 999 or 1023 read back).
 */
function storedArgumentFields(value: Sym, amount: bigint): number[] {
  if (value === amount) return [0];
  const fresh = evaluateWith(value, (n) => (n.op === 'sload' ? 0n : undefined));
  const overOnes = evaluateWith(value, (n) => (n.op === 'sload' ? ALL_ONES : undefined));
  if (fresh === null || overOnes === null) return [];
  const field = (word: bigint, shift: number) => (word >> BigInt(shift)) & FIELD_CHECK;
  const out: number[] = [];
  for (let shift = 0; shift < 256; shift += 8)
    if (field(fresh, shift) === amount && field(overOnes, shift) === amount) out.push(shift);
  return out;
}

/** An address argument stored whole, whatever else the slot's word held (a packed owner). */
function storesAddress(value: Sym): boolean {
  const stored = evaluateWith(value, (n) => (n.op === 'sload' ? 0n : undefined));
  return typeof stored === 'bigint' && isArgumentAddress(stored);
}

/** The fee fields some privileged function sets, with the wallets their share goes to. */
export function feeSlots(records: FeeRecords): FeeSlot[] {
  const out: FeeSlot[] = [];
  for (const [key, { slot, shift, divisor }] of records.divisors) {
    const by = records.setters.get(key);
    if (!by || by.size === 0) continue;
    const wallets = [...(records.recipients.get(key) ?? [])].map((wallet) => ({
      slot: wallet,
      setters: [...(records.addressSetters.get(String(wallet)) ?? [])],
      privileged: records.privileged.has(wallet),
    }));
    out.push({ slot, shift, divisor, setters: [...by], wallets });
  }
  return out;
}
