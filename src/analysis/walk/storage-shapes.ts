import { keccak256, toUtf8Bytes } from 'ethers';
import { type CallerCheck, comparison, levelLoad, unwrap } from './caller-patterns.ts';
import { isCallerLeaf, isNode, type Node, type Sym } from './symbolic.ts';
import { fold, isPowerOfTwo, log2, U256 } from './u256.ts';

/**
 * What a storage slot expression of the symbolic walk stands for, in Solidity's layout terms:
 * a plain variable (a constant slot), an entry of a mapping (`keccak(key . base)`), of a mapping
 * of mappings (`keccak(key2 . keccak(key1 . base))`), a member of a struct or a dynamic array kept
 * in such an entry (`keccak(entry) + i`, MiniMe's checkpoints). And, for a branch condition,
 * whether taking it proves the caller privileged.
 */

export type SlotShape =
  | { kind: 'slot'; slot: bigint }
  | { kind: 'map'; base: bigint; key: Sym; direct?: boolean }
  | { kind: 'map2'; base: bigint; outer: Sym; inner: Sym };

const MAX_SHAPE_DEPTH = 4;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** A flag is masked with at most a byte (bool, uint8 enum); wider masks extract addresses or amounts. */
const MAX_FLAG_MASK = 0xffn;

/** The mapping key without the address cleaning around it. */
export const keyCore = (k: Sym): Sym => unwrap(k).core;

/**
 * A constant slot is a plain variable wherever it lies: below 2^160 a compiler's sequential slot,
 * above it a namespaced one (OpenZeppelin 5's ERC-7201 structs, `keccak256(id) - 1 & ~0xff` plus
 * the member's offset; EIP-1967's slots; Solady's owner slot). A folded mapping entry is a
 * constant too, but the walk has turned those it can name back into entries (walk/state.ts
 * `foldedSlots`). Before namespaced slots counted, an OpenZeppelin 5 upgradeable token's
 * balances (a mapping whose base is the ERC-7201 slot) and supply were unreadable.
 */
export function slotShape(slot: Sym, depth = 0): SlotShape | null {
  if (typeof slot === 'bigint') return { kind: 'slot', slot };
  if (depth > MAX_SHAPE_DEPTH) return null;
  if (slot.op === 'sha3' && slot.args.length === 2) {
    const [key, base] = slot.args as [Sym, Sym];
    if (typeof base === 'bigint')
      return { kind: 'map', base, key: keyCore(key), direct: depth === 0 };
    const inner = slotShape(base, depth + 1);
    if (inner?.kind === 'map')
      return { kind: 'map2', base: inner.base, outer: inner.key, inner: keyCore(key) };
    return null;
  }
  if (slot.op === 'sha3' && slot.args.length === 1) {
    const packed = packedEntry(slot.args[0]!);
    if (packed)
      return { kind: 'map', base: packed.base, key: keyCore(packed.key), direct: depth === 0 };
    // A struct member or array element inside an entry: keccak(entry) + i, or entry + i.
    return slotShape(slot.args[0]!, depth + 1);
  }
  if (slot.op === 'add' && slot.args.length === 2) {
    const [a, b] = slot.args as [Sym, Sym];
    // `entry + 0` (unoptimised code adds the first member's offset) is the entry itself.
    if (a === 0n || b === 0n) return slotShape(a === 0n ? b : a, depth);
    const sa = slotShape(a, depth + 1);
    if (sa && (sa.kind !== 'slot' || typeof b === 'bigint')) return sa.kind === 'slot' ? null : sa;
    const sb = slotShape(b, depth + 1);
    if (sb && sb.kind !== 'slot') return sb;
  }
  return null;
}

/**
 * A mapping no Solidity declares: Solady keeps an account's balance at `keccak256(account .
 * seed)`, one 32-byte word of the account's 20 bytes and a 12-byte seed (`_BALANCE_SLOT_SEED`),
 * hashed from memory at 0x0c (walk/state.ts `composeWord`). It is read as a mapping whose base
 * is the seed under a tag no compiler's slot has (`PACKED_TAG`), so every entry of one seed
 * shares one base, whatever the account; `entrySlot` computes an entry's real slot.
 */
const PACKED_TAG = BigInt(keccak256(toUtf8Bytes('token-monitor.packed-mapping'))) >> 96n;
const PACKED_KEY_SHIFT = 96n;
/** Seeds are a few bytes (Solady's are four); a wider low part is an address's or a hash's bits. */
const MAX_PACKED_SEED = 1n << 64n;

