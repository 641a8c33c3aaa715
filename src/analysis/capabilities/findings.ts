import type { AdminFamily, ExtractedFunction } from '../types.ts';
import type { PathTrace, PathWrite } from '../walk/index.ts';
import {
  asAddress,
  callerIs,
  contains,
  evaluateWith,
  isCallerLeaf,
  isNode,
  type Node,
  type SlotShape,
  type Sym,
  sameSym,
  slotShape,
  unwrap,
} from '../walk/index.ts';
import { type Blockers, balanceStructMember } from './blockers.ts';
import { fromCalldata, hex, isAdminCheck, keyName, type TokenLayout } from './layout.ts';
import type { Capability, CapabilityFinding } from './types.ts';

/**
 * The effects one privileged path that succeeds has (capabilities.ts): a mint, a leak of a
 * holder's balance or allowance (here), a limit on transfers (capabilities/limits.ts). Each writes
 * at most one finding per capability into `out`, with the evidence a person can check against
 * the code.
 */

type Grow = 'increase' | 'decrease' | 'set';
type MapShape = Extract<SlotShape, { kind: 'map' }>;

/** Is `x` a read of the very entry `w` writes (the old balance the write starts from)? */
function readsEntry(x: Sym | undefined, w: PathWrite, shape: MapShape): boolean {
  if (!isNode(x) || x.op !== 'sload') return false;
  if (sameSym(x.args[0]!, w.slot)) return true;
  const read = slotShape(x.args[0]!);
  return (
    read?.kind === 'map' &&
    read.direct === true &&
    shape.direct === true &&
    read.base === shape.base &&
    sameSym(read.key, shape.key)
  );
}

const ALL_ONES = (1n << 256n) - 1n;

/**
 * The word via-IR's unoptimised update stores, without its wrapping: `or(and(shl(0, x), ones),
 * and(0, sload(s)))` is x, and `shr(0, sload(s))` the load itself.
 */
function peelUpdate(x: Sym): Sym {
  let v = x;
  for (let i = 0; i < 8 && isNode(v) && v.args.length === 2; i++) {
    const [a, b] = v.args as [Sym, Sym];
    const zeroAnd = (y: Sym) => isNode(y) && y.op === 'and' && y.args.includes(0n);
    if ((v.op === 'shl' || v.op === 'shr') && a === 0n) v = b;
    else if (v.op === 'and' && a === ALL_ONES) v = b;
    else if (v.op === 'and' && b === ALL_ONES) v = a;
    else if (v.op === 'or' && zeroAnd(b)) v = a;
    else if (v.op === 'or' && zeroAnd(a)) v = b;
    else break;
  }
  return v;
}

function balanceChange(w: PathWrite, shape: MapShape): Grow {
  // `balance + amount` credits and `balance - amount` debits whatever the amount is made of: a
  // vesting release credits `balances[to] + (due - released)`, a subtraction inside the amount.
  // An amount computed from the same balance (`balance + (target - balance)`) sets it instead.
  const v = peelUpdate(w.value);
  if (isNode(v) && v.args.length === 2 && (v.op === 'add' || v.op === 'sub')) {
    const [a, b] = v.args.map(peelUpdate) as [Sym, Sym];
    const [old, amount] = readsEntry(a, w, shape) ? [a, b] : v.op === 'add' ? [b, a] : [null, b];
    if (old !== null && readsEntry(old, w, shape)) {
      if (contains(amount, (n) => readsEntry(n, w, shape))) return 'set';
      return v.op === 'add' ? 'increase' : 'decrease';
    }
  }
  if (contains(w.value, (n) => n.op === 'sub')) return 'decrease';
  if (contains(w.value, (n) => n.op === 'add')) return 'increase';
  return 'set';
}

/**
 * Did the path rely on an allowance of `holder` for the caller (a mapping of mappings keyed by
 * both)? It did when it spends that allowance (writes the entry), or when a branch it took on
 * the allowance would have gone the other way with no allowance at all. A read alone is no
 * consent: `if (allowed[from][msg.sender] < value && msg.sender != owner) throw;` reads it, and
 * the owner passes on the path where it was too small (the walk's amount is concrete, so such a
 * check can be evaluated with the allowance at zero). A check that cannot be evaluated counts.
 */
function reliesOnAllowance(t: PathTrace, holder: Sym): boolean {
  const holderAddress = asAddress(holder);
  const isEntry = (slot: Sym) => {
    const s = slotShape(slot);
    if (s?.kind !== 'map2') return false;
    const keys = [s.outer, s.inner];
    return keys.some(isCallerLeaf) && keys.some((k) => asAddress(k) === holderAddress);
  };
  if (!t.reads.some(isEntry)) return false;
  if (t.writes.some((w) => isEntry(w.slot))) return true;
  const isLoad = (n: Node) => n.op === 'sload' && isEntry(n.args[0]!);
  return t.conditions.some((c) => {
    if (!contains(c.cond, isLoad, 60)) return false;
    const outcome = evaluateWith(c.cond, (n) => (isLoad(n) ? 0n : undefined));
    return outcome === null || (outcome !== 0n) !== c.taken;
  });
}

