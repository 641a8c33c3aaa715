import type { ExtractedFunction } from '../types.ts';
import type { CodeModel, PathTrace } from '../walk/index.ts';
import {
  comparedReads,
  contains,
  entryKey,
  evaluate,
  evaluateWith,
  flagReads,
  type GateRead,
  gateReads,
  isCallerLeaf,
  isNode,
  memberOffset,
  type Node,
  type Sym,
  sameSym,
  slotShape,
} from '../walk/index.ts';
import {
  ARG_ADDRESSES,
  type Budget,
  isFailure,
  isSuccess,
  keyName,
  SELECTORS,
  type TokenLayout,
  TRANSFER_AMOUNT,
  walkRecorded,
} from './layout.ts';
import { MAX_FAILURE_DISTANCE, type Sale, saleFacts } from './sale-facts.ts';

/**
 * What transfer() and transferFrom() check on the paths where they fail (capabilities.ts): the
 * flags, times, per-account entries and caps a privileged write can turn against holders.
 */

/**
 * Panic codes of checked arithmetic (solc ≥ 0.8): an overflow or underflow (0x11) and a division
 * by zero (0x12) are what the numbers did, no check an owner set. A fee raised past 100 % or an
 * out-of-range rate fails that way; that is the fee's risk (`fee_modifiable`), not a stop.
 */
const ARITHMETIC_PANICS: ReadonlySet<bigint> = new Set([0x11n, 0x12n]);

/**
 * The branches of a function's walk whose other way is a checked-arithmetic panic: the last
 * branch of every path that panics so. They test what the numbers did (`supply * pct` fits), no
 * bound a setter puts on its argument.
 */
export function arithmeticChecks(traces: readonly PathTrace[]): Set<number> {
  const out = new Set<number>();
  for (const t of traces) {
    const last = t.conditions.at(-1);
    if (last && t.panic !== null && ARITHMETIC_PANICS.has(t.panic)) out.add(last.pc);
  }
  return out;
}

/** What transfer()/transferFrom() test on their failing paths. */
export interface Blockers {
  /** Plain slots tested as a flag or against the block time: slot → bit offset and how. */
  slots: Map<
    bigint,
    {
      shifts: Set<number>;
      timed: boolean;
      where: string;
      blocksWhenSet: boolean;
      /** Some failing check fails when the flag is clear (`require(released)`). */
      blocksWhenClear: boolean;
    }
  >;
  /** Mappings tested with an account key: base → how. */
  mappings: Map<bigint, EntryBlocker>;
  /**
   * Plain slots compared by size with the amount moved (`require(amount <= maxSell)`): a cap.
   * The checks keep the walk's concrete amount, so a stored cap can be tested against it.
   */
  caps: Map<
    bigint,
    {
      where: string;
      checks: EntryBlocker['checks'];
      /** Some failing check on it was on a sale (`to == pair` proven). */
      sell: boolean;
      /** Some failing check on it did not spare sales (a max-tx on every transfer). */
      bindsSales: boolean;
    }
  >;
  /**
   * External gates: plain slots holding the address of a contract whose answer decides a
   * transfer (the last branch before a failure tests it: `require(guard.check(from, to,
   * amount))`), or sets the balance a transfer writes (`balances[from] = controller.f(amount) -
   * amount`). Whoever writes the slot picks the contract that decides every transfer.
   */
  gates: Map<bigint, { shift: number; where: string }>;
}

/** A per-account entry a failing check tests, and how, so a write can be judged by its value. */
export interface EntryBlocker {
  where: string;
  /**
   * `flag`: tested as a boolean (`frozen[from]`); `time`: compared with the block time or number
   * (`lockedUntil[from]`); `amount`: an amount held back (`balance - locked[from] >= value`).
   */
  kind: 'flag' | 'time' | 'amount';
  /** The failing checks on this entry, each with the load it tests: to evaluate a stored value. */
  checks: { cond: Sym; taken: boolean; load: Node }[];
  /** A member of the balances struct (`accounts[from].frozen`): only that member is the flag. */
  member?: bigint;
  /**
   * A list transfers need an account on, which alone decides (`require(whitelisted[from] ||
   * to != pair)`): whoever writes it picks who may sell, so listing is no release either.
   */
  listed?: boolean;
}

/** A member of the balances entry other than the balance itself (`accounts[h].frozen`). */
export function balanceStructMember(slot: Sym, layout: TokenLayout): bigint | null {
  const member = memberOffset(slot);
  return layout.balanceMember !== null && member !== null && member !== layout.balanceMember
    ? member
    : null;
}

