import { describeCheck } from '../access/index.ts';
import type { ExtractedFunction } from '../types.ts';
import type { CallerCheck, CodeModel, PathTrace } from '../walk/index.ts';
import { privilegedBy, T_CALLER } from '../walk/index.ts';
import { arithmeticChecks, collectBlockers } from './blockers.ts';
import {
  feeSlots,
  newFeeRecords,
  recordFeeDivisors,
  recordFeeSetters,
  recordPrivilegedSlots,
} from './fee-slots.ts';
import { allowanceFindings, balanceFindings, type PathFacts } from './findings.ts';
import {
  type Budget,
  CAPABILITY_BUDGET,
  declaresInfiniteAllowance,
  discoverLayout,
  hex,
  isAdminCheck,
  isSuccess,
  SELECTORS,
  type TokenLayout,
  TRANSFER_AMOUNT,
  walkRecorded,
} from './layout.ts';
import { limitFindings } from './limits.ts';
import type { SlotWrites } from './state.ts';
import { flagRequirements, recordSlotWrites } from './state.ts';
import type { Capability, CapabilityFinding, CapabilityReport } from './types.ts';

/**
 * Owner capabilities read from what the code does, whatever its functions are called.
 *
 * Each function is walked symbolically (walk/interpreter.ts) with call data whose address arguments
 * are distinct, recognisable addresses, and every path keeps its storage writes. The token's
 * layout comes from its own getters: the mapping balanceOf(address) reads is the balances
 * mapping, the slot totalSupply() reads is the supply. Then, on paths that only a privileged
 * caller can take (the branch that proves `msg.sender == owner`, `admins[msg.sender]`, …):
 *
 * - mint: a balance grows (a write of `balance + x`) and no balance shrinks;
 * - leak: the balance of an address taken from the call data shrinks or is overwritten, and the
 *   path never read an allowance of that address for the caller (burnFrom, destroyTokens,
 *   setBalance, a controller's transferFrom);
 * - limit: a write to a flag, a mapping entry of an address from the call data, or a time that
 *   transfer() or transferFrom() tests on a path that fails (revert, invalid, `return false`).
 *   A flag write counts only when the value it can store makes that check fail: a write that can
 *   only store the enabling constant (release(), defrost()) is a one-way opener, recorded in
 *   `oneWay` and not flagged — after it the owner can no longer stop holders.
 *
 * Evidence names the function, the slot and the observation. Pure and bounded.
 */

/**
 * In the holder's own functions (approve, burn(uint256)) a caller looked up in a mapping is the
 * holder's own record (its locks, a whitelist it is on), so only a comparison with one address
 * proves a privileged caller there.
 */
const ONE_ADDRESS_CHECKS = new Set<CallerCheck['kind']>([
  'stored-address',
  'hardcoded-address',
  'external-address',
  'caller-hash',
]);

/**
 * The condition on `t` that proves the caller privileged, with the guard it matched. The caller's
 * own balance is no privilege (`require(balanceOf[msg.sender] > 0)` lets every holder in).
 */
function privilege(t: PathTrace, layout: TokenLayout, holderOwn = false): string | null {
  const balances = layout.balances === null ? null : hex(layout.balances);
  const admin = (c: CallerCheck) =>
    isAdminCheck(c) &&
    !(c.kind === 'caller-mapping' && c.mapping === balances) &&
    !(holderOwn && !ONE_ADDRESS_CHECKS.has(c.kind));
  for (const c of t.conditions) {
    if ((c.cond.taint & T_CALLER) === 0 || !privilegedBy(c.cond, c.taken, admin)) continue;
    const guard = t.guards.find((g) => g.pc === c.pc);
    return guard
      ? `${describeCheck(guard)} (JUMPI at pc ${c.pc})`
      : `branches on the caller at pc ${c.pc}`;
  }
  return null;
}

const isStateChanging = (f: ExtractedFunction) =>
  f.state_mutability !== 'view' && f.state_mutability !== 'pure';
/**
 * Functions whose own effects are the holder's business (approve, increaseAllowance,
 * decreaseAllowance, burn(uint256)): walked like transfer(), for what an owner-only path in them
 * does to balances and allowances only (`approve` that, called by the owner, writes
 * `_allowances[spender][owner]`), never for limits, and not counted as writers the walk missed.
 */
const HOLDER_FUNCTIONS = new Set(['095ea7b3', '39509351', 'a457c2d7', '42966c68']);

