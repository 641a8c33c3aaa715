import { pushDataSize } from '../evm/opcodes.ts';
import { dedupeChecks, inspect, type CallerCheck } from './caller-patterns.ts';
import { metadataLength } from './skeleton.ts';
import { CALLER, leaf, node, ORIGIN, T_CALLER, T_EXTERNAL, T_STORAGE, type Node, type Sym } from './symbolic.ts';
import { BINARY_NAMES, fold, U256 } from './u256.ts';

/**
 * The symbolic interpreter behind the bytecode walks. It starts at pc 0 with concrete call data,
 * so the dispatcher, argument decoding and most argument checks run concretely down the function's
 * own branch. Only what the code cannot know is symbolic: CALLER/ORIGIN, storage (SLOAD),
 * external calls and the environment. A JUMPI on a symbolic condition forks; conditions that
 * depend on the caller are inspected for access-control shapes (caller-patterns.ts). With
 * `record`, every path also leaves a trace (its storage reads and writes, its branch conditions,
 * how it ended) for the capability analysis. Everything is bounded: total steps, paths, visits of
 * a symbolic branch per path, expression depth.
 */

const MAX_TOTAL_STEPS = 25_000;
const MAX_PATH_STEPS = 4_000;
const MAX_PATHS = 48;
/** A loop with a symbolic exit condition is followed at most this many times per path. */
const MAX_BRANCH_VISITS = 2;
const MAX_STACK = 1024;
/** Offsets above this are symbolic garbage, not memory a compiler would use. */
const MAX_MEMORY_OFFSET = 0xffffffffn;
const MAX_CALLDATA_OFFSET = 0xffffffn;
const MAX_COPY_BYTES = 4096n;

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
    pc += pushDataSize(op);
  }
  return { bytes, jumpdests, readsCaller };
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
  /** With `record`: one trace per path that reached an end. */
  traces: PathTrace[];
}

type Trace = Omit<PathTrace, 'end' | 'returnedZero' | 'steps'>;

interface State {
  pc: number;
  stack: Sym[];
  memory: Map<number, Sym>;
  /** A write at a symbolic offset happened: unknown memory reads are unknown, not zero. */
  memoryDirty: boolean;
  /** Some word was written at an offset that is not a multiple of 32. */
  unaligned: boolean;
  returnSize: Sym;
  visits: Map<string, number>;
  steps: number;
  /** This path branched on a caller check (one of the CallerCheck shapes). */
  guarded: boolean;
  stateChanged: boolean;
  /** The last external call had the caller among its arguments. */
  lastCall?: boolean;
  trace: Trace | null;
}

interface Walk {
  code: CodeModel;
  maxPaths: number;
  calldata: Uint8Array;
  budget: number;
  total: number;
  result: WalkResult;
  found: CallerCheck[];
  pending: State[];
}

class StackUnderflow extends Error {}

function pop(stack: Sym[]): Sym {
  const v = stack.pop();
  if (v === undefined) throw new StackUnderflow();
  return v;
}

function readWord(bytes: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(bytes[offset + i] ?? 0);
  return v;
}

// Memory is a map of 32-byte words by offset. While every access is word-aligned (what solc emits
// almost always) words cannot overlap and a lookup is one get; otherwise overlaps are searched.
function mload(s: State, offset: Sym): Sym {
  if (typeof offset !== 'bigint' || offset > MAX_MEMORY_OFFSET) return node('mload', []);
  const o = Number(offset);
  const exact = s.memory.get(o);
  if (exact !== undefined) return exact;
  if (s.unaligned || o % 32 !== 0) {
    for (const k of s.memory.keys()) if (k > o - 32 && k < o + 32) return node('mload', []);
  }
  return s.memoryDirty ? node('mload', []) : 0n;
}

function mstore(s: State, offset: Sym, value: Sym): void {
  if (typeof offset !== 'bigint' || offset > MAX_MEMORY_OFFSET) {
    s.memoryDirty = true;
    return;
  }
  const o = Number(offset);
  if (o % 32 !== 0) s.unaligned = true;
  if (s.unaligned) for (const k of [...s.memory.keys()]) if (k > o - 32 && k < o + 32 && k !== o) s.memory.delete(k);
  s.memory.set(o, value);
}

function copyIn(s: State, dest: Sym, size: Sym, word: (i: number) => Sym): void {
  if (typeof dest !== 'bigint' || typeof size !== 'bigint' || size > MAX_COPY_BYTES) {
    s.memoryDirty = true;
    return;
  }
  const words = Math.ceil(Number(size) / 32);
  for (let i = 0; i < words; i++) mstore(s, dest + BigInt(32 * i), word(i));
}