export function collectBlockers(
  model: CodeModel,
  byId: Map<string, ExtractedFunction>,
  layout: TokenLayout,
  budget: Budget,
  /** Sees every path of transfer() and transferFrom() that succeeds (their own writes). */
  onSuccess: (t: PathTrace) => void = () => {},
): { blockers: Blockers; complete: boolean } {
  const blockers: Blockers = {
    slots: new Map(),
    mappings: new Map(),
    caps: new Map(),
    gates: new Map(),
  };
  let complete = byId.has(SELECTORS.transfer);
  for (const [name, selector] of [
    ['transfer', SELECTORS.transfer],
    ['transferFrom', SELECTORS.transferFrom],
  ] as const) {
    const fn = byId.get(selector);
    if (!fn) continue;
    const args = name === 'transfer' ? 'address,uint256' : 'address,address,uint256';
    const result = walkRecorded(model, { ...fn, arguments: args }, budget);
    complete &&= result.complete;
    for (const t of result.traces) if (isSuccess(t)) onSuccess(t);
    // Mappings the transfer itself moves amounts in are balances (however many), not locks.
    const moved = new Set(
      result.traces
        .filter(isSuccess)
        .flatMap((t) => t.writes.map((w) => slotShape(w.slot)))
        .flatMap((sh) => (sh && sh.kind !== 'slot' ? [sh.base] : [])),
    );
    for (const t of result.traces.filter(isSuccess))
      for (const w of t.writes) {
        const shape = slotShape(w.slot);
        if (
          shape?.kind === 'slot' ||
          !shape ||
          !(moved.has(shape.base) || shape.base === layout.balances)
        )
          continue;
        addGates(
          blockers,
          gateReads(w.value),
          `${name}() writes a balance from its answer at pc ${w.pc}`,
        );
      }
    const recipient = ARG_ADDRESSES[name === 'transfer' ? 0 : 1]!;
    // transfer() moves the caller's tokens: the sender is the caller, else argument 1.
    const sender = name === 'transfer' ? 'caller' : BigInt(ARG_ADDRESSES[0]!);
    const deciders = lazyDeciders(result.traces);
    for (const t of result.traces) {
      const noop = moved.size > 0 && isNoop(t);
      if (!noop && (!isFailure(t) || (t.panic !== null && ARITHMETIC_PANICS.has(t.panic))))
        continue;
      const sale = saleFacts(t, sender, BigInt(recipient), layout);
      const outcome = noop ? 'returns true without moving tokens' : 'fails';
      // A check fails at once (`require`, `if (…) return false`): the branches taken shortly
      // before the failure decided it; one followed by a long stretch of code decided something
      // else (a fee, a route). `if (locked) require(msg.sender == owner)` needs both branches.
      // A no-op path may go on through the balance update with nothing to move (`amount = 0`),
      // passing checks that decide nothing: its last branch is the last one whose other way
      // moves tokens, however far from the end (no failure to be near).
      let lastIndex = t.conditions.length - 1;
      if (noop) while (lastIndex > 0 && deciders().decides(t, lastIndex) !== 'yes') lastIndex--;
      // A failure on the balance alone (`balance < amount`: too few tokens) is no check an
      // owner set, whichever way the path went before it (a fee switch taking its share first);
      // nor is one on whether another contract exists or accepted a call (a fee swap through a
      // router fixed at deployment): the switch that led there decides no holder's transfer.
      const last = t.conditions.at(-1)?.cond;
      const tooFew = !noop && (testsOnlyBalances(last, layout) || testsOnlyCallOutcome(last));
      for (let i = t.conditions.length - 1; i >= (tooFew ? t.conditions.length - 1 : 0); i--) {
        const branch = t.conditions[i]!;
        const last = i === lastIndex;
        const distance = noop && last ? 0 : t.steps - branch.step;
        if (distance > MAX_FAILURE_DISTANCE) {
          // Past the window, only a branch that decided the outcome counts: its other way
          // succeeds and does not meet the same failing check (checked arithmetic and fee
          // branches on the way are no decision); and only as a global flag (an owner's
          // switch), as before the last branch: a per-account entry tested that far back is a
          // record the path went on to use (a vesting allocation), no check.
          if (distance > MAX_DECIDER_DISTANCE) break;
          if (deciders().decides(t, i) !== 'yes' || deciders().failsAnyway(t, i)) continue;
          const where = `${name}() branches on it at pc ${branch.pc} to a path that ${outcome} ${distance} steps later`;
          addBlockers(blockers, branch, where, layout, moved, false, sale);
          break;
        }
        const decision = deciders().decides(t, i);
        // An earlier branch did not decide this failure when its other way fails too, or
        // reaches the same failing check and fails there as well (a switch tested on the way
        // to a balance check that fails either way); `if (locked) require(msg.sender ==
        // owner)` still counts: unlocked, the owner check is never reached.
        if (!last && (decision === 'no' || deciders().failsAnyway(t, i))) continue;
        const where = `${name}() branches on it at pc ${branch.pc} to a path that ${outcome}`;
        // Before the last branch only global flags count: per-account entries tested earlier
        // are exemptions the failing check then overrides (fee exclusions, whitelists).
        addBlockers(blockers, branch, where, layout, moved, last, sale);
        if (last) addGates(blockers, gateReads(branch.cond), `${where} on its answer`);
      }
    }
  }
  return { blockers, complete };
}