/**
 * A debit of `balances[holder]` whose amount the same path stores for the same holder in another
 * mapping balanceOf adds to the balance (a lockup record): the write that keeps it, or null.
 */
function keptForHolder(
  t: PathTrace,
  debit: PathWrite,
  shape: MapShape,
  layout: TokenLayout,
): { base: bigint; pc: number } | null {
  const v = debit.value;
  if (
    layout.held.length === 0 ||
    !isNode(v) ||
    v.op !== 'sub' ||
    !readsEntry(v.args[0], debit, shape)
  )
    return null;
  const amount = v.args[1]!;
  for (const w of t.writes) {
    const s = slotShape(w.slot);
    if (s?.kind !== 'map' || !layout.held.includes(s.base) || !sameSym(s.key, shape.key)) continue;
    const stores =
      typeof amount === 'bigint'
        ? w.value === amount && amount !== 0n
        : contains(w.value, (n) => sameSym(n, amount));
    if (stores) return { base: s.base, pc: w.pc };
  }
  return null;
}

/**
 * A credit of `balances[holder]` with an amount read from a ledger balanceOf adds for the same
 * holder, which the same path rewrites (a lockup released), or with an amount the same path
 * subtracts from that ledger (`locked[h] -= amount; balances[h] += amount`, whatever the amount
 * is read from: vesting periods summed, or a constant such as the 0 of a release that found
 * nothing due): balanceOf counted it already, so no token is made.
 */
function releasedFromLedger(
  t: PathTrace,
  credit: PathWrite,
  shape: MapShape,
  layout: TokenLayout,
): boolean {
  const v = credit.value;
  if (layout.held.length === 0 || !isNode(v) || v.op !== 'add') return false;
  const ofHolder = (slot: Sym) => {
    const s = slotShape(slot);
    return s?.kind === 'map' && layout.held.includes(s.base) && sameSym(s.key, shape.key);
  };
  const ledgerWrites = t.writes.filter((w) => ofHolder(w.slot));
  if (ledgerWrites.length === 0) return false;
  if (contains(v, (n) => n.op === 'sload' && ofHolder(n.args[0]!))) return true;
  const amounts = v.args.filter((a) => !readsEntry(a, credit, shape));
  if (amounts.length !== 1) return false;
  return ledgerWrites.some((w) => {
    const d = w.value;
    return (
      isNode(d) &&
      d.op === 'sub' &&
      isNode(d.args[0]) &&
      d.args[0].op === 'sload' &&
      sameSym(d.args[0].args[0]!, w.slot) &&
      sameSym(d.args[1]!, amounts[0]!)
    );
  });
}

/**
 * A balance set outright (`_balances[owner] = amount`) for an account the call data does not
 * name (the caller, a stored or hard-coded wallet): any amount, so tokens are made as by a credit.
 * The amount must be one the walk can read as an amount: a constant (the call data is concrete)
 * other than 0 (a burn of that account's own tokens) and 1 (a flag in a mapping balanceOf
 * reads), or an expression over plain slots (`= totalSupply`). A value read from a ledger
 * (`_tOwned[a] = _rOwned[a] / rate`, an exclusion), another contract, memory or an expression
 * cut short converts or copies what exists and is not counted; nor is the contract's own
 * balance (a launch allocation the contract's swap logic spends). A holder the call data names
 * is the leak rule's (`setBalance(holder, v)`).
 */
const UNREAD_VALUE = new Set(['retdata', 'mload', 'opaque', 'calldata', 'code', 'returnsize']);
function setsOwnBalance(c: { w: PathWrite; shape: MapShape; grow: Grow }): boolean {
  const { key } = c.shape;
  if (c.grow !== 'set' || !c.shape.direct || fromCalldata(key)) return false;
  const account = unwrap(key).core;
  if (isNode(account) && account.op === 'address') return false;
  const v = c.w.value;
  if (typeof v === 'bigint') return v > 1n;
  return !contains(
    v,
    (n) => UNREAD_VALUE.has(n.op) || (n.op === 'sload' && slotShape(n.args[0]!)?.kind !== 'slot'),
  );
}

