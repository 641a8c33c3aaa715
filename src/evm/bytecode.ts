import { keccak256 } from 'ethers';
import { pushDataSize } from './opcodes.ts';

/** Facts read from runtime bytecode alone. */

const EIP1167_PREFIX = '363d3d373d3d3d363d73';
const EIP1167_SUFFIX = '5af43d82803e903d91602b57fd5bf3';
/** Storage slots whose constants in the code betray a proxy (EIP-1967 implementation/beacon/admin, EIP-1822, OZ legacy). */
const PROXY_SLOT_CONSTANTS = [
  '360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  'a3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  'b53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
  'c5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
  '7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
];
const DELEGATECALL = 0xf4;
/** Hand-rolled proxies are small; a large contract using DELEGATECALL is more likely a library user. */
const SMALL_PROXY_MAX_BYTES = 2_048;

export interface BytecodeFacts {
  bytecodeHash: string;
  codeLength: number;
  proxyLike: boolean;
}

export function bytecodeFacts(code: string): BytecodeFacts {
  const hex = normalizeHex(code);
  const codeLength = hex.length / 2;
  return {
    bytecodeHash: keccak256(`0x${hex}`),
    codeLength,
    proxyLike: codeLength > 0 && isProxyLike(hex),
  };
}

export function isEip1167(hex: string): boolean {
  const h = normalizeHex(hex);
  return h.length === 90 && h.startsWith(EIP1167_PREFIX) && h.endsWith(EIP1167_SUFFIX);
}

function isProxyLike(hex: string): boolean {
  if (isEip1167(hex)) return true;
  if (PROXY_SLOT_CONSTANTS.some((slot) => hex.includes(slot))) return true;
  return hex.length / 2 <= SMALL_PROXY_MAX_BYTES && hasOpcode(hex, DELEGATECALL);
}

/** Walks the code as instructions (skipping PUSH data), so that data bytes are not taken for opcodes. */
export function hasOpcode(hex: string, opcode: number): boolean {
  const bytes = Buffer.from(normalizeHex(hex), 'hex');
  for (let pc = 0; pc < bytes.length; pc++) {
    const op = bytes[pc]!;
    if (op === opcode) return true;
    pc += pushDataSize(op);
  }
  return false;
}

function normalizeHex(code: string): string {
  const h = code.startsWith('0x') || code.startsWith('0X') ? code.slice(2) : code;
  return (h.length % 2 === 0 ? h : `0${h}`).toLowerCase();
}