type Branch = PathTrace['conditions'][number];

/**
 * How far back from a failure a branch can still be the one that decided it (a long window): an
 * owner's switch tested, then a penalty computed, an event logged, and only then the revert.
 * Bounded, and only for a branch whose other way is known to succeed (lazyDeciders).
 */
const MAX_DECIDER_DISTANCE = 3_000;

/**
 * A no-op transfer: it succeeds without changing storage at all (no balance moved, nothing
 * recorded), while other paths of the same function move tokens. A silent honeypot returns
 * true this way for the senders it picks (`if (isSniper[from]) return;`), or by moving nothing
 * (`if (isBot[from]) amount = 0;`: every write stores back the word it read), so what it
 * branched on is judged like a check that fails.
 */
const isNoop = (t: PathTrace) => isSuccess(t) && t.writes.every(writesBack);

/** Does the condition read storage, and only balances entries (`balances[from] < amount`)? */
function testsOnlyBalances(cond: Sym | undefined, layout: TokenLayout): boolean {
  if (cond === undefined || layout.balances === null) return false;
  let reads = 0;
  let others = 0;
  contains(
    cond,
    (n) => {
      if (n.op !== 'sload') return false;
      const shape = slotShape(n.args[0]!);
      const balance =
        shape?.kind === 'map' &&
        shape.base === layout.balances &&
        balanceStructMember(n.args[0]!, layout) === null;
      if (balance) reads++;
      else others++;
      return false;
    },
    40,
  );
  return reads > 0 && others === 0;
}

/** What a call's own outcome is made of: its success, the size of its answer, the target's code. */
const CALL_OUTCOME = new Set(['callok', 'returnsize', 'extcode']);

/** Does the condition test only whether a call went through (`require(success)`, extcodesize)? */
function testsOnlyCallOutcome(cond: Sym | undefined): boolean {
  if (cond === undefined) return false;
  let outcome = 0;
  let others = 0;
  contains(
    cond,
    (n) => {
      if (CALL_OUTCOME.has(n.op)) outcome++;
      else if (n.args.length === 0 || n.op === 'sload' || n.op === 'calldata') others++;
      return false;
    },
    40,
  );
  return outcome > 0 && others === 0;
}

/** Two words a slot may hold, to tell a write that stores back what it read. */
const PROBE_WORDS = [0x1234_5678_9abcn, 1n << 200n] as const;

/** Does this write store exactly the word its slot held (`balances[a] - 0`), whatever it was? */
function writesBack(w: PathTrace['writes'][number]): boolean {
  if (!isNode(w.value)) return false;
  const old = (n: Node) => n.op === 'sload' && sameSym(n.args[0]!, w.slot);
  if (!contains(w.value, old, 40)) return false;
  // Every read of the slot is the old word (via-IR reads it twice: `or(and(x, 0), …)`).
  return PROBE_WORDS.every(
    (word) => evaluateWith(w.value, (n) => (old(n) ? word : undefined)) === word,
  );
}

/**
 * The way a path went at each branch, as running hashes: `keys[i]` names the branches up to and
 * including `i` and the direction taken at each (`flipped`: the other way at `i`).
 */