function sha3(s: State, offset: Sym, size: Sym): Sym {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint' || size % 32n !== 0n || size > 256n) return node('sha3', []);
  const words: Sym[] = [];
  for (let i = 0n; i < size; i += 32n) words.push(mload(s, offset + i));
  // Kept symbolic even when every word is known: hashing is costly and the value is only ever
  // needed as a storage slot, where slotValue() computes it on demand.
  return node('sha3', words);
}

function memoryHoldsCaller(s: State, offset: Sym, size: Sym): boolean {
  if (typeof offset !== 'bigint' || typeof size !== 'bigint') return false;
  const start = Number(offset);
  const end = start + Number(size);
  for (const [k, v] of s.memory) if (k >= start - 31 && k < end && typeof v !== 'bigint' && (v.taint & T_CALLER) !== 0) return true;
  return false;
}

function calldataWord(w: Walk, o: Sym, i = 0): Sym {
  if (typeof o !== 'bigint') return node('calldata', [o]);
  return o > MAX_CALLDATA_OFFSET ? 0n : readWord(w.calldata, Number(o) + 32 * i);
}

/** Ends the path: records its trace and whether it changed state unguarded. Returns false (dead). */
function finish(w: Walk, s: State, end: PathEnd, returnedZero = false): false {
  if ((end === 'stop' || end === 'return') && s.stateChanged && !s.guarded) w.result.unguardedStateChange = true;
  if (end === 'selfdestruct' && !s.guarded) w.result.unguardedStateChange = true;
  if (s.trace) w.result.traces.push({ end, returnedZero, steps: s.steps, ...s.trace });
  return false;
}

/** STOP, RETURN, REVERT, INVALID, SELFDESTRUCT; undefined for other opcodes. */
function haltOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x00: return finish(w, s, 'stop');
    case 0xf3: {
      const offset = pop(stack);
      const size = pop(stack);
      return finish(w, s, 'return', size === 32n && mload(s, offset) === 0n);
    }
    case 0xfd: return finish(w, s, 'revert');
    case 0xfe: return finish(w, s, 'invalid');
    case 0xff: return finish(w, s, 'selfdestruct');
    default: return undefined;
  }
}

/** Opcodes that only read the call, the code or the block. */
function envOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x30: stack.push(leaf('address')); break;
    case 0x31: pop(stack); stack.push(leaf('balance', T_EXTERNAL)); break;
    case 0x32: stack.push(ORIGIN); break;
    case 0x33: stack.push(CALLER); break;
    case 0x34: stack.push(0n); break; // CALLVALUE: probes send none
    case 0x35: stack.push(calldataWord(w, pop(stack))); break;
    case 0x36: stack.push(BigInt(w.calldata.length)); break;
    case 0x37: { // CALLDATACOPY
      const dest = pop(stack), o = pop(stack), size = pop(stack);
      copyIn(s, dest, size, (i) => (typeof o === 'bigint' ? calldataWord(w, o, i) : node('calldata', [])));
      break;
    }
    case 0x38: stack.push(BigInt(w.code.bytes.length)); break;
    case 0x39: { // CODECOPY
      const dest = pop(stack), o = pop(stack), size = pop(stack);
      const ok = typeof o === 'bigint' && o <= MAX_CALLDATA_OFFSET;
      copyIn(s, dest, size, (i) => (ok ? readWord(w.code.bytes, Number(o) + 32 * i) : node('code', [])));
      break;
    }
    case 0x3a: stack.push(0n); break; // GASPRICE
    case 0x3b: case 0x3f: pop(stack); stack.push(leaf('extcode', T_EXTERNAL)); break;
    case 0x3c: pop(stack); pop(stack); pop(stack); pop(stack); s.memoryDirty = true; break;
    case 0x3d: stack.push(s.returnSize); break;
    case 0x3e: { // RETURNDATACOPY
      const dest = pop(stack);
      pop(stack);
      const size = pop(stack);
      const last = s.lastCall;
      copyIn(s, dest, size, () => leaf('retdata', T_EXTERNAL, last));
      break;
    }
    case 0x40: case 0x49: pop(stack); stack.push(leaf('env')); break; // BLOCKHASH, BLOBHASH
    case 0x42: stack.push(leaf('timestamp')); break;
    case 0x43: stack.push(leaf('number')); break;
    case 0x41: case 0x44: case 0x45: case 0x46: case 0x48: case 0x4a: case 0x5a: case 0x59:
      stack.push(leaf('env'));
      break;
    case 0x47: stack.push(leaf('balance', T_EXTERNAL)); break; // SELFBALANCE
    default: return undefined;
  }
  s.pc++;
  return true;
}

