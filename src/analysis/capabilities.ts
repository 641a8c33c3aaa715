import { AbiCoder, ParamType } from 'ethers';
import { describeCheck } from './access-control.ts';
import { addressFromLabel, splitTypes } from './calldata.ts';
import { walk, type CodeModel, type PathTrace, type PathWrite } from './interpreter.ts';
import { asAddress, callerIs, changedBits, comparedReads, contains, entryKey, evaluate, flagReads, privilegedBy, slotShape, type SlotShape } from './storage-shapes.ts';
import type { CallerCheck } from './caller-patterns.ts';
import { isCallerLeaf, T_CALLER, type Node, type Sym } from './symbolic.ts';
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

export interface TokenLayout {
  /** Base slot of the balances mapping (what balanceOf reads), or null. */
  balances: bigint | null;
  /** The slot totalSupply() reads, or null. */
  totalSupply: bigint | null;
}

export interface CapabilityReport {
  layout: TokenLayout;
  findings: CapabilityFinding[];
  /** Selectors walked to the end: for these, no finding means none of the effects. */
  conclusive: string[];
  /** transfer() was walked to the end, so what it checks before failing is known. */
  limitsKnown: boolean;
  steps: number;
}

const SELECTORS = { balanceOf: '70a08231', totalSupply: '18160ddd', transfer: 'a9059cbb', transferFrom: '23b872dd' } as const;
/** Steps for all capability walks of one contract, and per function. */
export const CAPABILITY_BUDGET = 150_000;
const FUNCTION_BUDGET = 12_000;
/** Forks per function: old tokens branch on every SafeMath check and modifier. */
const MAX_PATHS = 160;
/** Address arguments get these, by position: distinct, recognisable, owned by no one. */
const ARG_ADDRESSES = Array.from({ length: 8 }, (_, i) => addressFromLabel(`token-monitor.effect.argument.${i}`));
const ARG_VALUES = new Map(ARG_ADDRESSES.map((a, i) => [BigInt(a), i]));
const AMOUNT = 1000n;
/** Steps from a blocking check to the failure it causes (building an Error(string) included). */
const MAX_FAILURE_DISTANCE = 100;
const abi = AbiCoder.defaultAbiCoder();
const hex = (n: bigint) => `0x${n.toString(16)}`;

function value(type: ParamType, index: number): unknown {
  if (type.baseType === 'array') {
    const length = type.arrayLength === -1 ? 1 : type.arrayLength!;
    if (length > 16) throw new Error('array too long');
    return Array.from({ length }, () => value(type.arrayChildren!, index));
  }
  if (type.baseType === 'tuple') return type.components!.map((c) => value(c, index));
  if (type.baseType === 'address') return ARG_ADDRESSES[index % ARG_ADDRESSES.length];
  if (type.baseType === 'bool') return true;
  if (type.baseType === 'string') return '';
  if (type.baseType === 'bytes') return '0x';
  if (type.baseType.startsWith('bytes')) return `0x${'00'.repeat(Number(type.baseType.slice(5)))}`;
  return AMOUNT;
}

/** Call data aiming each address argument at its own recognisable address. */
export function effectCalldata(selector: string, argumentTypes: string): string {
  const padding = '00'.repeat(32 * 4);
  try {
    const types = splitTypes(argumentTypes).map((t) => ParamType.from(t));
    return `0x${selector}${abi.encode(types, types.map((t, i) => value(t, i))).slice(2)}${padding}`;
  } catch {
    return `0x${selector}${'00'.repeat(32 * 4)}${padding}`;
  }
}

/** "arg1" for an address from the call data, "the caller", or null. */
function keyName(k: Sym): string | null {
  const a = asAddress(k);
  if (a !== null && ARG_VALUES.has(a)) return `argument ${ARG_VALUES.get(a)! + 1}`;
  return isCallerLeaf(k) ? 'the caller' : null;
}
/** `msg.sender == holder` with the holder from the call data is the holder acting, no privilege. */
const isArgument = (address: bigint) => ARG_VALUES.has(address);
/** Per-record ownership (`grants[id].granter == msg.sender`) is no admin's privilege. */
const isAdminCheck = (c: CallerCheck) => !(c.kind === 'stored-address' && c.slot === null) && !(c.kind === 'hardcoded-address' && isArgument(BigInt(c.address!)));
const fromCalldata = (k: Sym) => { const a = asAddress(k); return a !== null && ARG_VALUES.has(a); };

