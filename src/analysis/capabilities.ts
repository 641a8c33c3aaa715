import { describeCheck } from './access-control.ts';
import {
  type Blockers,
  type Budget,
  CAPABILITY_BUDGET,
  collectBlockers,
  discoverLayout,
  fromCalldata,
  hex,
  isAdminCheck,
  isSuccess,
  keyName,
  SELECTORS,
  type TokenLayout,
  TRANSFER_AMOUNT,
  walkRecorded,
} from './capability-layout.ts';
import type { CodeModel, PathTrace, PathWrite } from './interpreter.ts';
import { capBlocks, oneWayEntryWrite, oneWayWrite } from './one-way.ts';
import {
  asAddress,
  callerIs,
  changedBits,
  comparedReads,
  contains,
  entryKey,
  privilegedBy,
  type SlotShape,
  slotShape,
} from './storage-shapes.ts';
import { isCallerLeaf, isNode, type Sym, T_CALLER } from './symbolic.ts';
import type { AdminFamily, Evidence, ExtractedFunction } from './types.ts';

/**
 * Owner capabilities read from what the code does, whatever its functions are called.
 *
 * Each function is walked symbolically (interpreter.ts) with call data whose address arguments
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

export type Capability = 'mint' | 'leak' | 'limit';

export interface CapabilityFinding {
  selector: string;
  arguments: string;
  capability: Capability;
  family: AdminFamily;
  evidence: Evidence[];
}

export type { TokenLayout } from './capability-layout.ts';
export { effectCalldata } from './capability-layout.ts';

export interface CapabilityReport {
  layout: TokenLayout;
  findings: CapabilityFinding[];
  /** Selectors walked to the end: for these, no finding means none of the effects. */
  conclusive: string[];
  /** transfer() was walked to the end, so what it checks before failing is known. */
  limitsKnown: boolean;
  /** Privileged functions whose only limit-like write can just enable transfers. */
  oneWay: { selector: string; detail: string }[];
  steps: number;
}

/** The condition on `t` that proves the caller privileged, with the guard it matched. */
function privilege(t: PathTrace): string | null {
  for (const c of t.conditions) {
    if ((c.cond.taint & T_CALLER) === 0 || !privilegedBy(c.cond, c.taken, isAdminCheck)) continue;
    const guard = t.guards.find((g) => g.pc === c.pc);
    return guard
      ? `${describeCheck(guard)} (JUMPI at pc ${c.pc})`
      : `branches on the caller at pc ${c.pc}`;
  }
  return null;
}

type Grow = 'increase' | 'decrease' | 'set';
function balanceChange(w: PathWrite): Grow {
  if (contains(w.value, (n) => n.op === 'sub')) return 'decrease';
  if (contains(w.value, (n) => n.op === 'add')) return 'increase';
  return 'set';
}

/** Did the path read an allowance of `holder` for the caller (a mapping of mappings keyed by both)? */
function readsAllowance(t: PathTrace, holder: Sym): boolean {
  const holderAddress = asAddress(holder);
  return t.reads.some((r) => {
    const s = slotShape(r);
    if (s?.kind !== 'map2') return false;
    const keys = [s.outer, s.inner];
    return keys.some(isCallerLeaf) && keys.some((k) => asAddress(k) === holderAddress);
  });
}

interface PathFacts {
  label: string;
  guard: string;
  layout: TokenLayout;
  blockers: Blockers;
  /** One-way writes seen so far for this function (details), filled by limitFindings. */
  openers: string[];
  /** Caps written with a value transfer passes: the flipped walk may store a blocking one. */
  undecided: bigint[];
}

