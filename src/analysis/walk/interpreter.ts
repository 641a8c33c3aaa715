import { dedupeChecks } from './caller-patterns.ts';
import { flowOp, stackOp } from './flow.ts';
import { blockOp, dataOp, envOp, haltOp } from './ops.ts';
import {
  type CodeModel,
  finish,
  StackUnderflow,
  type State,
  type Walk,
  type WalkResult,
} from './state.ts';

/**
 * The symbolic interpreter behind the bytecode walks. It starts at pc 0 with concrete call data,
 * so the dispatcher, argument decoding and most argument checks run concretely down the function's
 * own branch. Only what the code cannot know is symbolic: CALLER/ORIGIN, storage (SLOAD),
 * external calls and the environment. A JUMPI on a symbolic condition forks; conditions that
 * depend on the caller are inspected for access-control shapes (walk/caller-patterns.ts). With
 * `record`, every path also leaves a trace (its storage reads and writes, its branch conditions,
 * how it ended) for the capability analysis. Everything is bounded: total steps, paths, visits of
 * a symbolic branch per path, expression depth.
 */

export {
  type CodeModel,
  type PathEnd,
  type PathTrace,
  type PathWrite,
  prepareCode,
  type WalkResult,
} from './state.ts';

const MAX_TOTAL_STEPS = 25_000;
const MAX_PATH_STEPS = 4_000;
const MAX_PATHS = 48;
const MAX_STACK = 1024;
const PUSH32 = 0x7f;

/** Executes one instruction; false when the path ended. */
function step(w: Walk, s: State): boolean {
  const { bytes } = w.code;
  if (s.pc >= bytes.length) return finish(w, s, 'stop'); // implicit STOP
  const op = bytes[s.pc]!;
  try {
    const folded = op === PUSH32 ? w.code.foldedSlots.get(s.pc) : undefined;
    if (folded !== undefined) {
      s.stack.push(folded);
      s.pc += 33;
      return s.stack.length <= MAX_STACK;
    }
    if (stackOp(s, op, bytes)) return s.stack.length <= MAX_STACK;
    const alive =
      haltOp(w, s, op) ?? envOp(w, s, op) ?? blockOp(s, op) ?? dataOp(w, s, op) ?? flowOp(w, s, op);
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
    result: {
      checks: [],
      callerDependent: false,
      unguardedStateChange: false,
      externalCalls: false,
      complete: true,
      cutOutsideLoops: false,
      steps: 0,
      paths: 1,
      traces: [],
    },
  };
  w.pending.push({
    pc: 0,
    stack: [],
    memory: new Map(),
    memoryDirty: false,
    unaligned: false,
    returnSize: 0n,
    visits: new Map(),
    steps: 0,
    guarded: false,
    stateChanged: false,
    trace: options.record ? { guards: [], reads: [], writes: [], conditions: [] } : null,
  });
  while (w.pending.length > 0) {
    const s = w.pending.pop()!;
    for (;;) {
      if (w.total >= budget || s.steps >= MAX_PATH_STEPS) {
        w.result.complete = false;
        w.result.cutOutsideLoops = true;
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
