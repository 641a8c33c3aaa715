import {
  calldataWord,
  copyIn,
  finish,
  MAX_CALLDATA_OFFSET,
  MAX_MEMORY_OFFSET,
  mload,
  mstore,
  pop,
  readWord,
  type State,
  sha3,
  type Walk,
} from './state.ts';
import { CALLER, leaf, node, ORIGIN, type Sym, T_EXTERNAL, T_STORAGE } from './symbolic.ts';
import { U256 } from './u256.ts';

/** Halting, environment, memory and storage opcodes of the symbolic interpreter. */

/** Panic(uint256) revert data: the selector 0x4e487b71 then the code, 36 bytes (solc ≥ 0.8). */
const PANIC_DATA_SIZE = 36n;
const PANIC_SELECTOR = [0x4e, 0x48, 0x7b, 0x71];
const PUSH4 = 0x63;
const PUSH32 = 0x7f;
/**
 * How far before the REVERT solc's panic block pushes the selector. The block writes it, then
 * the code unaligned at offset 4, which the walk's memory keeps only as the code's word.
 * Optimized and via-IR builds push the selector with PUSH4 within 24 bytes; solc ≥ 0.8.19
 * unoptimized pushes it left-aligned with PUSH32 (`PUSH32 0x4e487b71 00…00`), 43 bytes before.
 */
const PANIC_BLOCK_BYTES = 24;
const PANIC_BLOCK_BYTES_PUSH32 = 48;

/** Is the selector pushed at `pc`, by PUSH4 or left-aligned by PUSH32 (the rest zero)? */
function pushesPanicSelector(bytes: Uint8Array, pc: number, wide: boolean): boolean {
  if (bytes[pc] !== (wide ? PUSH32 : PUSH4)) return false;
  if (!PANIC_SELECTOR.every((b, i) => bytes[pc + 1 + i] === b)) return false;
  if (!wide) return true;
  for (let i = 5; i <= 32; i++) if (bytes[pc + i] !== 0) return false;
  return true;
}

/** The code of the Panic(uint256) a REVERT at `pc` carries, or null for any other revert. */
function panicCode(w: Walk, s: State, offset: Sym, size: Sym): bigint | null {
  if (size !== PANIC_DATA_SIZE || typeof offset !== 'bigint') return null;
  const bytes = w.code.bytes;
  let pushed = false;
  for (let pc = Math.max(0, s.pc - PANIC_BLOCK_BYTES); pc < s.pc && !pushed; pc++)
    pushed = pushesPanicSelector(bytes, pc, false);
  for (let pc = Math.max(0, s.pc - PANIC_BLOCK_BYTES_PUSH32); pc < s.pc && !pushed; pc++)
    pushed = pushesPanicSelector(bytes, pc, true);
  if (!pushed) return null;
  const code = mload(s, offset + 4n);
  return typeof code === 'bigint' ? code : null;
}

/** STOP, RETURN, REVERT, INVALID, SELFDESTRUCT; undefined for other opcodes. */
export function haltOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x00:
      return finish(w, s, 'stop');
    case 0xf3: {
      const offset = pop(stack);
      const size = pop(stack);
      const word = size === 32n ? mload(s, offset) : null;
      return finish(w, s, 'return', word === 0n, null, word);
    }
    case 0xfd: {
      const offset = pop(stack);
      const size = pop(stack);
      return finish(w, s, 'revert', false, panicCode(w, s, offset, size));
    }
    case 0xfe:
      return finish(w, s, 'invalid');
    case 0xff:
      return finish(w, s, 'selfdestruct');
    default:
      return undefined;
  }
}