function wayKeys(t: PathTrace): { keys: string[]; flipped: string[] } {
  const keys: string[] = [];
  const flipped: string[] = [];
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const c of t.conditions) {
    const step = (h: number, taken: boolean, k: number) =>
      Math.imul(h ^ (c.pc * 2 + (taken ? 1 : 0)), k) >>> 0;
    flipped.push(`${step(a, !c.taken, 16777619)}:${step(b, !c.taken, 2246822519)}`);
    a = step(a, c.taken, 16777619);
    b = step(b, c.taken, 2246822519);
    keys.push(`${a}:${b}`);
  }
  return { keys, flipped };
}

/**
 * Whether a path's branch decided its outcome, from the paths that went the same way up to that
 * branch and the other way at it: `yes` when one of them succeeded (moving tokens), `no` when
 * some were walked and all failed (the outcome did not depend on it), `unknown` when none was
 * walked. Built on first use.
 */
function lazyDeciders(traces: readonly PathTrace[]) {
  type Decision = 'yes' | 'no' | 'unknown';
  let built: {
    decides: (t: PathTrace, i: number) => Decision;
    failsAnyway: (t: PathTrace, i: number) => boolean;
  } | null = null;
  const ending = (t: PathTrace) => {
    const last = t.conditions.at(-1);
    return last ? `|${last.pc}${last.taken ? '+' : '-'}` : '|';
  };
  return () => {
    if (built) return built;
    const succeeded = new Set<string>();
    const walked = new Set<string>();
    const failedAt = new Set<string>();
    for (const t of traces) {
      const keys = wayKeys(t).keys;
      for (const k of keys) walked.add(k);
      if (isSuccess(t) && !isNoop(t)) for (const k of keys) succeeded.add(k);
      else for (const k of keys.slice(0, -1)) failedAt.add(k + ending(t));
    }
    const ways = new Map<PathTrace, string[]>();
    const flippedOf = (t: PathTrace) => {
      const flipped = ways.get(t) ?? wayKeys(t).flipped;
      ways.set(t, flipped);
      return flipped;
    };
    built = {
      decides: (t, i) => {
        const key = flippedOf(t)[i]!;
        return succeeded.has(key) ? 'yes' : walked.has(key) ? 'no' : 'unknown';
      },
      failsAnyway: (t, i) => failedAt.has(flippedOf(t)[i]! + ending(t)),
    };
    return built;
  };
}

function addGates(blockers: Blockers, reads: readonly GateRead[], where: string): void {
  for (const g of reads)
    if (!blockers.gates.has(g.slot)) blockers.gates.set(g.slot, { shift: g.shift, where });
}

/** The flags, times and per-account amounts one branch on a failing path tests. */
function addBlockers(
  blockers: Blockers,
  branch: Branch,
  where: string,
  layout: TokenLayout,
  moved: ReadonlySet<bigint>,
  last: boolean,
  sale: Sale,
): void {
  const timed = contains(branch.cond, (n) => n.op === 'timestamp' || n.op === 'number', 40);
  for (const read of flagReads(branch.cond)) {
    if (sale.buy()) break;
    const shape = slotShape(read.load.args[0]!);
    const member = balanceStructMember(read.load.args[0]!, layout);
    if (shape?.kind === 'slot') {
      if (shape.slot === layout.totalSupply || (!last && blockers.slots.has(shape.slot))) continue;
      const entry = blockers.slots.get(shape.slot) ?? {
        shifts: new Set<number>(),
        timed,
        where,
        blocksWhenSet: false,
        blocksWhenClear: false,
      };
      entry.shifts.add(read.shift);
      // A launch check tests the slot as a flag and against the block (`launchBlock != 0 &&
      // block.number > launchBlock + 3`): whichever branch the walk met first, it is a time.
      entry.timed ||= timed;
      entry.blocksWhenSet ||= blocksWhenSet(branch, read.load, timed, 1n << BigInt(read.shift));
      entry.blocksWhenClear ||= blocksWhenSet(branch, read.load, timed, 0n);
      blockers.slots.set(shape.slot, entry);
    } else if (
      last &&
      shape?.kind === 'map' &&
      (shape.base !== layout.balances || member !== null) &&
      keyName(shape.key) !== null &&
      blocksWhenSet(branch, read.load, timed)
    ) {
      const entry = blockers.mappings.get(shape.base) ?? {
        where,
        kind: timed ? 'time' : 'flag',
        checks: [],
        ...(member !== null ? { member } : {}),
      };
      entry.checks.push({ cond: branch.cond, taken: branch.taken, load: read.load });
      blockers.mappings.set(shape.base, entry);
    } else if (
      last &&
      shape?.kind === 'map' &&
      shape.base !== layout.balances &&
      member === null &&
      !moved.has(shape.base) &&
      keyName(shape.key) !== null &&
      !timed &&
      blocksWhenSet(branch, read.load, timed, 0n) &&
      sale.gate()
    ) {
      // A list transfers need an account on (`require(whitelisted[from] || to != pair)`), and
      // nothing else decided the failure: everyone not listed is stopped, and whoever edits
      // the list decides who may sell. Judged like a blacklist entry: a write that can only
      // list an account releases it, one that can unlist it is a limit.
      const entry = blockers.mappings.get(shape.base) ?? {
        where: `${where} unless the account is listed`,
        kind: 'flag' as const,
        checks: [],
        listed: true,
      };
      entry.checks.push({ cond: branch.cond, taken: branch.taken, load: read.load });
      blockers.mappings.set(shape.base, entry);
    }
  }
  if (last) addComparedBlockers(blockers, branch, where, layout, moved, timed, sale);
}