interface Budget { left: number }

function walkRecorded(model: CodeModel, fn: ExtractedFunction, budget: Budget) {
  const result = walk(model, effectCalldata(fn.selector, fn.arguments), { budget: Math.max(1, Math.min(FUNCTION_BUDGET, budget.left)), record: true, maxPaths: MAX_PATHS });
  budget.left -= result.steps;
  return result;
}

const isSuccess = (t: PathTrace) => (t.end === 'stop' || t.end === 'return') && !t.returnedZero;
const isFailure = (t: PathTrace) => t.end === 'revert' || t.end === 'invalid' || (t.end === 'return' && t.returnedZero);

/** The token's balances mapping and supply slot, from its own getters. */
function discoverLayout(model: CodeModel, byId: Map<string, ExtractedFunction>, budget: Budget): TokenLayout {
  let balances: bigint | null = null;
  let totalSupply: bigint | null = null;
  const balanceOf = byId.get(SELECTORS.balanceOf);
  if (balanceOf) {
    for (const t of walkRecorded(model, { ...balanceOf, arguments: 'address' }, budget).traces) {
      for (const r of t.reads) {
        const shape = slotShape(r);
        if (shape?.kind === 'map' && keyName(shape.key) === 'argument 1') { balances = shape.base; break; }
      }
      if (balances !== null) break;
    }
  }
  const supply = byId.get(SELECTORS.totalSupply);
  if (supply) {
    for (const t of walkRecorded(model, supply, budget).traces) {
      const first = t.reads.map((r) => slotShape(r)).find((s) => s?.kind === 'slot');
      if (first?.kind === 'slot') { totalSupply = first.slot; break; }
    }
  }
  return { balances, totalSupply };
}

/** What transfer()/transferFrom() test on their failing paths. */
interface Blockers {
  /** Plain slots tested as a flag or against the block time: slot → bit offset and how. */
  slots: Map<bigint, { shifts: Set<number>; timed: boolean; where: string; blocksWhenSet: boolean }>;
  /** Mappings tested with an account key: base → where. */
  mappings: Map<bigint, string>;
}

function collectBlockers(model: CodeModel, byId: Map<string, ExtractedFunction>, layout: TokenLayout, budget: Budget): { blockers: Blockers; complete: boolean } {
  const blockers: Blockers = { slots: new Map(), mappings: new Map() };
  let complete = byId.has(SELECTORS.transfer);
  for (const [name, selector] of [['transfer', SELECTORS.transfer], ['transferFrom', SELECTORS.transferFrom]] as const) {
    const fn = byId.get(selector);
    if (!fn) continue;
    const args = name === 'transfer' ? 'address,uint256' : 'address,address,uint256';
    const result = walkRecorded(model, { ...fn, arguments: args }, budget);
    complete &&= result.complete;
    // Mappings the transfer itself moves amounts in are balances (however many), not locks.
    const moved = new Set(result.traces.filter(isSuccess).flatMap((t) => t.writes.map((w) => slotShape(w.slot)))
      .flatMap((sh) => (sh && sh.kind !== 'slot' ? [sh.base] : [])));
    for (const t of result.traces) {
      if (!isFailure(t) || t.conditions.length === 0) continue;
      const last = t.conditions[t.conditions.length - 1]!;
      // A check fails at once (`require`, `if (…) return false`); a branch followed by a long
      // stretch of code before some other failure decided something else (a fee, a route).
      if (t.steps - last.step > MAX_FAILURE_DISTANCE) continue;
      const where = `${name}() branches on it at pc ${last.pc} to a path that fails`;
      const timed = contains(last.cond, (n) => n.op === 'timestamp' || n.op === 'number', 40);
      for (const read of flagReads(last.cond)) {
        const shape = slotShape(read.load.args[0]!);
        if (!shape) continue;
        if (shape.kind === 'slot') {
          if (shape.slot === layout.totalSupply) continue;
          const entry = blockers.slots.get(shape.slot) ?? { shifts: new Set<number>(), timed, where, blocksWhenSet: false };
          entry.shifts.add(read.shift);
          entry.blocksWhenSet ||= blocksWhenSet(last, read.load, timed, 1n << BigInt(read.shift));
          blockers.slots.set(shape.slot, entry);
        } else if (shape.kind === 'map' && shape.base !== layout.balances && keyName(shape.key) !== null && blocksWhenSet(last, read.load, timed)) {
          if (!blockers.mappings.has(shape.base)) blockers.mappings.set(shape.base, where);
        }
      }
      // An amount held back per account (`balance - locked[from] >= value`): a lock.
      for (const load of comparedReads(last.cond)) {
        const shape = slotShape(load.args[0]!);
        if (!shape || shape.kind === 'slot' || shape.base === layout.balances || moved.has(shape.base)) continue;
        const key = entryKey(shape);
        // An allowance is keyed by the holder and the caller; that is the holder's own limit.
        if (shape.kind === 'map2' && isCallerLeaf(shape.inner)) continue;
        if (key !== null && keyName(key) !== null && !blockers.mappings.has(shape.base)) blockers.mappings.set(shape.base, `${where} (an amount held back per account)`);
      }
    }
  }
  return { blockers, complete };
}