function packedEntry(w: Sym): { base: bigint; key: Sym } | null {
  const entry = (key: Sym, seed: bigint) =>
    seed > 0n && seed < MAX_PACKED_SEED
      ? { base: (PACKED_TAG << PACKED_KEY_SHIFT) | seed, key }
      : null;
  if (typeof w === 'bigint') {
    const key = w >> PACKED_KEY_SHIFT;
    return key === 0n ? null : entry(key, w & ((1n << PACKED_KEY_SHIFT) - 1n));
  }
  if (w.op !== 'or' || w.args.length !== 2) return null;
  const [a, b] = w.args as [Sym, Sym];
  const [shifted, seed] = typeof b === 'bigint' ? [a, b] : [b, a];
  if (typeof seed !== 'bigint' || !isNode(shifted) || shifted.op !== 'shl') return null;
  const [shift, key] = shifted.args as [Sym, Sym];
  return shift === PACKED_KEY_SHIFT ? entry(key, seed) : null;
}

/** Is `base` a packed mapping's (see packedEntry)? */
export const isPackedBase = (base: bigint) => base >> PACKED_KEY_SHIFT === PACKED_TAG;

/** The storage slot of `key`'s entry in the mapping at `base` (a Solidity or a packed one). */
export function entrySlot(base: bigint, key: bigint): string {
  const word = (v: bigint) => v.toString(16).padStart(64, '0');
  if (!isPackedBase(base)) return keccak256(`0x${word(key)}${word(base)}`);
  const seed = base & ((1n << PACKED_KEY_SHIFT) - 1n);
  return keccak256(`0x${word(((key << PACKED_KEY_SHIFT) | seed) & ((1n << 256n) - 1n))}`);
}

/** `keccak(key . base)`: the entry of a plain mapping (a namespaced base too, see slotShape). */
const isEntry = (x: Sym): boolean =>
  isNode(x) &&
  x.op === 'sha3' &&
  ((x.args.length === 2 && typeof x.args[1] === 'bigint') ||
    (x.args.length === 1 && packedEntry(x.args[0]!) !== null));

/**
 * The struct member a slot of a plain mapping's entry is at: 0 for the entry itself, `i` for
 * `entry + i`; null for anything deeper (an array inside the entry) or not an entry.
 */
export function memberOffset(slot: Sym): bigint | null {
  if (isEntry(slot)) return 0n;
  if (!isNode(slot) || slot.op !== 'add' || slot.args.length !== 2) return null;
  const [a, b] = slot.args as [Sym, Sym];
  if (typeof a === 'bigint' && isEntry(b)) return a;
  if (typeof b === 'bigint' && isEntry(a)) return b;
  return null;
}

/** The account a balance-like entry is keyed by: for a mapping of mappings, the outer key. */
export const entryKey = (shape: SlotShape): Sym | null =>
  shape.kind === 'map' ? shape.key : shape.kind === 'map2' ? shape.outer : null;

export const asAddress = (k: Sym | null): bigint | null =>
  typeof k === 'bigint' && (k & ADDRESS_MASK) === k ? k : null;

/** Does `expr` contain a node with operator `op` (bounded search)? */
export function contains(expr: Sym, pred: (n: Node) => boolean, budget = 200): boolean {
  const stack: Sym[] = [expr];
  let seen = 0;
  while (stack.length > 0 && seen++ < budget) {
    const x = stack.pop()!;
    if (!isNode(x)) continue;
    if (pred(x)) return true;
    stack.push(...x.args);
  }
  return false;
}

/**
 * Whether a path that took (`want` = true) or did not take (`want` = false) a branch on `cond`
 * can only be a privileged caller's: `msg.sender == owner` held, `isAdmin[msg.sender]` was true,
 * `hasRole(role, msg.sender)` answered yes. `!frozen[msg.sender]` is no privilege.
 */
export function privilegedBy(
  cond: Sym,
  want: boolean,
  accept: (c: CallerCheck) => boolean = () => true,
): boolean {
  return impliesCaller(cond, want, accept);
}

/** Whether the branch outcome proves `msg.sender == holder` (the holder acts on its own tokens). */
export function callerIs(cond: Sym, want: boolean, holder: bigint): boolean {
  return impliesCaller(
    cond,
    want,
    (c) => c.kind === 'hardcoded-address' && BigInt(c.address!) === holder,
  );
}