function balanceFindings(
  t: PathTrace,
  f: PathFacts,
  out: Map<Capability, CapabilityFinding>,
  fn: ExtractedFunction,
): void {
  const { layout } = f;
  const entries = t.writes
    .map((w) => ({ w, shape: slotShape(w.slot) }))
    .filter(
      (x): x is { w: PathWrite; shape: Extract<SlotShape, { kind: 'map' }> } =>
        x.shape?.kind === 'map' && x.shape.base === layout.balances,
    );
  if (entries.length === 0) return;
  const changes = entries.map((e) => ({ ...e, grow: balanceChange(e.w) }));
  const base = `balances (the mapping at slot ${hex(layout.balances!)} that balanceOf reads)`;
  const supply = t.writes.find((w) => {
    const s = slotShape(w.slot);
    return s?.kind === 'slot' && s.slot === layout.totalSupply;
  });
  const to = changes.find((c) => c.grow === 'increase');
  // Tokens moved, not made: some other balance shrank or was zeroed on the same path.
  const moved =
    to !== undefined &&
    changes.some(
      (c) => c.grow === 'decrease' || (c.grow === 'set' && c.shape.key !== to.shape.key),
    );
  if (to && !moved && !out.has('mint')) {
    const supplyText = supply
      ? ` and writes totalSupply (slot ${hex(layout.totalSupply!)}) at pc ${supply.pc}`
      : ', with no balance taken from anyone';
    out.set(
      'mint',
      finding(
        fn,
        'mint',
        'mint',
        `${f.label}, on a path that ${f.guard}, adds to ${base}[${keyName(to.shape.key) ?? 'an account'}] at pc ${to.w.pc}${supplyText}: new tokens`,
      ),
    );
  }
  for (const c of changes) {
    if (
      c.grow === 'increase' ||
      !fromCalldata(c.shape.key) ||
      readsAllowance(t, c.shape.key) ||
      out.has('leak')
    )
      continue;
    if (t.conditions.some((k) => callerIs(k.cond, k.taken, asAddress(c.shape.key)!))) continue;
    // Zeroing a new array element or struct member inside the entry (a checkpoint push) takes nothing.
    if (c.grow === 'set' && c.w.value === 0n && !c.shape.direct) continue;
    const moved = changes.some((o) => o !== c && o.grow === 'increase');
    const how = c.grow === 'decrease' ? 'takes from' : 'overwrites';
    const detail = `${f.label}, on a path that ${f.guard}, ${how} ${base}[${keyName(c.shape.key)}] at pc ${c.w.pc} without reading any allowance that holder gave the caller${moved ? ', and credits another account' : ''}`;
    out.set(
      'leak',
      finding(fn, 'leak', moved || c.grow === 'set' ? 'balance-change' : 'burn-from', detail),
    );
  }
}

/**
 * A setter that compares its value with the supply (`require(max >= totalSupply / 1000)`) keeps
 * the cap above a share of it: the walk's supply is unknown, so such a path proves no stop.
 */
function boundedBySupply(t: PathTrace, layout: TokenLayout): boolean {
  if (layout.totalSupply === null) return false;
  return t.conditions.some((c) =>
    comparedReads(c.cond).some((load) => load.args[0] === layout.totalSupply),
  );
}

/**
 * An allowance over a holder's tokens, written by a privileged path for a holder taken from the
 * call data (`_allowances[holder][owner] = max`): transferFrom then moves that holder's tokens
 * without their consent. A write that only lowers or clears an allowance grants nothing.
 */
function allowanceFindings(
  t: PathTrace,
  f: PathFacts,
  out: Map<Capability, CapabilityFinding>,
  fn: ExtractedFunction,
): void {
  const base = f.layout.allowances;
  if (base === null || out.has('leak')) return;
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind !== 'map2' || shape.base !== base || !fromCalldata(shape.outer)) continue;
    if (w.value === 0n || contains(w.value, (n) => n.op === 'sub')) continue;
    const stored = isNode(shape.inner) && shape.inner.op === 'sload' ? shape.inner.args[0]! : null;
    const spender =
      keyName(shape.inner) ??
      (typeof stored === 'bigint' ? `the address in slot ${hex(stored)}` : 'another address');
    out.set(
      'leak',
      finding(
        fn,
        'leak',
        'balance-change',
        `${f.label}, on a path that ${f.guard}, writes allowances (the mapping at slot ${hex(base)} that allowance reads)[${keyName(shape.outer)}][${spender}] at pc ${w.pc}: an allowance that holder never gave, which transferFrom spends`,
      ),
    );
    return;
  }
}

