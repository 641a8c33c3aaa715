import type { ExtractedFunction } from '../types.ts';
import type { PathTrace, PathWrite } from '../walk/index.ts';
import {
  changedBits,
  entryKey,
  isNode,
  memberOffset,
  type Sym,
  sameSym,
  slotShape,
} from '../walk/index.ts';
import { finding, type PathFacts } from './findings.ts';
import { fromCalldata, hex, keyName, type TokenLayout, TRANSFER_AMOUNT } from './layout.ts';
import {
  boundedBySupply,
  capBlocks,
  launchOnce,
  oneWayEntryWrite,
  oneWayWrite,
} from './one-way.ts';
import type { Capability, CapabilityFinding } from './types.ts';

/**
 * The limit one privileged path that succeeds puts on holders (capabilities.ts): a write to a
 * flag, a time, a cap or an account's entry that transfer() or transferFrom() fails on
 * (capabilities/blockers.ts), unless the write can only let transfers through (capabilities/one-way.ts).
 */

/** A write to a cap transfer checks that makes its own amount fail: the finding, or null. */
function capFinding(
  t: PathTrace,
  f: PathFacts,
  fn: ExtractedFunction,
  w: PathTrace['writes'][number],
  slot: bigint,
): CapabilityFinding | null {
  const cap = f.blockers.caps.get(slot);
  if (!cap) return null;
  f.undecided.push(slot);
  if (
    boundedBySupply(t, f.layout, f.arithmetic) ||
    !capBlocks(w.value, slot, cap.checks, f.layout.balances)
  )
    return null;
  return finding(
    fn,
    'limit',
    // A cap that binds sales (`to == pair`, or every transfer: SafeMoon's max-tx set to zero)
    // stops selling; one that spares them (on buys, `to != pair`) only limits buyers, an
    // anti-whale limit reported as such.
    cap.bindsSales ? 'trading-switch' : 'max-tx',
    `${f.label}, on a path that ${f.guard}, writes slot ${hex(slot)} at pc ${w.pc} with a cap on the amount ${cap.sell ? 'sold' : 'moved'} that a transfer of ${TRANSFER_AMOUNT} base units fails${cap.bindsSales ? ', sales included' : ''}; ${cap.where}`,
  );
}

const ADDRESS_BITS = (1n << 160n) - 1n;

/**
 * A write of the address of a contract that decides transfers (an external gate,
 * capabilities/blockers.ts): the owner can swap the decider, which can stop any holder, or all.
 * Reported as a limit and as GoPlus's `external_call`.
 */
function gateFinding(
  f: PathFacts,
  fn: ExtractedFunction,
  w: PathTrace['writes'][number],
  slot: bigint,
): CapabilityFinding | null {
  const gate = f.blockers.gates.get(slot);
  if (!gate || (changedBits(w.value, slot) & (ADDRESS_BITS << BigInt(gate.shift))) === 0n)
    return null;
  return {
    ...finding(
      fn,
      'limit',
      'trading-switch',
      `${f.label}, on a path that ${f.guard}, writes the address in slot ${hex(slot)} at pc ${w.pc} of the contract that decides transfers: ${gate.where}; the owner can swap the contract that decides every transfer (external call)`,
    ),
    externalCall: true,
  };
}

export function limitFindings(
  t: PathTrace,
  f: PathFacts,
  out: Map<Capability, CapabilityFinding>,
  fn: ExtractedFunction,
): void {
  if (out.has('limit')) return;
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind === 'slot') {
      const gated = gateFinding(f, fn, w, shape.slot);
      if (gated) {
        out.set('limit', gated);
        return;
      }
      const capped = capFinding(t, f, fn, w, shape.slot);
      if (capped) {
        out.set('limit', capped);
        return;
      }
      const blocker = f.blockers.slots.get(shape.slot);
      if (!blocker || (blocker.timed && f.shortArguments)) continue;
      const bits = changedBits(w.value, shape.slot);
      const shifts = [...blocker.shifts].filter((s) => (bits >> BigInt(s)) & 1n);
      if (shifts.length === 0) continue;
      if (launchOnce(t, w.value, shape.slot)) {
        f.openers.push(
          `${f.label}, on a path that ${f.guard} and can run once (it needs slot ${hex(shape.slot)} at zero or flips its own flag for good), writes the current block time or number to slot ${hex(shape.slot)} at pc ${w.pc}: a launch time set once; ${blocker.where}. One-way: can only enable transfers`,
        );
        continue;
      }
      if (oneWayWrite(w.value, shape.slot, shifts, blocker)) {
        f.openers.push(
          `${f.label}, on a path that ${f.guard}, writes slot ${hex(shape.slot)} at pc ${w.pc} with a constant under which transfers pass; ${blocker.where}. One-way: can only enable transfers`,
        );
        continue;
      }
      // A flag that stops transfers when set is a pause; one they need set (tradingOpen,
      // released) or a time they wait for is a trading switch.
      const pause = !blocker.timed && blocker.blocksWhenSet;
      const what = blocker.timed
        ? 'a time that transfers are checked against'
        : pause
          ? 'a flag that stops transfers when set'
          : 'a flag that transfers need set';
      out.set(
        'limit',
        finding(
          fn,
          'limit',
          pause ? 'pause' : 'trading-switch',
          `${f.label}, on a path that ${f.guard}, writes ${what} in slot ${hex(shape.slot)} at pc ${w.pc}; ${blocker.where}`,
        ),
      );
      return;
    }
    const key = shape ? entryKey(shape) : null;
    const blocker = shape ? f.blockers.mappings.get(shape.base) : undefined;
    // A flag inside the balances struct: only a write of that member is one.
    const sameMember = blocker?.member === undefined || memberOffset(w.slot) === blocker.member;
    if (shape && key !== null && fromCalldata(key) && blocker && sameMember) {
      const where = blocker.where;
      // An amount held back from what the same path credits to that account (an allocation
      // vested to its holder): it locks only what the path gives, no tokens the holder had.
      if (blocker.kind === 'amount' && locksWhatItGives(t, w, key, f.layout)) continue;
      if (!blocker.listed && oneWayEntryWrite(w.value, w.slot, blocker)) {
        f.openers.push(
          `${f.label}, on a path that ${f.guard}, writes the entry of ${keyName(key)} in the mapping at slot ${hex(shape.base)} at pc ${w.pc} with a value under which transfers pass; ${where}. One-way: can only release an account`,
        );
        continue;
      }
      out.set(
        'limit',
        finding(
          fn,
          'limit',
          'blacklist',
          `${f.label}, on a path that ${f.guard}, writes the entry of ${keyName(key)} in the mapping at slot ${hex(shape.base)} at pc ${w.pc}; ${where}`,
        ),
      );
      return;
    }
  }
}

/** Does `t` credit `balances[key]` with the very amount `lock` stores for that account? */
function locksWhatItGives(t: PathTrace, lock: PathWrite, key: Sym, layout: TokenLayout): boolean {
  return t.writes.some((c) => {
    const shape = slotShape(c.slot);
    if (shape?.kind !== 'map' || shape.base !== layout.balances || !sameSym(shape.key, key))
      return false;
    const v = c.value;
    return isNode(v) && v.op === 'add' && v.args.some((a) => sameSym(a, lock.value));
  });
}
