import { AbiCoder, getAddress, id, toUtf8String, Utf8ErrorFuncs } from 'ethers';
import { contractInfo } from 'evmole';
import type { RpcOutcome, RpcRequest } from './rpc.ts';

/**
 * The ERC-20 probe: which calls to make, and how to read their answers. A token is a contract
 * with the transfer surface — totalSupply(), balanceOf(address) and transfer(address,uint256) —
 * whatever its optional metadata: decimals, name and symbol may be missing, bytes32, or a uint
 * where a uint8 is usual, and a total supply of zero (empty storage) is still a supply.
 * docs/risk-model.md ("Token recognition") states the rules.
 */

/** Any fixed address works for balanceOf; the dead address never holds a private key. */
const PROBE_HOLDER = '0x000000000000000000000000000000000000dead';
/** Sender of the zero-amount transfer probe: a fixed address nobody holds a key for. */
const PROBE_SENDER = '0x000000000000000000000000000000000000beef';
const MAX_TEXT_LENGTH = 128;
const WORD_HEX_LENGTH = 64;
const abi = AbiCoder.defaultAbiCoder();

const selector = (signature: string) => id(signature).slice(0, 10);
const holderWord = PROBE_HOLDER.slice(2).padStart(WORD_HEX_LENGTH, '0');

/** The three functions that make a token: without one, no balance can move between holders. */
export const SURFACE = {
  totalSupply: selector('totalSupply()').slice(2),
  balanceOf: selector('balanceOf(address)').slice(2),
  transfer: selector('transfer(address,uint256)').slice(2),
} as const;

const PROBE_METHODS = {
  totalSupply: selector('totalSupply()'),
  balanceOf: selector('balanceOf(address)') + holderWord,
  decimals: selector('decimals()'),
  name: selector('name()'),
  symbol: selector('symbol()'),
  // A Uniswap-V2-style pair is an ERC-20 too (its LP token); these tell it apart.
  token0: selector('token0()'),
  token1: selector('token1()'),
  factory: selector('factory()'),
  // transfer(0x…dead, 0) from a keyless sender: the fallback evidence of the transfer surface
  // when no dispatcher can be read (see `interpretProbe`). eth_call changes no state.
  transfer: selector('transfer(address,uint256)') + holderWord + '0'.repeat(WORD_HEX_LENGTH),
} as const;

type ProbeField = keyof typeof PROBE_METHODS;
const PROBE_FIELDS = Object.keys(PROBE_METHODS) as ProbeField[];

/** The call whose absence refused a contract: the structured reason the logs carry. */
export type MissingSurface = 'totalSupply()' | 'balanceOf(address)' | 'transfer(address,uint256)';

export type ProbeOutcome =
  | {
      kind: 'token';
      name: string | null;
      symbol: string | null;
      decimals: number | null;
      totalSupply: string | null;
    }
  | {
      kind: 'pair';
      token0: string;
      token1: string;
      factory: string | null;
      name: string | null;
      symbol: string | null;
    }
  | { kind: 'not-token'; missing: MissingSurface; reason: string };

/**
 * What the contract's code says it implements. `selectors` are those its dispatcher (or, behind
 * a proxy, its implementation's) compares the calldata with; null when no dispatcher could be
 * read (no code, an unresolved proxy, code evmole cannot parse): then the calls decide alone.
 */
export interface Dispatch {
  selectors: ReadonlySet<string> | null;
  /** Where the selectors come from, for the refusal reason: "the code", "implementation 0x…". */
  source: string;
}

export const UNREAD_DISPATCH: Dispatch = { selectors: null, source: 'no readable dispatcher' };

/** The eth_call requests of the probe, in a fixed order that `interpretProbe` expects. */
export function probeRequests(address: string, blockTag: string): RpcRequest[] {
  return PROBE_FIELDS.map((field) => {
    const call: Record<string, string> = { to: address, data: PROBE_METHODS[field] };
    if (field === 'transfer') call.from = PROBE_SENDER;
    return { method: 'eth_call', params: [call, blockTag] };
  });
}

export const PROBE_REQUEST_COUNT = PROBE_FIELDS.length;

/** The selectors a dispatcher compares (evmole), or null when the code yields none. */
export function dispatcherSelectors(code: string | null): ReadonlySet<string> | null {
  const hex = code?.replace(/^0x/i, '') ?? '';
  if (hex.length === 0 || !/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) return null;
  try {
    const found = contractInfo(hex, { selectors: true }).functions ?? [];
    return found.length > 0 ? new Set(found.map((f) => f.selector.toLowerCase())) : null;
  } catch {
    return null;
  }
}

/**
 * The decision. A surface function is present when its call answers as the standard says
 * (a uint256 word) or, failing that, when the dispatcher routes its selector: balanceOf may
 * revert on empty storage (a token paused or unconfigured at first sight) and still exist.
 * transfer is never sent for real, so the dispatcher decides it; only without a readable
 * dispatcher does a zero-amount eth_call that returns nothing or a bool stand in for it.
 */
export function interpretProbe(
  outcomes: readonly RpcOutcome<unknown>[],
  dispatch: Dispatch = UNREAD_DISPATCH,
): ProbeOutcome {
  const data = Object.fromEntries(
    PROBE_FIELDS.map((field, i) => {
      const o = outcomes[i];
      return [field, o?.ok && typeof o.result === 'string' ? o.result : null];
    }),
  ) as Record<ProbeField, string | null>;
  const routed = (key: keyof typeof SURFACE) => dispatch.selectors?.has(SURFACE[key]) ?? false;

  const notRouted = `is not in the dispatcher (${dispatch.source})`;
  const totalSupply = readUint(data.totalSupply);
  if (totalSupply === null && !routed('totalSupply')) {
    return refuse('totalSupply()', `totalSupply() did not return a uint256 and ${notRouted}`);
  }
  if (readUint(data.balanceOf) === null && !routed('balanceOf')) {
    return refuse(
      'balanceOf(address)',
      `balanceOf(address) did not return a uint256 and ${notRouted}`,
    );
  }

  const name = readText(data.name);
  const symbol = readText(data.symbol);
  const token0 = readAddress(data.token0);
  const token1 = readAddress(data.token1);
  if (token0 && token1)
    return { kind: 'pair', token0, token1, factory: readAddress(data.factory), name, symbol };

  if (dispatch.selectors !== null && !routed('transfer')) {
    return refuse('transfer(address,uint256)', `transfer(address,uint256) ${notRouted}`);
  }
  if (dispatch.selectors === null && !transferAnswered(data.transfer)) {
    return refuse(
      'transfer(address,uint256)',
      `no readable dispatcher (${dispatch.source}) and transfer(address,uint256) of 0 ` +
        'reverted or answered no bool',
    );
  }

  const decimals = readUint(data.decimals);
  const decimalsNumber = decimals !== null && BigInt(decimals) <= 255n ? Number(decimals) : null;
  return { kind: 'token', name, symbol, decimals: decimalsNumber, totalSupply };
}

const refuse = (missing: MissingSurface, reason: string): ProbeOutcome => ({
  kind: 'not-token',
  missing,
  reason,
});

/** An ERC-20 transfer returns a bool, or nothing at all (USDT and other pre-standard tokens). */
function transferAnswered(hex: string | null): boolean {
  if (hex === '0x') return true;
  const value = readUint(hex);
  return value === '0' || value === '1';
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
