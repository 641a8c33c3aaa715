import { inspect } from './caller-patterns.ts';
import { decidedByCaller } from './facts.ts';
import {
  copyIn,
  finish,
  memoryHoldsCaller,
  memoryHoldsSelf,
  pop,
  StackUnderflow,
  type State,
  type Walk,
} from './state.ts';
import { sameSym } from './storage-shapes.ts';
import { leaf, type Node, node, type Sym, T_CALLER, T_EXTERNAL } from './symbolic.ts';
import { BINARY_NAMES, fold } from './u256.ts';

/** Control flow, calls and the stack opcodes of the symbolic interpreter. */

/** A loop with a symbolic exit condition is followed at most this many times per path. */
const MAX_BRANCH_VISITS = 2;

const validJump = (w: Walk, dest: Sym): dest is bigint =>
  typeof dest === 'bigint' &&
  dest < BigInt(w.code.bytes.length) &&
  w.code.jumpdests[Number(dest)] === 1;

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
  // A branch only the zero address could take is no path (walk/facts.ts): decided, not forked.
  // The contract's own address carries no taint, so every symbolic condition is asked.
  const decided = decidedByCaller(cond);
  if (decided !== null) {
    if (!decided) s.pc++;
    else if (destOk) s.pc = Number(dest);
    else return finish(w, s, 'invalid');
    return true;
  }
  const known = cond.taint & T_CALLER ? knownCallerFact(s, cond) : null;
  if (known !== null) {
    if (!known) s.pc++;
    else if (destOk) s.pc = Number(dest);
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
      w.result.cutOutsideLoops = true;
      s.pc++;
      return true;
    }
    w.result.paths++;
    const taken = fork(s, Number(dest), cond, pc);
    if (cond.taint & T_CALLER) {
      taken.callerFacts = [...(s.callerFacts ?? []), { cond, holds: true }];
      s.callerFacts = [...(s.callerFacts ?? []), { cond, holds: false }];
    }
    w.pending.push(taken);
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
    if (
      typeof v === 'bigint' &&
      v < BigInt(w.code.bytes.length) &&
      w.code.jumpdests[Number(v)] === 1
    )
      context = (context * 31 + Number(v)) | 0;
  }
  return `${pc}:${context}`;
}

/** Facts this path holds beyond a fork's: the caller checks it took a side on. */
const MAX_CALLER_FACTS = 16;

/**
 * Whether a caller check this path already took a side on, or its negation, holds (true) or not
 * (false); null when the path has not tested it.
 */
function knownCallerFact(s: State, cond: Node): boolean | null {
  const facts = s.callerFacts;
  if (!facts) return null;
  for (let i = facts.length - 1; i >= Math.max(0, facts.length - MAX_CALLER_FACTS); i--) {
    const f = facts[i]!;
    if (sameSym(f.cond, cond)) return f.holds;
    if (cond.op === 'iszero' && sameSym(cond.args[0]!, f.cond)) return !f.holds;
    if (f.cond.op === 'iszero' && sameSym(f.cond.args[0]!, cond)) return !f.holds;
  }
  return null;
}

function fork(s: State, pc: number, cond: Node, at: number): State {
  const trace = s.trace && {
    guards: [...s.trace.guards],
    reads: [...s.trace.reads],
    writes: [...s.trace.writes],
    conditions: [...s.trace.conditions, { cond, pc: at, taken: true, step: s.steps }],
  };
  return {
    ...s,
    pc,
    stack: [...s.stack],
    memory: new Map(s.memory),
    fragments: s.fragments && new Map(s.fragments),
    visits: new Map(s.visits),
    trace,
  };
}

/** JUMP, JUMPI, LOGs, CREATEs and calls. */
export function flowOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  if (op === 0x56) {
    const dest = pop(stack);
    if (!validJump(w, dest)) return finish(w, s, 'invalid');
    s.pc = Number(dest);
    return true;
  }
  if (op === 0x57) return jumpi(w, s);
  if (op >= 0xa0 && op <= 0xa4) {
    // LOG0..LOG4
    for (let i = 0; i < 2 + (op - 0xa0); i++) pop(stack);
    s.stateChanged = true;
  } else if (op === 0xf0 || op === 0xf5) {
    // CREATE, CREATE2
    pop(stack);
    pop(stack);
    pop(stack);
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
  pop(stack); // gas
  const target = pop(stack);
  if (op === 0xf1 || op === 0xf2) pop(stack); // value
  const argsOffset = pop(stack),
    argsSize = pop(stack);
  const retOffset = pop(stack),
    retSize = pop(stack);
  // A CALL given both the caller and this contract pulls a payment from the caller
  // (`transferFrom(msg.sender, address(this), v)`, a wrapper's deposit): its answer says the
  // payment went through, nothing about who the caller is.
  const callerArg =
    memoryHoldsCaller(s, argsOffset, argsSize) &&
    !(op === 0xf1 && memoryHoldsSelf(s, argsOffset, argsSize));
  s.lastCall = callerArg;
  s.lastTarget = target;
  w.result.externalCalls = true;
  if (op !== 0xfa) s.stateChanged = true;
  stack.push(leaf('callok', T_EXTERNAL));
  s.returnSize = leaf('returnsize', T_EXTERNAL);
  // The callee's answer lands in [retOffset, retOffset + retSize): unknown words.
  copyIn(s, retOffset, retSize, () => leaf('retdata', T_EXTERNAL, callerArg, target));
}

/** PUSH, DUP, SWAP and the binary operators: the hot path, kept inline. */
export function stackOp(s: State, op: number, bytes: Uint8Array): boolean {
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
    stack.push(
      typeof a === 'bigint' && typeof b === 'bigint'
        ? fold(op, a, b)
        : node(BINARY_NAMES[op]!, [a, b]),
    );
    s.pc++;
  } else return false;
  return true;
}