/** Memory, storage and single-operand arithmetic. */
function dataOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x08: case 0x09: { // ADDMOD, MULMOD
      const a = pop(stack), b = pop(stack), n = pop(stack);
      if (typeof a === 'bigint' && typeof b === 'bigint' && typeof n === 'bigint') {
        stack.push(n === 0n ? 0n : op === 0x08 ? (a + b) % n : (a * b) % n);
      } else stack.push(node(op === 0x08 ? 'addmod' : 'mulmod', [a, b, n]));
      break;
    }
    case 0x15: { const a = pop(stack); stack.push(typeof a === 'bigint' ? (a === 0n ? 1n : 0n) : node('iszero', [a])); break; }
    case 0x19: { const a = pop(stack); stack.push(typeof a === 'bigint' ? U256 ^ a : node('not', [a])); break; }
    case 0x20: { const offset = pop(stack); stack.push(sha3(s, offset, pop(stack))); break; }
    case 0x50: pop(stack); break;
    case 0x51: stack.push(mload(s, pop(stack))); break;
    case 0x52: { const o = pop(stack); mstore(s, o, pop(stack)); break; }
    case 0x53: { // MSTORE8
      const o = pop(stack);
      pop(stack);
      if (typeof o === 'bigint' && o <= MAX_MEMORY_OFFSET) {
        const n = Number(o);
        for (const k of [...s.memory.keys()]) if (k > n - 32 && k <= n) s.memory.delete(k);
      }
      s.memoryDirty = true;
      s.unaligned = true;
      break;
    }
    case 0x54: { const slot = pop(stack); s.trace?.reads.push(slot); stack.push(node('sload', [slot], T_STORAGE)); break; }
    case 0x55: {
      const slot = pop(stack);
      const value = pop(stack);
      s.trace?.writes.push({ slot, value, pc: s.pc });
      s.stateChanged = true;
      break;
    }
    case 0x5c: stack.push(node('tload', [pop(stack)], T_STORAGE)); break;
    case 0x5d: pop(stack); pop(stack); break;
    case 0x5e: pop(stack); pop(stack); pop(stack); s.memoryDirty = true; break; // MCOPY
    case 0x5f: stack.push(0n); break; // PUSH0
    case 0x5b: break; // JUMPDEST
    default: return undefined;
  }
  s.pc++;
  return true;
}

const validJump = (w: Walk, dest: Sym): dest is bigint =>
  typeof dest === 'bigint' && dest < BigInt(w.code.bytes.length) && w.code.jumpdests[Number(dest)] === 1;

function jumpi(w: Walk, s: State): boolean {
  const pc = s.pc;
  const dest = pop(s.stack);
  const cond = pop(s.stack);
  const destOk = validJump(w, dest);
  if (typeof cond === 'bigint') {
    if (cond === 0n) s.pc++;
    else if (destOk) s.pc = Number(dest);
    // solc 0.4 `throw` jumps to an invalid destination on purpose.
    else return finish(w, s, 'invalid');
    return true;
  }
  if (cond.taint & T_CALLER) {
    w.result.callerDependent = true;
    const before = w.found.length;
    inspect(cond, pc, w.found);
    if (w.found.length > before) {
      s.guarded = true;
      s.trace?.guards.push(...w.found.slice(before));
    }
  }
  const key = visitKey(w, s, pc);
  const visits = (s.visits.get(key) ?? 0) + 1;
  if (visits > MAX_BRANCH_VISITS) {
    w.result.complete = false;
    return false;
  }
  s.visits.set(key, visits);
  if (destOk) {
    if (w.result.paths >= w.maxPaths) {
      w.result.complete = false;
      s.pc++;
      return true;
    }
    w.result.paths++;
    w.pending.push(fork(s, Number(dest), cond, pc));
  }
  s.trace?.conditions.push({ cond, pc, taken: false, step: s.steps });
  s.pc++;
  return true;
}

/**
 * A branch is counted per calling context: the code addresses on the stack (return addresses of
 * internal calls) tell SafeMath's one `assert` reached from three call sites from a loop that
 * comes back to the same branch with the same stack.
 */
function visitKey(w: Walk, s: State, pc: number): string {
  let context = 0;
  for (const v of s.stack) {
    if (typeof v === 'bigint' && v < BigInt(w.code.bytes.length) && w.code.jumpdests[Number(v)] === 1) context = (context * 31 + Number(v)) | 0;
  }
  return `${pc}:${context}`;
}

function fork(s: State, pc: number, cond: Node, at: number): State {
  const trace = s.trace && {
    guards: [...s.trace.guards],
    reads: [...s.trace.reads],
    writes: [...s.trace.writes],
    conditions: [...s.trace.conditions, { cond, pc: at, taken: true, step: s.steps }],
  };
  return { ...s, pc, stack: [...s.stack], memory: new Map(s.memory), visits: new Map(s.visits), trace };
}

