import { keccak256 } from 'ethers';
import { isCallerLeaf, isNode, type Node, type Sym, T_CALLER, T_STORAGE } from './symbolic.ts';
import { isPowerOfTwo, log2, U256 } from './u256.ts';

/**
 * The shapes access control compiles to, recognised in a branch condition of the symbolic walk:
 *
 * - `caller == and(sload(slot) >> k, 0xff…ff)`: the caller compared with an address held in storage
 *   (Ownable, or any hand-written `msg.sender == _admin`), with the slot when it is a constant;
 * - `caller == 0x…`: the caller compared with an address written into the code;
 * - `sload(keccak(caller . keccak(role . slot)))` used as a boolean: a role mapping (AccessControl);
 *   `sload(keccak(caller . slot))` as a boolean: an authorisation mapping (isAdmin[msg.sender]);
 * - `caller == registry.owner()`: the caller compared with an address another contract returns;
 * - `keccak256(abi.encodePacked(msg.sender)) == storedHash` (or a hash written in the code): the
 *   caller proven to be one address without naming it, which renouncing owner() does not revoke;
 * - the result of an external call that was given the caller (`auth.hasRole(role, msg.sender)`).
 */

const ADDRESS_MASK = (1n << 160n) - 1n;
/** Addresses below this are precompiles or small numbers, not a hard-coded owner. */
const MIN_HARDCODED_ADDRESS = 1n << 32n;
/** A keccak-derived mapping slot is far above the sequential slots a compiler hands out. */
export const MIN_HASHED_SLOT = 1n << 160n;
/** Conditions are searched this deep for comparisons (ISZERO/OR/AND wrappers). */
const MAX_INSPECT_DEPTH = 8;

export type CallerCheckKind =
  | 'stored-address'
  | 'hardcoded-address'
  | 'external-address'
  | 'caller-hash'
  | 'role-mapping'
  | 'caller-mapping'
  | 'external-call';

export interface CallerCheck {
  kind: CallerCheckKind;
  /** The JUMPI that branches on it. */
  pc: number;
  /** stored-address, caller-hash: the storage slot (0x hex) when it is a constant, else null. */
  slot?: string | null;
  /** stored-address: bits the address is shifted by within the slot (packed storage). */
  shift?: number;
  /** hardcoded-address: the address. */
  address?: string;
  /** caller-mapping / role-mapping: the mapping's base slot (0x hex) when it is a constant. */
  mapping?: string | null;
  /** tx.origin rather than msg.sender. */
  origin?: boolean;
}

/** Removes address-cleaning and unpacking around a value: and(x, mask), x / 2^k, x >> k. */
export function unwrap(x: Sym): { core: Sym; shift: number } {
  let shift = 0;
  let cur = x;
  for (let i = 0; i < 6 && isNode(cur); i++) {
    const [a, b] = cur.args;
    if (cur.op === 'and' && typeof a === 'bigint' && b !== undefined) cur = b;
    else if (cur.op === 'and' && typeof b === 'bigint' && a !== undefined) cur = a;
    else if (cur.op === 'div' && typeof b === 'bigint' && a !== undefined && isPowerOfTwo(b)) {
      shift += log2(b);
      cur = a;
    } else if (cur.op === 'shr' && typeof a === 'bigint' && b !== undefined) {
      shift += Number(a);
      cur = b;
    } else break;
  }
  return { core: cur, shift };
}

/** One step of boolean unwrapping, or null when `x` is no wrapper. */
function boolInner(x: Node): Sym | null {
  const [a, b] = x.args;
  if (x.op === 'iszero' && a !== undefined) return a;
  if (x.op === 'and' && typeof a === 'bigint' && a <= 0xffn && b !== undefined) return b;
  if (x.op === 'and' && typeof b === 'bigint' && b <= 0xffn && a !== undefined) return a;
  // `level > 0` (`0 < level`): a uint admin level or count read as a flag.
  if (x.op === 'gt' && b === 0n && a !== undefined) return a;
  if (x.op === 'lt' && a === 0n && b !== undefined) return b;
  // `flag == true`, `flag == false`: still the flag.
  if (x.op === 'eq' && typeof a === 'bigint' && a <= 1n && b !== undefined) return b;
  if (x.op === 'eq' && typeof b === 'bigint' && b <= 1n && a !== undefined) return a;
  // A packed boolean: sload(slot) / 256^k or >> k.
  if (x.op === 'div' && typeof b === 'bigint' && a !== undefined && isPowerOfTwo(b)) return a;
  if (x.op === 'shr' && typeof a === 'bigint' && b !== undefined) return b;
  return null;
}

