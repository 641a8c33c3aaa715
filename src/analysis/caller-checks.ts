import { keccak256 } from 'ethers';
import { metadataLength } from './skeleton.ts';

/**
 * A light symbolic walk of one function: which checks on the caller guard it.
 *
 * The walk starts at pc 0 with concrete call data (the selector and plausible arguments), so the
 * dispatcher, argument decoding and most argument checks run concretely down the function's own
 * branch. Only what the code cannot know is symbolic: CALLER/ORIGIN, storage (SLOAD), external
 * calls and the environment. A JUMPI on a symbolic condition forks. At each such JUMPI the
 * condition is inspected for the shapes access control compiles to:
 *
 * - `caller == and(sload(slot) >> k, 0xff…ff)`: the caller compared with an address held in storage
 *   (Ownable, or any hand-written `msg.sender == _admin`), with the slot when it is a constant;
 * - `caller == 0x…`: the caller compared with an address written into the code;
 * - `sload(keccak(caller . keccak(role . slot)))` used as a boolean: a role mapping (AccessControl);
 *   `sload(keccak(caller . slot))` as a boolean: an authorisation mapping (isAdmin[msg.sender]);
 * - `caller == registry.owner()`: the caller compared with an address another contract returns;
 * - the result of an external call that was given the caller (`auth.hasRole(role, msg.sender)`).
 *
 * Everything is bounded: total steps, paths, visits of a symbolic branch per path, expression depth.
 */

const U256 = (1n << 256n) - 1n;
const SIGN_BIT = 1n << 255n;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** Addresses below this are precompiles or small numbers, not a hard-coded owner. */
const MIN_HARDCODED_ADDRESS = 1n << 32n;
/** A keccak-derived mapping slot is far above the sequential slots a compiler hands out. */
const MIN_HASHED_SLOT = 1n << 160n;

const MAX_TOTAL_STEPS = 25_000;
const MAX_PATH_STEPS = 4_000;
const MAX_PATHS = 48;
/** A loop with a symbolic exit condition is followed at most this many times per path. */
const MAX_BRANCH_VISITS = 2;
const MAX_EXPRESSION_DEPTH = 24;
const MAX_STACK = 1024;
/** Conditions are searched this deep for comparisons (ISZERO/OR/AND wrappers). */
const MAX_INSPECT_DEPTH = 8;

const T_CALLER = 1;
const T_STORAGE = 2;
const T_EXTERNAL = 4;

interface Node {
  readonly op: string;
  readonly args: readonly Sym[];
  readonly taint: number;
  readonly depth: number;
  /** For 'retdata': the external call was given the caller among its arguments. */
  readonly callerArg?: boolean;
}
type Sym = bigint | Node;

/** An answer computed from the caller (callerArg) depends on the caller, like the caller itself. */
const leaf = (op: string, taint = 0, callerArg?: boolean): Node => ({ op, args: [], taint: callerArg ? taint | T_CALLER : taint, depth: 1, callerArg });
const CALLER: Node = leaf('caller', T_CALLER);
const ORIGIN: Node = leaf('origin', T_CALLER);

function node(op: string, args: readonly Sym[], extraTaint = 0): Node {
  let taint = extraTaint;
  let depth = 0;
  for (const a of args) {
    if (typeof a !== 'bigint') {
      taint |= a.taint;
      if (a.depth > depth) depth = a.depth;
    }
  }
  // Deep expressions keep only their taint: enough to know what they depend on.
  if (depth + 1 > MAX_EXPRESSION_DEPTH) return { op: 'opaque', args: [], taint, depth: 1 };
  return { op, args, taint, depth: depth + 1 };
}

export type CallerCheckKind = 'stored-address' | 'hardcoded-address' | 'external-address' | 'role-mapping' | 'caller-mapping' | 'external-call';

export interface CallerCheck {
  kind: CallerCheckKind;
  /** The JUMPI that branches on it. */
  pc: number;
  /** stored-address: the storage slot (0x hex) when it is a constant, else null. */
  slot?: string | null;
  /** stored-address: bits the address is shifted by within the slot (packed storage). */
  shift?: number;
  /** hardcoded-address: the address. */
  address?: string;
  /** tx.origin rather than msg.sender. */
  origin?: boolean;
}