/** JUMP, JUMPI, LOGs, CREATEs and calls. */
function flowOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  if (op === 0x56) {
    const dest = pop(stack);
    if (!validJump(w, dest)) return finish(w, s, 'invalid');
    s.pc = Number(dest);
    return true;
  }
  if (op === 0x57) return jumpi(w, s);
  if (op >= 0xa0 && op <= 0xa4) { // LOG0..LOG4
    for (let i = 0; i < 2 + (op - 0xa0); i++) pop(stack);
    s.stateChanged = true;
  } else if (op === 0xf0 || op === 0xf5) { // CREATE, CREATE2
    pop(stack); pop(stack); pop(stack);
    if (op === 0xf5) pop(stack);
    stack.push(leaf('created', T_EXTERNAL));
    s.stateChanged = true;
  } else if (op === 0xf1 || op === 0xf2 || op === 0xf4 || op === 0xfa) {
    externalCall(w, s, op);
  } else return undefined;
  s.pc++;
  return true;
}

/** CALL, CALLCODE, DELEGATECALL, STATICCALL: the answer is unknown. */
function externalCall(w: Walk, s: State, op: number): void {
  const stack = s.stack;
  pop(stack); pop(stack);
  if (op === 0xf1 || op === 0xf2) pop(stack); // value
  const argsOffset = pop(stack), argsSize = pop(stack);
  const retOffset = pop(stack), retSize = pop(stack);
  const callerArg = memoryHoldsCaller(s, argsOffset, argsSize);
  s.lastCall = callerArg;
  w.result.externalCalls = true;
  if (op !== 0xfa) s.stateChanged = true;
  stack.push(leaf('callok', T_EXTERNAL));
  s.returnSize = leaf('returnsize', T_EXTERNAL);
  // The callee's answer lands in [retOffset, retOffset + retSize): unknown words.
  copyIn(s, retOffset, retSize, () => leaf('retdata', T_EXTERNAL, callerArg));
}

/** PUSH, DUP, SWAP and the binary operators: the hot path, kept inline. */
function stackOp(s: State, op: number, bytes: Uint8Array): boolean {
  const stack = s.stack;
  const pc = s.pc;
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
    const a = pop(stack);
    const b = pop(stack);
    stack.push(typeof a === 'bigint' && typeof b === 'bigint' ? fold(op, a, b) : node(BINARY_NAMES[op]!, [a, b]));
    s.pc++;
  } else return false;
  return true;
}

/** Executes one instruction; false when the path ended. */
function step(w: Walk, s: State): boolean {
  const { bytes } = w.code;
  if (s.pc >= bytes.length) return finish(w, s, 'stop'); // implicit STOP
  const op = bytes[s.pc]!;
  try {
    if (stackOp(s, op, bytes)) return s.stack.length <= MAX_STACK;
    const alive = haltOp(w, s, op) ?? envOp(w, s, op) ?? dataOp(w, s, op) ?? flowOp(w, s, op);
    // An undefined opcode ends the path like INVALID.
    return alive === undefined ? finish(w, s, 'invalid') : alive && s.stack.length <= MAX_STACK;
  } catch (error) {
    if (!(error instanceof StackUnderflow)) throw error;
    return finish(w, s, 'invalid');
  }
}

export interface WalkOptions {
  /** Step allowance (tests, or many functions of one contract). */
  budget?: number;
  /** Keep a trace of every path (storage reads and writes, conditions, end). */
  record?: boolean;
  /** Paths allowed (forks at symbolic branches). */
  maxPaths?: number;
}

/** Walks the function that `calldataHex` (0x hex: selector + arguments) dispatches to. */
export function walk(code: CodeModel, calldataHex: string, options: WalkOptions = {}): WalkResult {
  const budget = options.budget ?? MAX_TOTAL_STEPS;
  const w: Walk = {
    code,
    maxPaths: options.maxPaths ?? MAX_PATHS,
    calldata: Uint8Array.from(Buffer.from(calldataHex.replace(/^0x/, ''), 'hex')),
    budget,
    total: 0,
    found: [],
    pending: [],
    result: { checks: [], callerDependent: false, unguardedStateChange: false, externalCalls: false, complete: true, steps: 0, paths: 1, traces: [] },
  };
  w.pending.push({
    pc: 0, stack: [], memory: new Map(), memoryDirty: false, unaligned: false, returnSize: 0n, visits: new Map(),
    steps: 0, guarded: false, stateChanged: false,
    trace: options.record ? { guards: [], reads: [], writes: [], conditions: [] } : null,
  });
  while (w.pending.length > 0) {
    const s = w.pending.pop()!;
    for (;;) {
      if (w.total >= budget || s.steps >= MAX_PATH_STEPS) {
        w.result.complete = false;
        break;
      }
      w.total++;
      s.steps++;
      if (!step(w, s)) break;
    }
  }
  w.result.steps = w.total;
  w.result.checks = dedupeChecks(w.found);
  return w.result;
}