/** Does the branch outcome prove a caller check that `accept` takes? */
function impliesCaller(
  cond: Sym,
  want: boolean,
  accept: (c: CallerCheck) => boolean,
  depth = 0,
): boolean {
  if (!isNode(cond) || depth > 10) return false;
  const [a, b] = cond.args;
  const p = (x: Sym, w: boolean) => impliesCaller(x, w, accept, depth + 1);
  const compared = (x: Sym, y: Sym) => {
    const check = comparison(x, y, 0);
    return check !== null && accept(check);
  };
  switch (cond.op) {
    case 'iszero':
      return p(a!, !want);
    case 'eq':
      if (a === 0n) return p(b!, !want);
      if (b === 0n) return p(a!, !want);
      if (a === 1n) return p(b!, want);
      if (b === 1n) return p(a!, want);
      // `tier[msg.sender] == 3`: a level looked up for the caller, true when it equals K.
      if (want && levelLoad(cond) !== cond && p(levelLoad(cond), true)) return true;
      return want && compared(a!, b!);
    case 'sub':
    case 'xor':
      if (!want && levelLoad(cond) !== cond && p(levelLoad(cond), true)) return true;
      return !want && compared(a!, b!);
    // The optimizer's `x == K` as `add(x, -K)`: zero when equal.
    case 'add': {
      const k = typeof a === 'bigint' ? a : typeof b === 'bigint' ? b : null;
      const other = typeof a === 'bigint' ? b! : a!;
      return !want && k !== null && compared(other, (U256 + 1n - k) & U256);
    }
    case 'and':
      if (typeof a === 'bigint') return p(b!, want);
      if (typeof b === 'bigint') return p(a!, want);
      return want ? p(a!, true) || p(b!, true) : p(a!, false) && p(b!, false);
    case 'or':
      return want ? p(a!, true) && p(b!, true) : p(a!, false) || p(b!, false);
    case 'div':
    case 'shr': {
      const inner =
        cond.op === 'div' ? (typeof b === 'bigint' && isPowerOfTwo(b) ? a : undefined) : b;
      return inner !== undefined && p(inner, want);
    }
    // `admins[msg.sender] > 0` (a level or a count, not a bool): true exactly when non-zero.
    case 'gt':
      return b === 0n && p(a!, want);
    case 'lt':
      return a === 0n && p(b!, want);
    case 'sload': {
      if (!want || !callerKeyed(cond)) return false;
      const shape = slotShape(cond.args[0]!);
      const mapping = shape && shape.kind !== 'slot' ? `0x${shape.base.toString(16)}` : null;
      return accept({ kind: 'caller-mapping', pc: 0, mapping });
    }
    case 'retdata':
      return want && cond.callerArg === true && accept({ kind: 'external-call', pc: 0 });
    default:
      return false;
  }
}

/** sload(keccak(caller . base)) or a role table keyed by the caller. */
function callerKeyed(load: Node): boolean {
  const shape = slotShape(load.args[0]!);
  if (!shape || shape.kind === 'slot') return false;
  return shape.kind === 'map'
    ? isCallerLeaf(shape.key)
    : isCallerLeaf(shape.inner) || isCallerLeaf(shape.outer);
}

/** A value read as a flag: the loaded slot, the bit it sits at, and the polarity peeled off. */
export interface FlagRead {
  load: Node;
  shift: number;
}

/**
 * The storage reads a branch condition tests as a flag (`paused`, `frozen[from]`, packed flags
 * `sload(s) / 2^160 & 0xff`), and reads compared with the block time or number (time locks).
 */
export function flagReads(cond: Sym, out: FlagRead[] = [], shift = 0, depth = 0): FlagRead[] {
  if (!isNode(cond) || depth > 12) return out;
  const [a, b] = cond.args;
  switch (cond.op) {
    case 'sload':
      out.push({ load: cond, shift });
      break;
    case 'iszero':
      flagReads(a!, out, shift, depth + 1);
      break;
    case 'eq':
      if (typeof a === 'bigint' && a <= 1n) flagReads(b!, out, shift, depth + 1);
      else if (typeof b === 'bigint' && b <= 1n) flagReads(a!, out, shift, depth + 1);
      break;
    case 'and':
      // and(x, 0xff…ff) with 160 bits or more extracts an address, not a flag.
      if (typeof a === 'bigint' || typeof b === 'bigint') {
        const [mask, inner] = typeof a === 'bigint' ? [a, b!] : [b as bigint, a!];
        if (mask <= MAX_FLAG_MASK) flagReads(inner, out, shift, depth + 1);
        break;
      }
      flagReads(a!, out, shift, depth + 1);
      flagReads(b!, out, shift, depth + 1);
      break;
    case 'or':
      flagReads(a!, out, shift, depth + 1);
      flagReads(b!, out, shift, depth + 1);
      break;
    case 'div':
      if (typeof b === 'bigint' && isPowerOfTwo(b)) flagReads(a!, out, shift + log2(b), depth + 1);
      break;
    case 'shr':
      if (typeof a === 'bigint') flagReads(b!, out, shift + Number(a), depth + 1);
      break;
    case 'lt':
    case 'gt':
    case 'slt':
    case 'sgt': {
      const timed = [a!, b!].some((x) =>
        contains(x, (n) => n.op === 'timestamp' || n.op === 'number', 20),
      );
      if (timed) for (const x of [a!, b!]) collectLoads(x, out);
      break;
    }
    default:
      break;
  }
  return out;
}