/** Opcodes that only read the call, the code or the block. */
export function envOp(w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x30:
      stack.push(leaf('address'));
      break;
    case 0x31:
      pop(stack);
      stack.push(leaf('balance', T_EXTERNAL));
      break;
    case 0x32:
      stack.push(ORIGIN);
      break;
    case 0x33:
      stack.push(CALLER);
      break;
    case 0x34:
      stack.push(0n);
      break; // CALLVALUE: probes send none
    case 0x35:
      stack.push(calldataWord(w, pop(stack)));
      break;
    case 0x36:
      stack.push(BigInt(w.calldata.length));
      break;
    case 0x37: {
      // CALLDATACOPY
      const dest = pop(stack),
        o = pop(stack),
        size = pop(stack);
      copyIn(s, dest, size, (i) =>
        typeof o === 'bigint' ? calldataWord(w, o, i) : node('calldata', []),
      );
      break;
    }
    case 0x38:
      stack.push(BigInt(w.code.bytes.length));
      break;
    case 0x39: {
      // CODECOPY
      const dest = pop(stack),
        o = pop(stack),
        size = pop(stack);
      const ok = typeof o === 'bigint' && o <= MAX_CALLDATA_OFFSET;
      copyIn(s, dest, size, (i) =>
        ok ? readWord(w.code.bytes, Number(o) + 32 * i) : node('code', []),
      );
      break;
    }
    case 0x3a:
      stack.push(0n);
      break; // GASPRICE
    case 0x3b:
    case 0x3f:
      pop(stack);
      stack.push(leaf('extcode', T_EXTERNAL));
      break;
    case 0x3c:
      pop(stack);
      pop(stack);
      pop(stack);
      pop(stack);
      s.memoryDirty = true;
      break;
    case 0x3d:
      stack.push(s.returnSize);
      break;
    case 0x3e: {
      // RETURNDATACOPY
      const dest = pop(stack);
      pop(stack);
      const size = pop(stack);
      const last = s.lastCall;
      const target = s.lastTarget;
      copyIn(s, dest, size, () => leaf('retdata', T_EXTERNAL, last, target));
      break;
    }
    default:
      return undefined;
  }
  s.pc++;
  return true;
}

/** Opcodes that read the block or the machine. */
export function blockOp(s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x40:
    case 0x49:
      pop(stack);
      stack.push(leaf('env'));
      break; // BLOCKHASH, BLOBHASH
    case 0x42:
      stack.push(leaf('timestamp'));
      break;
    case 0x43:
      stack.push(leaf('number'));
      break;
    case 0x41:
    case 0x44:
    case 0x45:
    case 0x46:
    case 0x48:
    case 0x4a:
    case 0x5a:
    case 0x59:
      stack.push(leaf('env'));
      break;
    case 0x47:
      stack.push(leaf('balance', T_EXTERNAL));
      break; // SELFBALANCE
    default:
      return undefined;
  }
  s.pc++;
  return true;
}

/** Memory, storage and single-operand arithmetic. */
export function dataOp(_w: Walk, s: State, op: number): boolean | undefined {
  const stack = s.stack;
  switch (op) {
    case 0x08:
    case 0x09: {
      // ADDMOD, MULMOD
      const a = pop(stack),
        b = pop(stack),
        n = pop(stack);
      if (typeof a === 'bigint' && typeof b === 'bigint' && typeof n === 'bigint') {
        stack.push(n === 0n ? 0n : op === 0x08 ? (a + b) % n : (a * b) % n);
      } else stack.push(node(op === 0x08 ? 'addmod' : 'mulmod', [a, b, n]));
      break;
    }
    case 0x15: {
      const a = pop(stack);
      stack.push(typeof a === 'bigint' ? (a === 0n ? 1n : 0n) : node('iszero', [a]));
      break;
    }
    case 0x19: {
      const a = pop(stack);
      stack.push(typeof a === 'bigint' ? U256 ^ a : node('not', [a]));
      break;
    }
    case 0x20: {
      const offset = pop(stack);
      stack.push(sha3(s, offset, pop(stack)));
      break;
    }
    case 0x50:
      pop(stack);
      break;
    case 0x51:
      stack.push(mload(s, pop(stack)));
      break;
    case 0x52: {
      const o = pop(stack);
      mstore(s, o, pop(stack));
      break;
    }
    case 0x53: {
      // MSTORE8
      const o = pop(stack);
      pop(stack);
      if (typeof o === 'bigint' && o <= MAX_MEMORY_OFFSET) {
        const n = Number(o);
        for (const k of [...s.memory.keys()]) if (k > n - 32 && k <= n) s.memory.delete(k);
        for (const [k, f] of [...(s.fragments ?? [])])
          if (k <= n && k + f.size > n) s.fragments!.delete(k);
      }
      s.memoryDirty = true;
      s.unaligned = true;
      break;
    }
    case 0x54: {
      const slot = pop(stack);
      s.trace?.reads.push(slot);
      stack.push(node('sload', [slot], T_STORAGE));
      break;
    }
    case 0x55: {
      const slot = pop(stack);
      const value = pop(stack);
      s.trace?.writes.push({ slot, value, pc: s.pc });
      s.stateChanged = true;
      break;
    }
    case 0x5c:
      stack.push(node('tload', [pop(stack)], T_STORAGE));
      break;
    case 0x5d:
      pop(stack);
      pop(stack);
      break;
    case 0x5e:
      pop(stack);
      pop(stack);
      pop(stack);
      s.memoryDirty = true;
      break; // MCOPY
    case 0x5f:
      stack.push(0n);
      break; // PUSH0
    case 0x5b:
      break; // JUMPDEST
    default:
      return undefined;
  }
  s.pc++;
  return true;
}
