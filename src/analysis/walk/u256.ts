/** 256-bit EVM arithmetic on concrete words (bigints kept in [0, 2^256)). */

export const U256 = (1n << 256n) - 1n;
export const SIGN_BIT = 1n << 255n;

export const toSigned = (x: bigint) => (x & SIGN_BIT ? x - (1n << 256n) : x);
export const toUnsigned = (x: bigint) => x & U256;
export const isPowerOfTwo = (n: bigint) => n > 0n && (n & (n - 1n)) === 0n;
export const log2 = (n: bigint) => n.toString(2).length - 1;

/** The two-operand opcodes, by the name their symbolic nodes carry. */
export const BINARY_NAMES: Readonly<Record<number, string>> = {
  1: 'add',
  2: 'mul',
  3: 'sub',
  4: 'div',
  5: 'sdiv',
  6: 'mod',
  7: 'smod',
  10: 'exp',
  11: 'signextend',
  16: 'lt',
  17: 'gt',
  18: 'slt',
  19: 'sgt',
  20: 'eq',
  22: 'and',
  23: 'or',
  24: 'xor',
  26: 'byte',
  27: 'shl',
  28: 'shr',
  29: 'sar',
};

function signExtend(a: bigint, b: bigint): bigint {
  if (a >= 31n) return b;
  const bit = 8n * a + 7n;
  const mask = (1n << bit) - 1n;
  return b & (1n << bit) ? toUnsigned(b | ~mask) : b & mask;
}

function shift(op: number, a: bigint, b: bigint): bigint {
  if (op === 0x1b) return a >= 256n ? 0n : (b << a) & U256;
  if (op === 0x1c) return a >= 256n ? 0n : b >> a;
  return a >= 256n ? (b & SIGN_BIT ? U256 : 0n) : toUnsigned(toSigned(b) >> a);
}

/** The result of a binary opcode (one of BINARY_NAMES) on two concrete operands. */
export function fold(op: number, a: bigint, b: bigint): bigint {
  switch (op) {
    case 0x01:
      return (a + b) & U256;
    case 0x02:
      return (a * b) & U256;
    case 0x03:
      return (a - b) & U256;
    case 0x04:
      return b === 0n ? 0n : a / b;
    case 0x05:
      return b === 0n ? 0n : toUnsigned(toSigned(a) / toSigned(b));
    case 0x06:
      return b === 0n ? 0n : a % b;
    case 0x07:
      return b === 0n ? 0n : toUnsigned(toSigned(a) % toSigned(b));
    case 0x0a:
      return modPow(a, b);
    case 0x0b:
      return signExtend(a, b);
    case 0x10:
      return a < b ? 1n : 0n;
    case 0x11:
      return a > b ? 1n : 0n;
    case 0x12:
      return toSigned(a) < toSigned(b) ? 1n : 0n;
    case 0x13:
      return toSigned(a) > toSigned(b) ? 1n : 0n;
    case 0x14:
      return a === b ? 1n : 0n;
    case 0x16:
      return a & b;
    case 0x17:
      return a | b;
    case 0x18:
      return a ^ b;
    case 0x1a:
      return a >= 32n ? 0n : (b >> (8n * (31n - a))) & 0xffn;
    case 0x1b:
    case 0x1c:
    case 0x1d:
      return shift(op, a, b);
    default:
      return 0n;
  }
}

export function modPow(base: bigint, exponent: bigint): bigint {
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