/**
 * Does an account's entry block when it is set? A blacklist (`frozen[from]`) fails when true; an
 * exemption list (`whitelisted[from]`) fails when false and is no freeze. Unknown counts as yes.
 */
function blocksWhenSet(branch: PathTrace['conditions'][number], load: Node, timed: boolean, bit = 1n): boolean {
  if (timed) return true;
  const outcome = evaluate(branch.cond, load, bit);
  return outcome === null || (outcome !== 0n) === branch.taken;
}

/** The condition on `t` that proves the caller privileged, with the guard it matched. */
function privilege(t: PathTrace): string | null {
  for (const c of t.conditions) {
    if ((c.cond.taint & T_CALLER) === 0 || !privilegedBy(c.cond, c.taken, isAdminCheck)) continue;
    const guard = t.guards.find((g) => g.pc === c.pc);
    return guard ? `${describeCheck(guard)} (JUMPI at pc ${c.pc})` : `branches on the caller at pc ${c.pc}`;
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

interface PathFacts { label: string; guard: string; layout: TokenLayout; blockers: Blockers }

function balanceFindings(t: PathTrace, f: PathFacts, out: Map<Capability, CapabilityFinding>, fn: ExtractedFunction): void {
  const { layout } = f;
  const entries = t.writes
    .map((w) => ({ w, shape: slotShape(w.slot) }))
    .filter((x): x is { w: PathWrite; shape: Extract<SlotShape, { kind: 'map' }> } => x.shape?.kind === 'map' && x.shape.base === layout.balances);
  if (entries.length === 0) return;
  const changes = entries.map((e) => ({ ...e, grow: balanceChange(e.w) }));
  const base = `balances (the mapping at slot ${hex(layout.balances!)} that balanceOf reads)`;
  const supply = t.writes.find((w) => { const s = slotShape(w.slot); return s?.kind === 'slot' && s.slot === layout.totalSupply; });
  const to = changes.find((c) => c.grow === 'increase');
  // Tokens moved, not made: some other balance shrank or was zeroed on the same path.
  const moved = to !== undefined && changes.some((c) => c.grow === 'decrease' || (c.grow === 'set' && c.shape.key !== to.shape.key));
  if (to && !moved && !out.has('mint')) {
    const supplyText = supply ? ` and writes totalSupply (slot ${hex(layout.totalSupply!)}) at pc ${supply.pc}` : ', with no balance taken from anyone';
    out.set('mint', finding(fn, 'mint', 'mint', `${f.label}, on a path that ${f.guard}, adds to ${base}[${keyName(to.shape.key) ?? 'an account'}] at pc ${to.w.pc}${supplyText}: new tokens`));
  }
  for (const c of changes) {
    if (c.grow === 'increase' || !fromCalldata(c.shape.key) || readsAllowance(t, c.shape.key) || out.has('leak')) continue;
    if (t.conditions.some((k) => callerIs(k.cond, k.taken, asAddress(c.shape.key)!))) continue;
    // Zeroing a new array element or struct member inside the entry (a checkpoint push) takes nothing.
    if (c.grow === 'set' && c.w.value === 0n && !c.shape.direct) continue;
    const moved = changes.some((o) => o !== c && o.grow === 'increase');
    const how = c.grow === 'decrease' ? 'takes from' : 'overwrites';
    const detail = `${f.label}, on a path that ${f.guard}, ${how} ${base}[${keyName(c.shape.key)}] at pc ${c.w.pc} without reading any allowance that holder gave the caller${moved ? ', and credits another account' : ''}`;
    out.set('leak', finding(fn, 'leak', moved || c.grow === 'set' ? 'balance-change' : 'burn-from', detail));
  }
}

function limitFindings(t: PathTrace, f: PathFacts, out: Map<Capability, CapabilityFinding>, fn: ExtractedFunction): void {
  if (out.has('limit')) return;
  for (const w of t.writes) {
    const shape = slotShape(w.slot);
    if (shape?.kind === 'slot') {
      const blocker = f.blockers.slots.get(shape.slot);
      if (!blocker) continue;
      const bits = changedBits(w.value, shape.slot);
      if (![...blocker.shifts].some((s) => (bits >> BigInt(s)) & 1n)) continue;
      // A flag that stops transfers when set is a pause; one they need set (tradingOpen,
      // released) or a time they wait for is a trading switch.
      const pause = !blocker.timed && blocker.blocksWhenSet;
      const what = blocker.timed ? 'a time that transfers are checked against' : pause ? 'a flag that stops transfers when set' : 'a flag that transfers need set';
      out.set('limit', finding(fn, 'limit', pause ? 'pause' : 'trading-switch', `${f.label}, on a path that ${f.guard}, writes ${what} in slot ${hex(shape.slot)} at pc ${w.pc}; ${blocker.where}`));
      return;
    }
    const key = shape ? entryKey(shape) : null;
    if (shape && key !== null && fromCalldata(key) && f.blockers.mappings.has(shape.base)) {
      const where = f.blockers.mappings.get(shape.base)!;
      out.set('limit', finding(fn, 'limit', 'blacklist', `${f.label}, on a path that ${f.guard}, writes the entry of ${keyName(key)} in the mapping at slot ${hex(shape.base)} at pc ${w.pc}; ${where}`));
      return;
    }
  }
}

function finding(fn: ExtractedFunction, capability: Capability, family: AdminFamily, detail: string): CapabilityFinding {
  return { selector: fn.selector, arguments: fn.arguments, capability, family, evidence: [{ kind: 'bytecode', selector: fn.selector, detail }] };
}

const isStateChanging = (f: ExtractedFunction) => f.state_mutability !== 'view' && f.state_mutability !== 'pure';
/** Functions whose own effects are the holder's business, not a privilege. */
const HOLDER_FUNCTIONS = new Set([SELECTORS.transfer, '095ea7b3', '39509351', 'a457c2d7', '42966c68']);

export function analyzeCapabilities(model: CodeModel, functions: readonly ExtractedFunction[], labelOf: (f: ExtractedFunction) => string): CapabilityReport {
  const budget: Budget = { left: CAPABILITY_BUDGET };
  const byId = new Map(functions.map((f) => [f.selector, f]));
  const layout = discoverLayout(model, byId, budget);
  const { blockers, complete: limitsKnown } = collectBlockers(model, byId, layout, budget);
  const findings: CapabilityFinding[] = [];
  const conclusive: string[] = [];
  for (const fn of functions) {
    if (!isStateChanging(fn) || HOLDER_FUNCTIONS.has(fn.selector) || budget.left <= 0) continue;
    const result = walkRecorded(model, fn, budget);
    if (result.complete) conclusive.push(fn.selector);
    const out = new Map<Capability, CapabilityFinding>();
    for (const t of result.traces) {
      if (!isSuccess(t) || t.writes.length === 0) continue;
      const guard = privilege(t);
      if (guard === null) continue;
      const facts: PathFacts = { label: labelOf(fn), guard, layout, blockers };
      if (layout.balances !== null) balanceFindings(t, facts, out, fn);
      limitFindings(t, facts, out, fn);
    }
    findings.push(...out.values());
  }
  return { layout, findings, conclusive, limitsKnown, steps: CAPABILITY_BUDGET - budget.left };
}