function limitFindings(
  t: PathTrace,
  f: PathFacts,
  out: Map<Capability, CapabilityFinding>,
  fn: ExtractedFunction,
): void {
  if (out.has('limit')) return;
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind === 'slot') {
      const cap = f.blockers.caps.get(shape.slot);
      if (cap) {
        f.undecided.push(shape.slot);
        if (!boundedBySupply(t, f.layout) && capBlocks(w.value, shape.slot, cap.checks)) {
          out.set(
            'limit',
            finding(
              fn,
              'limit',
              // A cap on sales stops selling; one on every transfer is an anti-whale limit set
              // too low, reported as such (a pair exempt from it may still trade).
              cap.sell ? 'trading-switch' : 'max-tx',
              `${f.label}, on a path that ${f.guard}, writes slot ${hex(shape.slot)} at pc ${w.pc} with a cap on the amount ${cap.sell ? 'sold' : 'moved'} that a transfer of ${TRANSFER_AMOUNT} base units fails; ${cap.where}`,
            ),
          );
          return;
        }
      }
      const blocker = f.blockers.slots.get(shape.slot);
      if (!blocker) continue;
      const bits = changedBits(w.value, shape.slot);
      const shifts = [...blocker.shifts].filter((s) => (bits >> BigInt(s)) & 1n);
      if (shifts.length === 0) continue;
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
    if (shape && key !== null && fromCalldata(key) && f.blockers.mappings.has(shape.base)) {
      const blocker = f.blockers.mappings.get(shape.base)!;
      const where = blocker.where;
      if (oneWayEntryWrite(w.value, w.slot, blocker)) {
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

function finding(
  fn: ExtractedFunction,
  capability: Capability,
  family: AdminFamily,
  detail: string,
): CapabilityFinding {
  return {
    selector: fn.selector,
    arguments: fn.arguments,
    capability,
    family,
    evidence: [{ kind: 'bytecode', selector: fn.selector, detail }],
  };
}

const isStateChanging = (f: ExtractedFunction) =>
  f.state_mutability !== 'view' && f.state_mutability !== 'pure';
/** Functions whose own effects are the holder's business, not a privilege. */
const HOLDER_FUNCTIONS = new Set([
  SELECTORS.transfer,
  '095ea7b3',
  '39509351',
  'a457c2d7',
  '42966c68',
]);

export function analyzeCapabilities(
  model: CodeModel,
  functions: readonly ExtractedFunction[],
  labelOf: (f: ExtractedFunction) => string,
): CapabilityReport {
  const budget: Budget = { left: CAPABILITY_BUDGET };
  const byId = new Map(functions.map((f) => [f.selector, f]));
  const layout = discoverLayout(model, byId, budget);
  const { blockers, complete: limitsKnown } = collectBlockers(model, byId, layout, budget);
  const findings: CapabilityFinding[] = [];
  const conclusive: string[] = [];
  const oneWay: CapabilityReport['oneWay'] = [];
  // No balances to take or make and nothing transfer checks: no function can have an effect
  // (a non-token, or code too odd to read), so none is walked and none is demoted.
  const nothingToFind =
    layout.balances === null &&
    blockers.slots.size === 0 &&
    blockers.mappings.size === 0 &&
    blockers.caps.size === 0;
  for (const fn of nothingToFind ? [] : functions) {
    if (!isStateChanging(fn) || HOLDER_FUNCTIONS.has(fn.selector) || budget.left <= 0) continue;
    const result = walkRecorded(model, fn, budget);
    if (result.complete) conclusive.push(fn.selector);
    const out = new Map<Capability, CapabilityFinding>();
    const openers: string[] = [];
    const undecided: bigint[] = [];
    const judge = (traces: readonly PathTrace[], balances: boolean) => {
      for (const t of traces) {
        if (!isSuccess(t) || t.writes.length === 0) continue;
        const guard = privilege(t);
        if (guard === null) continue;
        const facts: PathFacts = {
          label: labelOf(fn),
          guard,
          layout,
          blockers,
          openers,
          undecided,
        };
        if (balances && layout.balances !== null) balanceFindings(t, facts, out, fn);
        if (balances) allowanceFindings(t, facts, out, fn);
        limitFindings(t, facts, out, fn);
      }
    };
    judge(result.traces, true);
    // The walk's arguments are concrete: `setTransferable(true)` stores the enabling value too.
    // Walked again with flipped arguments, a setter stores the blocking one; a switch does not.
    const pending = openers.length > 0 || undecided.length > 0;
    if (!out.has('limit') && pending && fn.arguments !== '' && budget.left > 0) {
      judge(walkRecorded(model, fn, budget, 'flipped').traces, false);
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
    steps: CAPABILITY_BUDGET - budget.left,
  };
}