export function analyzeCapabilities(
  model: CodeModel,
  functions: readonly ExtractedFunction[],
  labelOf: (f: ExtractedFunction) => string,
): CapabilityReport {
  const budget: Budget = { left: CAPABILITY_BUDGET };
  const byId = new Map(functions.map((f) => [f.selector, f]));
  const layout = discoverLayout(model, byId, budget);
  const slotWrites: SlotWrites = new Map();
  const fees = newFeeRecords();
  // transfer() may set a flag too (a launch on the first sale): its writes count as writers.
  const { blockers, complete: limitsKnown } = collectBlockers(model, byId, layout, budget, (t) => {
    recordSlotWrites(t, slotWrites);
    recordFeeDivisors(t, fees);
  });
  const infinite = new Map<bigint, boolean>();
  const allowedAll = (spender: bigint) => {
    if (!infinite.has(spender))
      infinite.set(spender, declaresInfiniteAllowance(model, byId, spender, budget));
    return infinite.get(spender)!;
  };
  const findings: CapabilityFinding[] = [];
  const conclusive: string[] = [];
  const oneWay: CapabilityReport['oneWay'] = [];
  let walkedAll = true;
  // No balances to take or make and nothing transfer checks: no function can have an effect
  // (a non-token, or code too odd to read), so none is walked and none is demoted.
  const nothingToFind =
    layout.balances === null &&
    blockers.slots.size === 0 &&
    blockers.mappings.size === 0 &&
    blockers.caps.size === 0 &&
    blockers.gates.size === 0;
  for (const fn of nothingToFind ? [] : functions) {
    if (!isStateChanging(fn)) continue;
    // transfer() is the holder's own, but an owner-only path in it may still mint or take
    // (`if (msg.sender == owner) { balances[to] += v; … }`); what it checks is judged above.
    const holder = fn.selector === SELECTORS.transfer || HOLDER_FUNCTIONS.has(fn.selector);
    if (budget.left <= 0) {
      if (!holder) walkedAll = false;
      continue;
    }
    const result = walkRecorded(model, fn, budget);
    if (result.complete) conclusive.push(fn.selector);
    // A walk cut only at loops' third turns reached all the code the function has: what it can
    // write to a plain slot is known (a loop's own writes move with its counter).
    else if (!holder && result.cutOutsideLoops) walkedAll = false;
    const out = new Map<Capability, CapabilityFinding>();
    const openers: string[] = [];
    const undecided: bigint[] = [];
    let privilegedWrites = 0;
    const judge = (
      traces: readonly PathTrace[],
      balances: boolean,
      limits = !holder,
      amount = TRANSFER_AMOUNT,
    ) => {
      const arithmetic = arithmeticChecks(traces);
      for (const t of traces) {
        if (!isSuccess(t) || t.writes.length === 0) continue;
        recordSlotWrites(t, slotWrites);
        const guard = privilege(t, layout, HOLDER_FUNCTIONS.has(fn.selector));
        if (guard === null) continue;
        privilegedWrites++;
        const before = new Set(out.keys());
        const facts: PathFacts = {
          label: labelOf(fn),
          guard,
          layout,
          blockers,
          openers,
          undecided,
          allowedAll,
          arithmetic,
          shortArguments: amount !== TRANSFER_AMOUNT,
        };
        if (balances && !holder) recordFeeSetters(t, fn, fees, amount);
        recordPrivilegedSlots(t, fees);
        if (balances && layout.balances !== null) balanceFindings(t, facts, out, fn);
        if (balances) allowanceFindings(t, facts, out, fn);
        if (limits) limitFindings(t, facts, out, fn);
        for (const [capability, found] of out) {
          if (!before.has(capability)) found.requires = flagRequirements(t);
        }
      }
    };
    judge(result.traces, true);
    // A setter whose argument is range-checked below the walk's amount (`require(pct <= 100)`,
    // an enum whose ABI check refuses 1,000) reverts on every privileged path of the default
    // walk: walked again with 1 (and, below, 0) it shows what it stores.
    const numbers = /int/.test(fn.arguments);
    if (privilegedWrites === 0 && numbers && !holder && budget.left > 0) {
      judge(walkRecorded(model, fn, budget, 'one').traces, true, true, 1n);
      if (!out.has('limit') && budget.left > 0)
        judge(walkRecorded(model, fn, budget, 'flipped').traces, false, true, 0n);
    }
    // The walk's arguments are concrete: `setTransferable(true)` stores the enabling value too.
    // Walked again with flipped arguments, a setter stores the blocking one; a switch does not.
    const pending = openers.length > 0 || undecided.length > 0;
    if (!out.has('limit') && pending && fn.arguments !== '' && budget.left > 0) {
      judge(walkRecorded(model, fn, budget, 'flipped').traces, false);
      // A flag set from a number (`status[a] = s`, 1 meaning frozen) stores 1 on a third walk.
      const numeric = /int/.test(fn.arguments) && openers.length > 0 && budget.left > 0;
      if (!out.has('limit') && numeric) judge(walkRecorded(model, fn, budget, 'one').traces, false);
    }
    if (!out.has('limit') && openers.length > 0) {
      oneWay.push({ selector: fn.selector, detail: openers[0]! });
    }
    findings.push(...out.values());
  }
  return {
    layout,
    findings,
    conclusive,
    limitsKnown,
    oneWay,
    slotWrites,
    fees: feeSlots(fees),
    walkedAll: walkedAll && !nothingToFind,
    steps: CAPABILITY_BUDGET - budget.left,
  };
}
