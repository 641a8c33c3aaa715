import { keccak256 } from 'ethers';
import { pushDataSize } from '../../evm/opcodes.ts';
import { metadataLength } from '../bytecode/index.ts';
import type { CallerCheck } from './caller-patterns.ts';
import { isNode, type Node, node, type Sym, T_CALLER } from './symbolic.ts';

/** The state of one walk and one path of it, memory, and how a path ends (walk/interpreter.ts). */

export const MAX_MEMORY_OFFSET = 0xffffffffn;
export const MAX_CALLDATA_OFFSET = 0xffffffn;
const MAX_COPY_BYTES = 4096n;

/** The code prepared once for all walks over it. */
export interface CodeModel {
  bytes: Uint8Array;
  jumpdests: Uint8Array;
  /** CALLER or ORIGIN occurs as an instruction: without either no function can check its caller. */
  readsCaller: boolean;
  /**
   * PUSH32 constants (by pc) that are a mapping entry of an address the code also pushes
   * (`keccak(addr . base)`): the optimizer folds `_balances[0xDEV…]` into one constant slot,
   * which the walk keeps as that hash so the write reads as the entry it is.
   */
  foldedSlots: Map<number, Node>;
}

/** Mapping bases tried for a folded entry: the slots an ERC-20's mappings sit at. */
const MAX_FOLDED_BASE = 64n;
/** Hard-coded addresses tried as keys: bounds the hashing to keys x bases per contract. */
const MAX_FOLDED_KEYS = 16;
/** Below this a pushed constant is a small number or precompile, not a hard-coded wallet. */
const MIN_FOLDED_KEY = 1n << 96n;
const ADDRESS_LIMIT = 1n << 160n;
const word = (v: bigint) => v.toString(16).padStart(64, '0');

/** PUSH32 constants that are `keccak(key . base)` for a pushed address `key` and a small base. */
function foldedSlots(pushes: { pc: number; value: bigint }[]): Map<number, Node> {
  const out = new Map<number, Node>();
  const wide = new Map<bigint, number[]>();
  const keys = new Set<bigint>();
  for (const p of pushes) {
    if (p.value >= ADDRESS_LIMIT) wide.set(p.value, [...(wide.get(p.value) ?? []), p.pc]);
    else if (p.value >= MIN_FOLDED_KEY && keys.size < MAX_FOLDED_KEYS) keys.add(p.value);
  }
  if (wide.size === 0 || keys.size === 0) return out;
  for (const key of keys)
    for (let base = 0n; base < MAX_FOLDED_BASE; base++) {
      const pcs = wide.get(BigInt(keccak256(`0x${word(key)}${word(base)}`)));
      for (const pc of pcs ?? []) out.set(pc, node('sha3', [key, base]));
    }
  return out;
}

const PUSH20 = 0x73;
const PUSH32 = 0x7f;
/** SLOAD, SSTORE: a folded slot is used at once (other wide constants are topics, masks, text). */
const STORAGE_OPS = new Set([0x54, 0x55]);
const readPush = (bytes: Uint8Array, pc: number, op: number) => {
  let v = 0n;
  for (let i = 1; i <= op - 0x5f; i++) v = (v << 8n) | BigInt(bytes[pc + i] ?? 0);
  return v;
};

export function prepareCode(hex: string): CodeModel {
  const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  const jumpdests = new Uint8Array(bytes.length);
  let readsCaller = false;
  const pushes: { pc: number; value: bigint }[] = [];
  // The metadata trailer is data: a 0x33 byte in its hash is no CALLER.
  const end = bytes.length - metadataLength(bytes);
  for (let pc = 0; pc < end; pc++) {
    const op = bytes[pc]!;
    if (op === 0x5b) jumpdests[pc] = 1;
    else if (op === 0x33 || op === 0x32) readsCaller = true;
    else if (op === PUSH20 || (op === PUSH32 && STORAGE_OPS.has(bytes[pc + 33]!)))
      pushes.push({ pc, value: readPush(bytes, pc, op) });
    pc += pushDataSize(op);
  }
  return { bytes, jumpdests, readsCaller, foldedSlots: foldedSlots(pushes) };
}