/** Removes boolean wrappers: iszero(iszero(x)), and(x, 0xff), and(x, 1), x == true. */
export function unwrapBool(x: Sym): Sym {
  let cur = x;
  for (let i = 0; i < 10 && isNode(cur); i++) {
    const inner = boolInner(cur);
    if (inner === null) break;
    cur = inner;
  }
  return cur;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** keccak of the caller's address alone (abi.encode or abi.encodePacked of msg.sender). */
const isCallerHash = (x: Sym): x is Node =>
  isNode(x) && x.op === 'sha3' && x.args.length === 1 && isCallerLeaf(unwrap(x.args[0]!).core);

/** `keccak(caller) == sload(slot)` or `== 0x<hash>`: a gate on one address known by its hash. */
function hashComparison(a: Sym, b: Sym, pc: number): CallerCheck | null {
  const [hash, other] = isCallerHash(a) ? [a, b] : isCallerHash(b) ? [b, a] : [null, null];
  if (hash === null) return null;
  const origin = unwrap(hash.args[0]!).core;
  const from = isNode(origin) && origin.op === 'origin' ? { origin: true } : {};
  // A hash is a full word: a small constant is a count or a flag, not a hash.
  if (typeof other === 'bigint')
    return other >= MIN_HASHED_SLOT ? { kind: 'caller-hash', pc, ...from } : null;
  if (other!.op !== 'sload') return null;
  const slot = slotValue(other!.args[0]);
  return { kind: 'caller-hash', pc, slot: slot === null ? null : hex(slot), ...from };
}

/** Operations that hide a stored address behind a constant (xor with a key, an offset). */
const MASKING_OPS = new Set(['xor', 'add', 'sub']);

/**
 * A storage read combined with constants only (`sload(k) ^ MASK`, `sload(k) - OFFSET`, nested at
 * most MAX_MASK_DEPTH deep): the load, or null. Nothing else may enter (no caller, call, other
 * load), so the value is one slot's, rewritten by a constant.
 */
const MAX_MASK_DEPTH = 3;
function maskedLoad(x: Sym, depth = 0): Node | null {
  if (!isNode(x) || depth > MAX_MASK_DEPTH || x.taint !== T_STORAGE) return null;
  if (x.op === 'sload') return depth === 0 ? null : x;
  if (!MASKING_OPS.has(x.op) || x.args.length !== 2) return null;
  const [a, b] = x.args;
  if (typeof a === 'bigint') return maskedLoad(unwrap(b!).core, depth + 1);
  if (typeof b === 'bigint') return maskedLoad(unwrap(a!).core, depth + 1);
  return null;
}

export function comparison(a: Sym, b: Sym, pc: number): CallerCheck | null {
  const hashed = hashComparison(a, b, pc);
  if (hashed) return hashed;
  const ua = unwrap(a);
  const ub = unwrap(b);
  for (const [callerSide, other] of [
    [ua, ub],
    [ub, ua],
  ] as const) {
    if (!isCallerLeaf(callerSide.core)) continue;
    const origin = callerSide.core.op === 'origin' ? { origin: true } : {};
    const core = other.core;
    if (typeof core === 'bigint') {
      const value = core & ADDRESS_MASK;
      if (core === value && value >= MIN_HARDCODED_ADDRESS) {
        return {
          kind: 'hardcoded-address',
          pc,
          address: `0x${value.toString(16).padStart(40, '0')}`,
          ...origin,
        };
      }
    } else if (core.op === 'sload') {
      const slot = slotValue(core.args[0]);
      // A mapping value compared with the caller (owners[id] == msg.sender) has no constant slot.
      return {
        kind: 'stored-address',
        pc,
        slot: slot === null ? null : hex(slot),
        shift: other.shift,
        ...origin,
      };
    } else if (maskedLoad(core) !== null) {
      // require(msg.sender == address(_k ^ MASK)): an owner kept obfuscated, still one slot's.
      const slot = slotValue(maskedLoad(core)!.args[0]);
      return { kind: 'stored-address', pc, slot: slot === null ? null : hex(slot), ...origin };
    } else if (core.op === 'retdata') {
      // require(msg.sender == registry.owner()): an address another contract holds.
      return { kind: 'external-address', pc, ...origin };
    }
  }
  return null;
}

/** A word of a hash input that is itself a hashed slot: the inner level of a nested mapping. */
const isHashedWord = (w: Sym) =>
  (typeof w === 'bigint' && w >= MIN_HASHED_SLOT) ||
  (isNode(w) &&
    (w.op === 'sha3' || (w.op === 'add' && w.args.some((a) => isNode(a) && a.op === 'sha3'))));

/** Tiers, roles and enums are small numbers; an amount (a walk's 1,000) or an address is not. */
const MAX_LEVEL = 255n;

/**
 * `level[msg.sender] == K` for a constant K from 2 to MAX_LEVEL: a tier or role number looked up
 * for the caller (0 and 1 are the flag itself, read by unwrapBool). The load, or the condition
 * itself. Whether the load is keyed by the caller is the caller's business.
 */
export function levelLoad(cond: Sym): Sym {
  // via-IR compiles `x == K` to `sub(x, K)` (zero when equal), as `!=` compiles elsewhere.
  if (!isNode(cond) || (cond.op !== 'eq' && cond.op !== 'sub' && cond.op !== 'xor')) return cond;
  const [a, b] = cond.args;
  const level = (k: Sym) => typeof k === 'bigint' && k > 1n && k <= MAX_LEVEL;
  if (level(a!) && b !== undefined) return unwrap(b).core;
  if (level(b!) && a !== undefined) return unwrap(a).core;
  return cond;
}

function mappingCheck(cond: Sym, pc: number): CallerCheck | null {
  const core = levelLoad(unwrapBool(cond));
  if (!isNode(core) || core.op !== 'sload') return null;
  const slot = core.args[0];
  if (!isNode(slot) || slot.op !== 'sha3') return null;
  const words = slot.args;
  if (!words.some((w) => isCallerLeaf(unwrap(w).core))) return null;
  // keccak(caller . keccak(role . slot)) folds the inner hash to a constant: a hash-sized word means
  // a mapping inside a mapping, i.e. a role table.
  const nested = words.some(isHashedWord);
  const base = words.length === 2 && typeof words[1] === 'bigint' ? hex(words[1]) : null;
  return { kind: nested ? 'role-mapping' : 'caller-mapping', pc, mapping: base };
}

/** The caller checks a symbolic branch condition at `pc` contains, appended to `found`. */
export function inspect(cond: Node, pc: number, found: CallerCheck[]): void {
  const mapped = mappingCheck(cond, pc);
  if (mapped) found.push(mapped);
  const seen = new Set<Node>();
  const visit = (x: Sym, depth: number) => {
    if (!isNode(x) || depth > MAX_INSPECT_DEPTH || seen.has(x) || (x.taint & T_CALLER) === 0)
      return;
    seen.add(x);
    if ((x.op === 'eq' || x.op === 'sub' || x.op === 'xor') && x.args.length === 2) {
      const check = comparison(x.args[0]!, x.args[1]!, pc);
      if (check) {
        found.push(check);
        return;
      }
    }
    // The optimizer compiles `x == K` to `add(x, -K)` (zero when equal).
    if (x.op === 'add' && x.args.length === 2) {
      const [a, b] = x.args;
      const [k, other] = typeof a === 'bigint' ? [a, b!] : typeof b === 'bigint' ? [b, a!] : [];
      const check =
        k !== undefined && other !== undefined
          ? comparison(other, (U256 + 1n - k) & U256, pc)
          : null;
      if (check) {
        found.push(check);
        return;
      }
    }
    if (x.op === 'retdata' && x.callerArg) {
      found.push({ kind: 'external-call', pc });
      return;
    }
    for (const a of x.args) visit(a, depth + 1);
  };
  visit(cond, 0);
}

/** A storage slot as a number when it is a constant or a hash of constants; else null. */
export function slotValue(slot: Sym | undefined): bigint | null {
  if (slot === undefined) return null;
  if (typeof slot === 'bigint') return slot;
  if (slot.op === 'sha3' && slot.args.length > 0 && slot.args.every((w) => typeof w === 'bigint')) {
    const words = (slot.args as bigint[]).map((w) => w.toString(16).padStart(64, '0')).join('');
    return BigInt(keccak256(`0x${words}`));
  }
  if (slot.op === 'add' && slot.args.length === 2) {
    const x = slotValue(slot.args[0]);
    const y = slotValue(slot.args[1]);
    if (x !== null && y !== null) return (x + y) & U256;
  }
  return null;
}

export function dedupeChecks(checks: readonly CallerCheck[]): CallerCheck[] {
  const seen = new Map<string, CallerCheck>();
  for (const c of checks) {
    const key = `${c.kind}|${c.slot ?? ''}|${c.shift ?? ''}|${c.address ?? ''}|${c.mapping ?? ''}|${c.origin ? 'o' : ''}`;
    if (!seen.has(key)) seen.set(key, c);
  }
  return [...seen.values()];
}