export interface PathFacts {
  label: string;
  guard: string;
  layout: TokenLayout;
  blockers: Blockers;
  /** One-way writes seen so far for this function (details), filled by limitFindings. */
  openers: string[];
  /** Caps written with a value transfer passes: the flipped walk may store a blocking one. */
  undecided: bigint[];
  /** Does allowance() answer the maximum for this spender, whoever the holder (layout.ts)? */
  allowedAll?: (spender: bigint) => boolean;
  /** The pcs of the function's checked-arithmetic branches (their other way panics). */
  arithmetic?: ReadonlySet<number>;
  /**
   * The path's number arguments are 1 because the function refuses the walk's 1,000: a time it
   * stores is bounded below 1,000 seconds or blocks (a capped cooldown), too short to lock anyone.
   */
  shortArguments?: boolean;
}

/**
 * A path only callers allowance() declares allowed everything may take (Solady's transferFrom
 * skips the allowance for Permit2, whose allowance() is the maximum): the holders' declared
 * allowance, no take.
 */
function declaredSpenderOnly(t: PathTrace, f: PathFacts): boolean {
  const checks = t.guards.filter(isAdminCheck);
  return (
    checks.length > 0 &&
    f.allowedAll !== undefined &&
    checks.every((g) => g.kind === 'hardcoded-address' && f.allowedAll!(BigInt(g.address!)))
  );
}

export function balanceFindings(
  t: PathTrace,
  f: PathFacts,
  out: Map<Capability, CapabilityFinding>,
  fn: ExtractedFunction,
): void {
  const { layout } = f;
  // Another member of the balance's struct (`accounts[h].frozen` beside `.balance`) is no balance.
  const otherMember = (slot: Sym) => balanceStructMember(slot, layout) !== null;
  const entries = t.writes
    .map((w) => ({ w, shape: slotShape(w.slot) }))
    .filter(
      (x): x is { w: PathWrite; shape: Extract<SlotShape, { kind: 'map' }> } =>
        x.shape?.kind === 'map' && x.shape.base === layout.balances && !otherMember(x.w.slot),
    );
  if (entries.length === 0) return;
  const changes = entries.map((e) => ({ ...e, grow: balanceChange(e.w, e.shape) }));
  const base = `balances (the mapping at slot ${hex(layout.balances!)} that balanceOf reads)`;
  const supply = t.writes.find((w) => {
    const s = slotShape(w.slot);
    return s?.kind === 'slot' && s.slot === layout.totalSupply;
  });
  const to = changes.find((c) => c.grow === 'increase') ?? changes.find(setsOwnBalance);
  // Tokens moved, not made: some other balance shrank or was zeroed on the same path.
  const moved =
    to !== undefined &&
    changes.some(
      (c) =>
        c !== to && (c.grow === 'decrease' || (c.grow === 'set' && c.shape.key !== to.shape.key)),
    );
  if (to && !moved && !out.has('mint') && !releasedFromLedger(t, to.w, to.shape, layout)) {
    const supplyText = supply
      ? ` and writes totalSupply (slot ${hex(layout.totalSupply!)}) at pc ${supply.pc}`
      : ', with no balance taken from anyone';
    out.set(
      'mint',
      finding(
        fn,
        'mint',
        'mint',
        `${f.label}, on a path that ${f.guard}, ${to.grow === 'set' ? 'sets' : 'adds to'} ${base}[${keyName(to.shape.key) ?? 'an account'}] at pc ${to.w.pc}${supplyText}: new tokens`,
      ),
    );
  }
  for (const c of changes) {
    if (
      c.grow === 'increase' ||
      !fromCalldata(c.shape.key) ||
      reliesOnAllowance(t, c.shape.key) ||
      out.has('leak')
    )
      continue;
    if (t.conditions.some((k) => callerIs(k.cond, k.taken, asAddress(c.shape.key)!))) continue;
    if (declaredSpenderOnly(t, f)) continue;
    // Zeroing a new array element or struct member inside the entry (a checkpoint push) takes nothing.
    if (c.grow === 'set' && c.w.value === 0n && !c.shape.direct) continue;
    const kept = keptForHolder(t, c.w, c.shape, layout);
    if (kept !== null) {
      // A lock, not a take: balanceOf still counts the amount, transfer cannot spend it.
      if (!out.has('limit'))
        out.set(
          'limit',
          finding(
            fn,
            'limit',
            'blacklist',
            `${f.label}, on a path that ${f.guard}, takes from ${base}[${keyName(c.shape.key)}] at pc ${c.w.pc} and puts the amount in the mapping at slot ${hex(kept.base)} for the same holder at pc ${kept.pc}, which balanceOf adds to the balance: tokens locked, not taken`,
          ),
        );
      continue;
    }
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
 * An allowance over a holder's tokens, written by a privileged path for a holder taken from the
 * call data (`_allowances[holder][owner] = max`): transferFrom then moves that holder's tokens
 * without their consent. A write that only lowers or clears an allowance grants nothing.
 */
export function allowanceFindings(
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

/** One finding with its evidence line. */
export function finding(
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