export type PathEnd = 'stop' | 'return' | 'revert' | 'invalid' | 'selfdestruct';

export interface PathWrite {
  slot: Sym;
  value: Sym;
  pc: number;
}

/** One path of a recorded walk, from pc 0 to its end. */
export interface PathTrace {
  end: PathEnd;
  /** RETURN of one zero word: how old tokens refuse a transfer (`return false`). */
  returnedZero: boolean;
  /** Caller checks branched on along the path. */
  guards: CallerCheck[];
  /** Storage slots read (SLOAD arguments), in order. */
  reads: Sym[];
  writes: PathWrite[];
  /** Symbolic branch conditions the path passed, with the direction it took and the step count. */
  conditions: { cond: Node; pc: number; taken: boolean; step: number }[];
  /** Steps from pc 0 to the end of the path. */
  steps: number;
  /** The code of the Panic(uint256) a REVERT carried (0x11 arithmetic overflow…), else null. */
  panic: bigint | null;
  /** The word a RETURN of one word returned (a getter's answer), else null. */
  returned: Sym | null;
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
  /**
   * A path was dropped by the step budget, a path's step cap or the path cap: somewhere other than
   * a loop's third turn. False while `complete` is false means every path was followed to its end
   * but those of loops with a symbolic exit past their second turn (a string copied to storage
   * clearing the old one's words): every piece of code the function reaches was walked.
   */
  cutOutsideLoops: boolean;
  steps: number;
  paths: number;
  /** With `record`: one trace per path that reached an end. */
  traces: PathTrace[];
}

export type Trace = Omit<PathTrace, 'end' | 'returnedZero' | 'steps' | 'panic' | 'returned'>;

export interface State {
  pc: number;
  stack: Sym[];
  memory: Map<number, Sym>;
  /** A write at a symbolic offset happened: unknown memory reads are unknown, not zero. */
  memoryDirty: boolean;
  /** Some word was written at an offset that is not a multiple of 32. */
  unaligned: boolean;
  /**
   * Bytes of concrete words a later unaligned store overlapped in part, by start offset: the
   * bytes that store left (Solady's seed, written at 0x0c, keeps its last 12 bytes at 0x20 once
   * the key is written at 0x00). Only `sha3` reads them (`composeWord`).
   */
  fragments?: Map<number, Fragment>;
  returnSize: Sym;
  visits: Map<string, number>;
  steps: number;
  /** This path branched on a caller check (one of the CallerCheck shapes). */
  guarded: boolean;
  stateChanged: boolean;
  /** The last external call had the caller among its arguments. */
  lastCall?: boolean;
  /** The address the last external call went to. */
  lastTarget?: Sym;
  /**
   * The caller checks this path has branched on and which way (true: the condition held). The
   * optimizer tests `a && b`'s first operand again at the join; the arm that contradicts the
   * first test is no path (walk/flow.ts). Shared between forks until one adds to it.
   */
  callerFacts?: readonly { cond: Node; holds: boolean }[];
  trace: Trace | null;
}

export interface Walk {
  code: CodeModel;
  maxPaths: number;
  calldata: Uint8Array;
  budget: number;
  total: number;
  result: WalkResult;
  found: CallerCheck[];
  pending: State[];
}

export class StackUnderflow extends Error {}

export function pop(stack: Sym[]): Sym {
  const v = stack.pop();
  if (v === undefined) throw new StackUnderflow();
  return v;
}

export function readWord(bytes: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(bytes[offset + i] ?? 0);
  return v;
}

// Memory is a map of 32-byte words by offset. While every access is word-aligned (what solc emits
// almost always) words cannot overlap and a lookup is one get; otherwise overlaps are searched.
export function mload(s: State, offset: Sym): Sym {
  if (typeof offset !== 'bigint' || offset > MAX_MEMORY_OFFSET) return node('mload', []);
  const o = Number(offset);
  const exact = s.memory.get(o);
  if (exact !== undefined) return exact;
  if (s.unaligned || o % 32 !== 0) {
    for (const k of s.memory.keys()) if (k > o - 32 && k < o + 32) return node('mload', []);
  }
  return s.memoryDirty ? node('mload', []) : 0n;
}