/**
 * What the last branch before a failure compares by size: a plain slot compared with the amount
 * moved is a cap, a per-account entry an amount held back (`balance - locked[from] >= value`).
 */
function addComparedBlockers(
  blockers: Blockers,
  branch: Branch,
  where: string,
  layout: TokenLayout,
  moved: ReadonlySet<bigint>,
  timed: boolean,
  sale: Sale,
): void {
  for (const load of comparedReads(branch.cond)) {
    const shape = slotShape(load.args[0]!);
    if (shape?.kind === 'slot') {
      if (
        timed ||
        shape.slot === layout.totalSupply ||
        !comparesAmount(branch.cond) ||
        onlyShareOfAmount(branch.cond, load)
      )
        continue;
      const cap = blockers.caps.get(shape.slot) ?? {
        where,
        checks: [],
        sell: false,
        bindsSales: false,
      };
      cap.checks.push({ cond: branch.cond, taken: branch.taken, load });
      cap.sell ||= sale.sell();
      cap.bindsSales ||= sale.binds();
      blockers.caps.set(shape.slot, cap);
      continue;
    }
    if (!shape || shape.base === layout.balances || moved.has(shape.base)) continue;
    // An allowance is keyed by the holder and the caller; that is the holder's own limit.
    if (shape.kind === 'map2' && isCallerLeaf(shape.inner)) continue;
    const key = entryKey(shape);
    if (key !== null && keyName(key) !== null && !blockers.mappings.has(shape.base)) {
      blockers.mappings.set(shape.base, {
        where: `${where} (an amount held back per account)`,
        kind: 'amount',
        checks: [],
      });
    }
  }
}

/**
 * Does the check involve the amount moved (the walk's concrete amount)? A cap is compared with
 * it; a slot compared with anything else (a loop over an array's length, a counter) is no cap.
 */
const comparesAmount = (cond: Sym) =>
  contains(cond, (n) => n.args.some((a) => a === TRANSFER_AMOUNT), 40);

/**
 * Is the load compared only as a factor of the amount moved (`amount * fee / 100 <= amount`, the
 * SafeMath check of a fee share)? A share of the amount is a fee, whatever its size: its risk is
 * `fee_modifiable`, while a cap is compared with the amount itself or with a share of the supply
 * or of a balance (`amount <= supply * pct / 100`).
 */
function onlyShareOfAmount(cond: Sym, load: Node): boolean {
  let asShare = 0;
  let elsewhere = 0;
  const visit = (x: Sym, parent: Node | null, depth: number): void => {
    if (!isNode(x) || depth > 40) return;
    if (sameSym(x, load)) {
      const other = parent?.op === 'mul' ? parent.args.find((a) => a !== x) : undefined;
      if (other === TRANSFER_AMOUNT) asShare++;
      else elsewhere++;
      return;
    }
    for (const a of x.args) visit(a, x, depth + 1);
  };
  visit(cond, null, 0);
  return asShare > 0 && elsewhere === 0;
}

/**
 * Does an account's entry block when it holds `bit` (set by default)? A blacklist (`frozen[from]`)
 * fails when true; an exemption list (`whitelisted[from]`) fails when false and is no freeze.
 * Unknown counts as yes.
 */
function blocksWhenSet(
  branch: PathTrace['conditions'][number],
  load: Node,
  timed: boolean,
  bit = 1n,
): boolean {
  if (timed) return true;
  const outcome = evaluate(branch.cond, load, bit);
  return outcome === null || (outcome !== 0n) === branch.taken;
}
