import { AbiCoder, getAddress, id, toUtf8String, Utf8ErrorFuncs } from 'ethers';
import type { RpcOutcome, RpcRequest } from './rpc.ts';

/**
 * The ERC-20 probe: which calls to make, and how to read their answers. Tolerant of tokens that
 * return bytes32 names, revert on optional methods, or return garbage.
 */

/** Any fixed address works for balanceOf; the dead address never holds a private key. */
const PROBE_HOLDER = '0x000000000000000000000000000000000000dead';
const MAX_TEXT_LENGTH = 128;
const WORD_HEX_LENGTH = 64;
const abi = AbiCoder.defaultAbiCoder();

const selector = (signature: string) => id(signature).slice(0, 10);

const PROBE_METHODS = {
  totalSupply: selector('totalSupply()'),
  balanceOf: selector('balanceOf(address)') + PROBE_HOLDER.slice(2).padStart(WORD_HEX_LENGTH, '0'),
  decimals: selector('decimals()'),
  name: selector('name()'),
  symbol: selector('symbol()'),
  // A Uniswap-V2-style pair is an ERC-20 too (its LP token); these tell it apart.
  token0: selector('token0()'),
  token1: selector('token1()'),
  factory: selector('factory()'),
} as const;

type ProbeField = keyof typeof PROBE_METHODS;
const PROBE_FIELDS = Object.keys(PROBE_METHODS) as ProbeField[];

export type ProbeOutcome =
  | { kind: 'token'; name: string | null; symbol: string | null; decimals: number | null; totalSupply: string }
  | { kind: 'pair'; token0: string; token1: string; factory: string | null; name: string | null; symbol: string | null }
  | { kind: 'not-token'; reason: string };

/** The eth_call requests of the probe, in a fixed order that `interpretProbe` expects. */
export function probeRequests(address: string, blockTag: string): RpcRequest[] {
  return PROBE_FIELDS.map((field) => ({ method: 'eth_call', params: [{ to: address, data: PROBE_METHODS[field] }, blockTag] }));
}

export const PROBE_REQUEST_COUNT = PROBE_FIELDS.length;

export function interpretProbe(outcomes: readonly RpcOutcome<unknown>[]): ProbeOutcome {
  const data = Object.fromEntries(
    PROBE_FIELDS.map((field, i) => {
      const o = outcomes[i];
      return [field, o?.ok && typeof o.result === 'string' ? o.result : null];
    }),
  ) as Record<ProbeField, string | null>;

  const totalSupply = readUint(data.totalSupply);
  if (totalSupply === null) return { kind: 'not-token', reason: 'totalSupply() did not return a uint256' };
  if (readUint(data.balanceOf) === null) return { kind: 'not-token', reason: 'balanceOf(address) did not return a uint256' };

  const name = readText(data.name);
  const symbol = readText(data.symbol);
  const token0 = readAddress(data.token0);
  const token1 = readAddress(data.token1);
  if (token0 && token1) return { kind: 'pair', token0, token1, factory: readAddress(data.factory), name, symbol };

  const decimals = readUint(data.decimals);
  const decimalsNumber = decimals !== null && BigInt(decimals) <= 255n ? Number(decimals) : null;
  return { kind: 'token', name, symbol, decimals: decimalsNumber, totalSupply };
}

/** A uint256 as a decimal string, or null when the answer is not one 32-byte word (or more). */
export function readUint(hex: string | null): string | null {
  if (!hex || !/^0x[0-9a-fA-F]*$/.test(hex) || hex.length < 2 + WORD_HEX_LENGTH) return null;
  return BigInt(`0x${hex.slice(2, 2 + WORD_HEX_LENGTH)}`).toString();
}

function readAddress(hex: string | null): string | null {
  const value = readUint(hex);
  if (value === null) return null;
  const n = BigInt(value);
  if (n === 0n || n >= 1n << 160n) return null;
  return getAddress(`0x${n.toString(16).padStart(40, '0')}`).toLowerCase();
}

/** A name or symbol: an ABI string, or a bytes32 (old tokens such as MKR); cleaned of control characters. */
export function readText(hex: string | null): string | null {
  if (!hex || !/^0x[0-9a-fA-F]*$/.test(hex) || hex.length < 2 + WORD_HEX_LENGTH) return null;
  let text: string | null = null;
  try {
    // Decoded as `bytes` (the same encoding as `string`) so that invalid UTF-8 is replaced, not fatal.
    const raw = abi.decode(['bytes'], hex)[0] as string;
    text = toUtf8String(raw, Utf8ErrorFuncs.replace);
  } catch {
    text = null;
  }
  if (text === null && hex.length === 2 + WORD_HEX_LENGTH) text = bytes32ToText(hex);
  if (text === null) return null;
  // Cut by code points, not UTF-16 units, so that no character is split in half.
  const cleaned = [...text.replace(/\p{Cc}/gu, '').trim()].slice(0, MAX_TEXT_LENGTH).join('');
  return cleaned.length > 0 ? cleaned : null;
}

function bytes32ToText(hex: string): string {
  const bytes = Buffer.from(hex.slice(2), 'hex');
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  // Invalid UTF-8 becomes U+FFFD rather than an exception: a symbol is never worth a crash.
  // (ethers' replace handler: its return value is the count of *extra* bytes to skip, so a
  // hand-written `return 1` would swallow the valid character after each bad byte.)
  return toUtf8String(bytes.subarray(0, end), Utf8ErrorFuncs.replace);
}