function collectLoads(x: Sym, out: FlagRead[]): void {
  contains(
    x,
    (n) => {
      if (n.op === 'sload') out.push({ load: n, shift: 0 });
      return false;
    },
    40,
  );
}

/**
 * The bits of `slot` a write of `value` may change: a packed write keeps the rest of the word,
 * `or(and(sload(slot), keep), new)`; any other value replaces the whole word.
 */
export function changedBits(value: Sym, slot: bigint): bigint {
  const all = (1n << 256n) - 1n;
  let keep: bigint | null = null;
  contains(
    value,
    (n) => {
      if (n.op !== 'and' || n.args.length !== 2) return false;
      const [a, b] = n.args as [Sym, Sym];
      const [mask, other] =
        typeof a === 'bigint' ? [a, b] : typeof b === 'bigint' ? [b, a] : [null, null];
      if (mask === null || !isNode(other) || other.op !== 'sload' || other.args[0] !== slot)
        return false;
      keep = mask;
      return true;
    },
    60,
  );
  return keep === null ? all : all & ~(keep as bigint);
}

const BINARY_OPS: Record<string, number> = {
  add: 0x01,
  mul: 0x02,
  sub: 0x03,
  div: 0x04,
  lt: 0x10,
  gt: 0x11,
  eq: 0x14,
  and: 0x16,
  or: 0x17,
  xor: 0x18,
  shl: 0x1b,
  shr: 0x1c,
};

/**
 * The value of `expr` when `target` (a storage read) holds `value`, or null when something else
 * it depends on is unknown. An `and`, `mul` or `div` with a zero side is zero all the same.
 */
export function evaluate(expr: Sym, target: Node, value: bigint): bigint | null {
  return evaluateWith(expr, (n) => (n === target ? value : undefined));
}

/** The value of `expr` when every node `known` answers for holds that value (see evaluate). */
export function evaluateWith(
  expr: Sym,
  known: (n: Node) => bigint | undefined,
  depth = 0,
): bigint | null {
  if (typeof expr === 'bigint') return expr;
  const given = known(expr);
  if (given !== undefined) return given;
  if (depth > 16) return null;
  const args = expr.args.map((a) => evaluateWith(a, known, depth + 1));
  if (expr.op === 'iszero')
    return args[0] === null || args[0] === undefined ? null : args[0] === 0n ? 1n : 0n;
  if (expr.op === 'not')
    return args[0] === null || args[0] === undefined ? null : ((1n << 256n) - 1n) ^ args[0];
  const code = BINARY_OPS[expr.op];
  if (code === undefined || args.length !== 2) return null;
  const [x, y] = args as [bigint | null, bigint | null];
  if (x !== null && y !== null) return fold(code, x, y);
  if (expr.op === 'and' && (x === 0n || y === 0n)) return 0n;
  // Zero whatever the other side is: a cap of `supply * percent / 100` with the percent at zero.
  if ((expr.op === 'mul' || expr.op === 'div') && (x === 0n || y === 0n)) return 0n;
  return null;
}

/** Storage reads compared by size in a condition (`balance - locked[from] >= value`). */
export function comparedReads(cond: Sym): Node[] {
  const out: Node[] = [];
  contains(
    cond,
    (n) => {
      if (n.op === 'lt' || n.op === 'gt' || n.op === 'slt' || n.op === 'sgt') {
        for (const side of n.args)
          contains(
            side,
            (m) => {
              if (m.op === 'sload') out.push(m);
              return false;
            },
            60,
          );
      }
      return false;
    },
    60,
  );
  return out;
}

/** Structural equality of two expressions (bounded): the same slot computed twice is one slot. */
export function sameSym(a: Sym, b: Sym, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint' || depth > 12) return false;
  return (
    a.op === b.op &&
    a.args.length === b.args.length &&
    a.args.every((x, i) => sameSym(x, b.args[i]!, depth + 1))
  );
}