export interface Fragment {
  size: number;
  /** The bytes, as a number of `size` bytes. */
  value: bigint;
}

const bytesMask = (n: number) => (1n << BigInt(8 * n)) - 1n;

export function mstore(s: State, offset: Sym, value: Sym): void {
  if (typeof offset !== 'bigint' || offset > MAX_MEMORY_OFFSET) {
    s.memoryDirty = true;
    return;
  }
  const o = Number(offset);
  if (o % 32 !== 0) s.unaligned = true;
  if (s.unaligned) {
    if (s.fragments)
      for (const [k, f] of [...s.fragments])
        if (k < o + 32 && k + f.size > o) s.fragments.delete(k);
    for (const k of [...s.memory.keys()])
      if (k > o - 32 && k < o + 32 && k !== o) {
        const old = s.memory.get(k)!;
        s.memory.delete(k);
        // What the store leaves of a concrete word: its head before o, or its tail after o + 32.
        if (typeof old !== 'bigint') continue;
        s.fragments ??= new Map();
        if (k < o) s.fragments.set(k, { size: o - k, value: old >> BigInt(8 * (k + 32 - o)) });
        else s.fragments.set(o + 32, { size: k - o, value: old & bytesMask(k - o) });
      }
  }
  s.memory.set(o, value);
}

const WORD_MASK = bytesMask(32);

/**
 * The 32 bytes at an offset no word was stored at, put together from the words and fragments
 * around it: Solady's balance slot hashes `keccak256(0x0c, 0x20)` after `mstore(0x0c, seed)`
 * and `mstore(0x00, account)`, the account's 20 bytes then 12 bytes of the seed, which reads as
 * `or(shl(96, account), seed)`. One symbolic word at most, and only one that starts at or before
 * the offset (its low bytes lead); anything else (a byte no store covers in dirty memory) is
 * unknown (null).
 */
function composeWord(s: State, o: number): Sym | null {
  let concrete = 0n;
  let symbolic: Sym | null = null;
  let covered = 0;
  for (const [k, v] of s.memory) {
    if (k <= o - 32 || k >= o + 32) continue;
    const from = Math.max(k, o);
    const to = Math.min(k + 32, o + 32);
    covered += to - from;
    if (typeof v !== 'bigint') {
      if (k > o || symbolic !== null) return null;
      symbolic = k === o ? v : node('shl', [BigInt(8 * (o - k)), v]);
      continue;
    }
    // The word's bytes [from - k, to - k), placed at [from - o, to - o) of the result.
    const bytes = (v >> BigInt(8 * (k + 32 - to))) & bytesMask(to - from);
    concrete |= bytes << BigInt(8 * (o + 32 - to));
  }
  for (const [k, f] of s.fragments ?? []) {
    const from = Math.max(k, o);
    const to = Math.min(k + f.size, o + 32);
    if (from >= to) continue;
    covered += to - from;
    const bytes = (f.value >> BigInt(8 * (k + f.size - to))) & bytesMask(to - from);
    concrete |= bytes << BigInt(8 * (o + 32 - to));
  }
  if (covered < 32 && s.memoryDirty) return null;
  concrete &= WORD_MASK;
  if (symbolic === null) return concrete;
  return concrete === 0n ? symbolic : node('or', [symbolic, concrete]);
}

export function copyIn(s: State, dest: Sym, size: Sym, word: (i: number) => Sym): void {
  if (typeof dest !== 'bigint' || typeof size !== 'bigint' || size > MAX_COPY_BYTES) {
    s.memoryDirty = true;
    return;
  }
  const words = Math.ceil(Number(size) / 32);
  for (let i = 0; i < words; i++) mstore(s, dest + BigInt(32 * i), word(i));
}