export interface WalkResult {
  checks: CallerCheck[];
  /** Some branch condition depended on the caller (in any way). */
  callerDependent: boolean;
  /** A path ended in success after changing state (SSTORE, LOG, CALL, CREATE) without passing a caller check. */
  unguardedStateChange: boolean;
  externalCalls: boolean;
  /** Every path was followed to its end within the budget. */
  complete: boolean;
  steps: number;
  paths: number;
}

/** The code prepared once for all walks over it. */
export interface CodeModel {
  bytes: Uint8Array;
  jumpdests: Uint8Array;
  /** CALLER or ORIGIN occurs as an instruction: without either no function can check its caller. */
  readsCaller: boolean;
}

export function prepareCode(hex: string): CodeModel {
  const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  const jumpdests = new Uint8Array(bytes.length);
  let readsCaller = false;
  // The metadata trailer is data: a 0x33 byte in its hash is no CALLER.
  const end = bytes.length - metadataLength(bytes);
  for (let pc = 0; pc < end; pc++) {
    const op = bytes[pc]!;
    if (op === 0x5b) jumpdests[pc] = 1;
    else if (op === 0x33 || op === 0x32) readsCaller = true;
    else if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
  }
  return { bytes, jumpdests, readsCaller };
}

interface State {
  pc: number;
  stack: Sym[];
  memory: Map<number, Sym>;
  /** A write at a symbolic offset happened: unknown memory reads are unknown, not zero. */
  memoryDirty: boolean;
  /** Some word was written at an offset that is not a multiple of 32. */
  unaligned: boolean;
  returnSize: Sym;
  visits: Map<number, number>;
  steps: number;
  /** This path branched on a caller check (one of the CallerCheck shapes). */
  guarded: boolean;
  stateChanged: boolean;
  /** The last external call had the caller among its arguments. */
  lastCall?: boolean;
}

const toSigned = (x: bigint) => (x & SIGN_BIT ? x - (1n << 256n) : x);
const toUnsigned = (x: bigint) => x & U256;

function fold(op: number, a: bigint, b: bigint): bigint {
  switch (op) {
    case 0x01: return (a + b) & U256;
    case 0x02: return (a * b) & U256;
    case 0x03: return (a - b) & U256;
    case 0x04: return b === 0n ? 0n : a / b;
    case 0x05: return b === 0n ? 0n : toUnsigned(toSigned(a) / toSigned(b));
    case 0x06: return b === 0n ? 0n : a % b;
    case 0x07: return b === 0n ? 0n : toUnsigned(toSigned(a) % toSigned(b));
    case 0x0a: return modPow(a, b);
    case 0x0b: {
      if (a >= 31n) return b;
      const bit = 8n * a + 7n;
      const mask = (1n << bit) - 1n;
      return b & (1n << bit) ? toUnsigned(b | ~mask) : b & mask;
    }
    case 0x10: return a < b ? 1n : 0n;
    case 0x11: return a > b ? 1n : 0n;
    case 0x12: return toSigned(a) < toSigned(b) ? 1n : 0n;
    case 0x13: return toSigned(a) > toSigned(b) ? 1n : 0n;
    case 0x14: return a === b ? 1n : 0n;
    case 0x16: return a & b;
    case 0x17: return a | b;
    case 0x18: return a ^ b;
    case 0x1a: return a >= 32n ? 0n : (b >> (8n * (31n - a))) & 0xffn;
    case 0x1b: return a >= 256n ? 0n : (b << a) & U256;
    case 0x1c: return a >= 256n ? 0n : b >> a;
    case 0x1d: return a >= 256n ? (b & SIGN_BIT ? U256 : 0n) : toUnsigned(toSigned(b) >> a);
    default: return 0n;
  }
}

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base & U256;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) & U256;
    b = (b * b) & U256;
    e >>= 1n;
  }
  return result;
}

const BINARY_NAMES: Record<number, string> = {
  0x01: 'add', 0x02: 'mul', 0x03: 'sub', 0x04: 'div', 0x05: 'sdiv', 0x06: 'mod', 0x07: 'smod', 0x0a: 'exp', 0x0b: 'signextend',
  0x10: 'lt', 0x11: 'gt', 0x12: 'slt', 0x13: 'sgt', 0x14: 'eq', 0x16: 'and', 0x17: 'or', 0x18: 'xor', 0x1a: 'byte',
  0x1b: 'shl', 0x1c: 'shr', 0x1d: 'sar',
};

/** Removes address-cleaning and unpacking around a value: and(x, mask), x / 2^k, x >> k. */
function unwrap(x: Sym): { core: Sym; shift: number } {
  let shift = 0;
  let cur = x;
  for (let i = 0; i < 6 && typeof cur !== 'bigint'; i++) {
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

const isPowerOfTwo = (n: bigint) => n > 0n && (n & (n - 1n)) === 0n;
const log2 = (n: bigint) => n.toString(2).length - 1;

/** Removes boolean wrappers: iszero(iszero(x)), and(x, 0xff), and(x, 1). */
function unwrapBool(x: Sym): Sym {
  let cur = x;
  for (let i = 0; i < 10 && typeof cur !== 'bigint'; i++) {
    const [a, b] = cur.args;
    if (cur.op === 'iszero' && a !== undefined) cur = a;
    else if (cur.op === 'and' && typeof a === 'bigint' && a <= 0xffn && b !== undefined) cur = b;
    else if (cur.op === 'and' && typeof b === 'bigint' && b <= 0xffn && a !== undefined) cur = a;
    // `flag == true`, `flag == false`: still the flag.
    else if (cur.op === 'eq' && typeof a === 'bigint' && a <= 1n && b !== undefined) cur = b;
    else if (cur.op === 'eq' && typeof b === 'bigint' && b <= 1n && a !== undefined) cur = a;
    // A packed boolean: sload(slot) / 256^k or >> k.
    else if (cur.op === 'div' && typeof b === 'bigint' && a !== undefined && isPowerOfTwo(b)) cur = a;
    else if (cur.op === 'shr' && typeof a === 'bigint' && b !== undefined) cur = b;
    else break;
  }
  return cur;
}

const isCallerLeaf = (x: Sym): x is Node => typeof x !== 'bigint' && (x.op === 'caller' || x.op === 'origin');

function comparison(a: Sym, b: Sym, pc: number): CallerCheck | null {
  const ua = unwrap(a);
  const ub = unwrap(b);
  for (const [callerSide, other] of [[ua, ub], [ub, ua]] as const) {
    if (!isCallerLeaf(callerSide.core)) continue;
    const origin = callerSide.core.op === 'origin' ? { origin: true } : {};
    const core = other.core;
    if (typeof core === 'bigint') {
      const value = core & ADDRESS_MASK;
      if (core === value && value >= MIN_HARDCODED_ADDRESS) {
        return { kind: 'hardcoded-address', pc, address: `0x${value.toString(16).padStart(40, '0')}`, ...origin };
      }
    } else if (core.op === 'sload') {
      const slot = slotValue(core.args[0]);
      if (slot !== null) return { kind: 'stored-address', pc, slot: `0x${slot.toString(16)}`, shift: other.shift, ...origin };
      // A mapping value compared with the caller (owners[id] == msg.sender) or a computed slot.
      return { kind: 'stored-address', pc, slot: null, shift: other.shift, ...origin };
    } else if (core.op === 'retdata') {
      // require(msg.sender == registry.owner()): an address another contract holds.
      return { kind: 'external-address', pc, ...origin };
    }
  }
  return null;
}

function mappingCheck(cond: Sym, pc: number): CallerCheck | null {
  const core = unwrapBool(cond);
  if (typeof core === 'bigint' || core.op !== 'sload') return null;
  const slot = core.args[0];
  if (slot === undefined || typeof slot === 'bigint' || slot.op !== 'sha3') return null;
  const words = slot.args;
  const keyedByCaller = words.some((w) => isCallerLeaf(unwrap(w).core));
  if (!keyedByCaller) return null;
  // keccak(caller . keccak(role . slot)) folds the inner hash to a constant: a hash-sized word means
  // a mapping inside a mapping, i.e. a role table.
  const nested = words.some((w) => (typeof w === 'bigint' && w >= MIN_HASHED_SLOT) || (typeof w !== 'bigint' && (w.op === 'sha3' || (w.op === 'add' && w.args.some((a) => typeof a !== 'bigint' && a.op === 'sha3')))));
  return { kind: nested ? 'role-mapping' : 'caller-mapping', pc };
}

function inspect(cond: Node, pc: number, found: CallerCheck[]): void {
  const mapped = mappingCheck(cond, pc);
  if (mapped) found.push(mapped);
  const seen = new Set<Node>();
  const visit = (x: Sym, depth: number) => {
    if (typeof x === 'bigint' || depth > MAX_INSPECT_DEPTH || seen.has(x) || (x.taint & T_CALLER) === 0) return;
    seen.add(x);
    if ((x.op === 'eq' || x.op === 'sub' || x.op === 'xor') && x.args.length === 2) {
      const check = comparison(x.args[0]!, x.args[1]!, pc);
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

function readWord(bytes: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(bytes[offset + i] ?? 0);
  return v;
}

/**
 * Walks the function that `calldata` (0x hex: selector + arguments) dispatches to.
 * `budget` lowers the step allowance (tests, or many functions of one contract).
 */
export function walkFunction(model: CodeModel, calldataHex: string, budget = MAX_TOTAL_STEPS): WalkResult {
  const calldata = Uint8Array.from(Buffer.from(calldataHex.replace(/^0x/, ''), 'hex'));
  const { bytes, jumpdests } = model;
  const result: WalkResult = { checks: [], callerDependent: false, unguardedStateChange: false, externalCalls: false, complete: true, steps: 0, paths: 1 };
  const found: CallerCheck[] = [];
  const pending: State[] = [
    { pc: 0, stack: [], memory: new Map(), memoryDirty: false, unaligned: false, returnSize: 0n, visits: new Map(), steps: 0, guarded: false, stateChanged: false },
  ];
  let total = 0;

  // Memory is a map of 32-byte words by offset. While every access is word-aligned (what solc
  // emits almost always) words cannot overlap and a lookup is one get; otherwise overlaps are searched.
  const mload = (s: State, offset: Sym): Sym => {
    if (typeof offset !== 'bigint' || offset > 0xffffffffn) return node('mload', []);
    const o = Number(offset);
    const exact = s.memory.get(o);
    if (exact !== undefined) return exact;
    if (s.unaligned || o % 32 !== 0) for (const k of s.memory.keys()) if (k > o - 32 && k < o + 32) return node('mload', []);
    return s.memoryDirty ? node('mload', []) : 0n;
  };
  const mstore = (s: State, offset: Sym, value: Sym) => {
    if (typeof offset !== 'bigint' || offset > 0xffffffffn) {
      s.memoryDirty = true;
      return;
    }
    const o = Number(offset);
    if (o % 32 !== 0) s.unaligned = true;
    if (s.unaligned) for (const k of [...s.memory.keys()]) if (k > o - 32 && k < o + 32 && k !== o) s.memory.delete(k);
    s.memory.set(o, value);
  };
  const copyIn = (s: State, dest: Sym, size: Sym, word: (i: number) => Sym) => {
    if (typeof dest !== 'bigint' || typeof size !== 'bigint' || size > 4096n) {
      s.memoryDirty = true;
      return;
    }
    const words = Math.ceil(Number(size) / 32);
    for (let i = 0; i < words; i++) mstore(s, dest + BigInt(32 * i), word(i));
  };

  // One pop for the whole walk (a closure per step would cost more than the step itself).
  let current: Sym[] = [];
  const pop = (): Sym => {
    const v = current.pop();
    if (v === undefined) throw new StackUnderflow();
    return v;
  };

  while (pending.length > 0) {
    const s = pending.pop()!;
    let alive = true;
    while (alive) {
      if (total >= budget || s.steps >= MAX_PATH_STEPS) {
        result.complete = false;
        break;
      }
      total++;
      s.steps++;
      const pc = s.pc;
      if (pc >= bytes.length) break; // implicit STOP
      const op = bytes[pc]!;
      const stack = s.stack;
      current = stack;
      try {
        if (op >= 0x60 && op <= 0x7f) {
          const size = op - 0x5f;
          let v = 0n;
          for (let i = 1; i <= size; i++) v = (v << 8n) | BigInt(bytes[pc + i] ?? 0);
          stack.push(v);
          s.pc = pc + 1 + size;
        } else if (op >= 0x80 && op <= 0x8f) {
          const v = stack[stack.length - 1 - (op - 0x80)];
          if (v === undefined) throw new StackUnderflow();
          stack.push(v);
          s.pc++;
        } else if (op >= 0x90 && op <= 0x9f) {
          const i = stack.length - 2 - (op - 0x90);
          if (i < 0) throw new StackUnderflow();
          const top = stack[stack.length - 1]!;
          stack[stack.length - 1] = stack[i]!;
          stack[i] = top;
          s.pc++;
        } else if (BINARY_NAMES[op] !== undefined) {
          const a = pop();
          const b = pop();
          if (typeof a === 'bigint' && typeof b === 'bigint') stack.push(fold(op, a, b));
          else stack.push(node(BINARY_NAMES[op]!, [a, b]));
          s.pc++;
        } else {
          switch (op) {
            case 0x00: // STOP
            case 0xf3: // RETURN
              if (op === 0xf3) { pop(); pop(); }
              if (s.stateChanged && !s.guarded) result.unguardedStateChange = true;
              alive = false;
              break;
            case 0xfd: // REVERT
            case 0xfe: // INVALID
            case 0xff: // SELFDESTRUCT
              if (op === 0xff && !s.guarded) result.unguardedStateChange = true;
              alive = false;
              break;
            case 0x08: case 0x09: { // ADDMOD, MULMOD
              const a = pop(), b = pop(), n = pop();
              if (typeof a === 'bigint' && typeof b === 'bigint' && typeof n === 'bigint') {
                stack.push(n === 0n ? 0n : op === 0x08 ? (a + b) % n : (a * b) % n);
              } else stack.push(node(op === 0x08 ? 'addmod' : 'mulmod', [a, b, n]));
              s.pc++;
              break;
            }
            case 0x15: { // ISZERO
              const a = pop();
              stack.push(typeof a === 'bigint' ? (a === 0n ? 1n : 0n) : node('iszero', [a]));
              s.pc++;
              break;
            }
            case 0x19: { // NOT
              const a = pop();
              stack.push(typeof a === 'bigint' ? U256 ^ a : node('not', [a]));
              s.pc++;
              break;
            }
            case 0x20: { // SHA3
              const offset = pop();
              const size = pop();
              stack.push(sha3(s, offset, size, mload));
              s.pc++;
              break;
            }
            case 0x30: stack.push(leaf('address')); s.pc++; break;
            case 0x31: pop(); stack.push(leaf('balance', T_EXTERNAL)); s.pc++; break;
            case 0x32: stack.push(ORIGIN); s.pc++; break;
            case 0x33: stack.push(CALLER); s.pc++; break;
            case 0x34: stack.push(0n); s.pc++; break; // CALLVALUE: probes send none
            case 0x35: { // CALLDATALOAD
              const o = pop();
              stack.push(typeof o === 'bigint' ? (o > 0xffffffn ? 0n : readWord(calldata, Number(o))) : node('calldata', [o]));
              s.pc++;
              break;
            }
            case 0x36: stack.push(BigInt(calldata.length)); s.pc++; break;
            case 0x37: { // CALLDATACOPY
              const dest = pop(), o = pop(), size = pop();
              copyIn(s, dest, size, (i) => (typeof o === 'bigint' && o <= 0xffffffn ? readWord(calldata, Number(o) + 32 * i) : node('calldata', [])));
              s.pc++;
              break;
            }
            case 0x38: stack.push(BigInt(bytes.length)); s.pc++; break;
            case 0x39: { // CODECOPY
              const dest = pop(), o = pop(), size = pop();
              copyIn(s, dest, size, (i) => (typeof o === 'bigint' && o <= 0xffffffn ? readWord(bytes, Number(o) + 32 * i) : node('code', [])));
              s.pc++;
              break;
            }
            case 0x3a: stack.push(0n); s.pc++; break; // GASPRICE
            case 0x3b: case 0x3f: pop(); stack.push(leaf('extcode', T_EXTERNAL)); s.pc++; break;
            case 0x3c: pop(); pop(); pop(); pop(); s.memoryDirty = true; s.pc++; break; // EXTCODECOPY
            case 0x3d: stack.push(s.returnSize); s.pc++; break;
            case 0x3e: { // RETURNDATACOPY
              const dest = pop(); pop(); const size = pop();
              const last = s.lastCall;
              copyIn(s, dest, size, () => leaf('retdata', T_EXTERNAL, last));
              s.pc++;
              break;
            }
            case 0x40: pop(); stack.push(leaf('env')); s.pc++; break; // BLOCKHASH
            case 0x41: case 0x42: case 0x43: case 0x44: case 0x45: case 0x46: case 0x48: case 0x4a: case 0x5a: case 0x59:
              stack.push(leaf('env'));
              s.pc++;
              break;
            case 0x47: stack.push(leaf('balance', T_EXTERNAL)); s.pc++; break; // SELFBALANCE
            case 0x49: pop(); stack.push(leaf('env')); s.pc++; break; // BLOBHASH
            case 0x50: pop(); s.pc++; break;
            case 0x51: stack.push(mload(s, pop())); s.pc++; break;
            case 0x52: { const o = pop(); const v = pop(); mstore(s, o, v); s.pc++; break; }
            case 0x53: { // MSTORE8
              const o = pop(); pop();
              if (typeof o === 'bigint' && o <= 0xffffffffn) {
                const n = Number(o);
                for (const k of [...s.memory.keys()]) if (k > n - 32 && k <= n) s.memory.delete(k);
              }
              s.memoryDirty = true;
              s.unaligned = true;
              s.pc++;
              break;
            }
            case 0x54: stack.push(node('sload', [pop()], T_STORAGE)); s.pc++; break;
            case 0x55: pop(); pop(); s.stateChanged = true; s.pc++; break;
            case 0x5c: stack.push(node('tload', [pop()], T_STORAGE)); s.pc++; break;
            case 0x5d: pop(); pop(); s.pc++; break;
            case 0x5e: { pop(); pop(); pop(); s.memoryDirty = true; s.pc++; break; } // MCOPY
            case 0x5f: stack.push(0n); s.pc++; break; // PUSH0
            case 0x5b: s.pc++; break; // JUMPDEST
            case 0x56: { // JUMP
              const dest = pop();
              if (typeof dest !== 'bigint' || dest >= BigInt(bytes.length) || !jumpdests[Number(dest)]) { alive = false; break; }
              s.pc = Number(dest);
              break;
            }
            case 0x57: { // JUMPI
              const dest = pop();
              const cond = pop();
              const destOk = typeof dest === 'bigint' && dest < BigInt(bytes.length) && jumpdests[Number(dest)] === 1;
              if (typeof cond === 'bigint') {
                if (cond !== 0n) {
                  if (!destOk) { alive = false; break; }
                  s.pc = Number(dest);
                } else s.pc++;
                break;
              }
              if (cond.taint & T_CALLER) {
                result.callerDependent = true;
                const before = found.length;
                inspect(cond, pc, found);
                if (found.length > before) s.guarded = true;
              }
              const visits = (s.visits.get(pc) ?? 0) + 1;
              if (visits > MAX_BRANCH_VISITS) { result.complete = false; alive = false; break; }
              s.visits.set(pc, visits);
              if (destOk) {
                if (result.paths >= MAX_PATHS) { result.complete = false; s.pc++; break; }
                result.paths++;
                pending.push({ ...s, pc: Number(dest), stack: [...stack], memory: new Map(s.memory), visits: new Map(s.visits) });
              }
              s.pc++;
              break;
            }
            case 0xa0: case 0xa1: case 0xa2: case 0xa3: case 0xa4: // LOG0..LOG4
              for (let i = 0; i < 2 + (op - 0xa0); i++) pop();
              s.stateChanged = true;
              s.pc++;
              break;
            case 0xf0: case 0xf5: { // CREATE, CREATE2
              pop(); pop(); pop();
              if (op === 0xf5) pop();
              stack.push(leaf('created', T_EXTERNAL));
              s.stateChanged = true;
              s.pc++;
              break;
            }
            case 0xf1: case 0xf2: case 0xf4: case 0xfa: { // CALL, CALLCODE, DELEGATECALL, STATICCALL
              pop(); pop();
              if (op === 0xf1 || op === 0xf2) pop(); // value
              const argsOffset = pop(), argsSize = pop();
              const retOffset = pop(), retSize = pop();
              const callerArg = memoryHoldsCaller(s, argsOffset, argsSize);
              s.lastCall = callerArg;
              result.externalCalls = true;
              if (op !== 0xfa) s.stateChanged = true;
              stack.push(leaf('callok', T_EXTERNAL));
              s.returnSize = leaf('returnsize', T_EXTERNAL);
              // The callee's answer lands in [retOffset, retOffset + retSize): unknown words.
              copyIn(s, retOffset, retSize, () => leaf('retdata', T_EXTERNAL, callerArg));
              s.pc++;
              break;
            }
            default:
              alive = false; // undefined opcode: the path ends like INVALID
          }
        }
        if (stack.length > MAX_STACK) alive = false;
      } catch (error) {
        if (!(error instanceof StackUnderflow)) throw error;
        alive = false;
      }
    }
  }
  result.steps = total;
  result.checks = dedupe(found);
  return result;
}

class StackUnderflow extends Error {}

function memoryHoldsCaller(s: State, offset: Sym, size: Sym): boolean {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint') return false;
  const start = Number(offset);
  const end = start + Number(size);
  for (const [k, v] of s.memory) if (k >= start - 31 && k < end && typeof v !== 'bigint' && (v.taint & T_CALLER) !== 0) return true;
  return false;
}

function sha3(s: State, offset: Sym, size: Sym, mload: (s: State, o: Sym) => Sym): Sym {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint' || size % 32n !== 0n || size > 256n) return node('sha3', []);
  const words: Sym[] = [];
  for (let i = 0n; i < size; i += 32n) words.push(mload(s, offset + i));
  // Kept symbolic even when every word is known: hashing is costly and the value is only ever
  // needed as a storage slot, where slotValue() computes it on demand.
  return node('sha3', words);
}

/** A storage slot as a number when it is a constant or a hash of constants; else null. */
function slotValue(slot: Sym | undefined): bigint | null {
  if (slot === undefined) return null;
  if (typeof slot === 'bigint') return slot;
  if (slot.op === 'sha3' && slot.args.length > 0 && slot.args.every((w) => typeof w === 'bigint')) {
    return BigInt(keccak256(`0x${(slot.args as bigint[]).map((w) => w.toString(16).padStart(64, '0')).join('')}`));
  }
  if (slot.op === 'add' && slot.args.length === 2) {
    const [a, b] = slot.args;
    const x = slotValue(a);
    const y = slotValue(b);
    if (x !== null && y !== null) return (x + y) & U256;
  }
  return null;
}

function dedupe(checks: CallerCheck[]): CallerCheck[] {
  const seen = new Map<string, CallerCheck>();
  for (const c of checks) {
    const key = `${c.kind}|${c.slot ?? ''}|${c.shift ?? ''}|${c.address ?? ''}|${c.origin ? 'o' : ''}`;
    if (!seen.has(key)) seen.set(key, c);
  }
  return [...seen.values()];
}