export function sha3(s: State, offset: Sym, size: Sym): Sym {
  // keccak256(abi.encodePacked(msg.sender)): the caller's 20 bytes alone, hashed. Kept as the
  // hash of the caller word, the shape abi.encode(msg.sender) hashes to, so a gate comparing it
  // with a stored or written hash is recognised (walk/caller-patterns.ts `callerHash`).
  if (typeof offset === 'bigint' && size === PACKED_ADDRESS_BYTES) {
    const packed = packedAddress(mload(s, offset));
    return packed !== null && isNode(packed) && (packed.taint & T_CALLER) !== 0
      ? node('sha3', [packed])
      : node('sha3', []);
  }
  if (typeof offset !== 'bigint' || typeof size !== 'bigint' || size % 32n !== 0n || size > 256n)
    return node('sha3', []);
  const words: Sym[] = [];
  for (let i = 0n; i < size; i += 32n) {
    const at = offset + i;
    const exact = at <= MAX_MEMORY_OFFSET ? s.memory.get(Number(at)) : undefined;
    const composed =
      exact === undefined && s.unaligned && at <= MAX_MEMORY_OFFSET
        ? composeWord(s, Number(at))
        : null;
    words.push(composed ?? mload(s, at));
  }
  // Kept symbolic even when every word is known: hashing is costly and the value is only ever
  // needed as a storage slot, where slotValue() computes it on demand.
  return node('sha3', words);
}

const PACKED_ADDRESS_BYTES = 20n;
const PACKED_SHIFT = 96n;

/** The address a word holds left-aligned (`shl(96, a)`, `a * 2^96`, masked), or null. */
function packedAddress(word: Sym): Sym | null {
  let cur = word;
  for (let i = 0; i < 4 && isNode(cur); i++) {
    const [a, b] = cur.args;
    if (cur.op === 'and' && typeof a === 'bigint' && b !== undefined) cur = b;
    else if (cur.op === 'and' && typeof b === 'bigint' && a !== undefined) cur = a;
    else if (cur.op === 'shl' && a === PACKED_SHIFT && b !== undefined) return b;
    else if (cur.op === 'mul' && (a === 1n << PACKED_SHIFT || b === 1n << PACKED_SHIFT))
      return a === 1n << PACKED_SHIFT ? b! : a!;
    else return null;
  }
  return null;
}

export function memoryHoldsCaller(s: State, offset: Sym, size: Sym): boolean {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint') return false;
  const start = Number(offset);
  const end = start + Number(size);
  for (const [k, v] of s.memory)
    if (k >= start - 31 && k < end && typeof v !== 'bigint' && (v.taint & T_CALLER) !== 0)
      return true;
  return false;
}

const MAX_SELF_WRAPPING = 6;

/** Do the call's argument words hold this contract's own address (ADDRESS, masked or not)? */
export function memoryHoldsSelf(s: State, offset: Sym, size: Sym): boolean {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint') return false;
  const start = Number(offset);
  const end = start + Number(size);
  // Masked as often as via-IR's cleanups mask it, or shifted by zero.
  const isSelf = (v: Sym, depth: number): boolean =>
    typeof v !== 'bigint' &&
    (v.op === 'address' ||
      (depth < MAX_SELF_WRAPPING &&
        (v.op === 'and' || ((v.op === 'shl' || v.op === 'shr') && v.args[0] === 0n)) &&
        v.args.some((a) => isSelf(a, depth + 1))));
  for (const [k, v] of s.memory) if (k >= start && k < end && isSelf(v, 0)) return true;
  return false;
}

export function calldataWord(w: Walk, o: Sym, i = 0): Sym {
  if (typeof o !== 'bigint') return node('calldata', [o]);
  return o > MAX_CALLDATA_OFFSET ? 0n : readWord(w.calldata, Number(o) + 32 * i);
}

/** Ends the path: records its trace and whether it changed state unguarded. Returns false (dead). */
export function finish(
  w: Walk,
  s: State,
  end: PathEnd,
  returnedZero = false,
  panic: bigint | null = null,
  returned: Sym | null = null,
): false {
  if ((end === 'stop' || end === 'return') && s.stateChanged && !s.guarded)
    w.result.unguardedStateChange = true;
  if (end === 'selfdestruct' && !s.guarded) w.result.unguardedStateChange = true;
  if (s.trace)
    w.result.traces.push({ end, returnedZero, steps: s.steps, panic, returned, ...s.trace });
  return false;
}
