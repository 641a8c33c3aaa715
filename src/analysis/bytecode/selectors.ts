import { contractInfo } from 'evmole';
import type { ExtractedFunction } from '../types.ts';

/**
 * Function extraction from runtime bytecode with evmole: the dispatcher's selectors, their
 * argument types and state mutability. Never throws: garbage, odd-length or empty code yields no
 * functions (and a reason), so one malformed contract cannot fail a stage.
 */

/**
 * Runtime code is capped at 24 KiB on Ethereum (EIP-170) and at most a few times that on chains
 * that raised the limit. Anything larger is not analysed, which keeps evmole's time bounded: its
 * cost grows with code size, and the slowest of 2,000 real contracts took well under a second.
 */
export const MAX_CODE_BYTES = 128 * 1024;

const STATE_MUTABILITIES = new Set<ExtractedFunction['state_mutability']>([
  'pure',
  'view',
  'nonpayable',
  'payable',
]);
const SELECTOR = /^[0-9a-f]{8}$/;

/** A function with where its body starts, for the bytecode walk of access/access-control.ts. */
export interface DispatchedFunction extends ExtractedFunction {
  /** Byte offset of the function body (evmole's bytecodeOffset). */
  offset: number;
}

export interface Extraction {
  functions: DispatchedFunction[];
  /** Why no function could be extracted (empty code, not hex, too large, evmole failure), or null. */
  error: string | null;
}

/** Lower-case hex without 0x, or null when `code` is not hex. An odd length is left-padded. */
export function normalizeCode(code: string): string | null {
  const body = code.startsWith('0x') || code.startsWith('0X') ? code.slice(2) : code;
  if (!/^[0-9a-fA-F]*$/.test(body)) return null;
  return (body.length % 2 === 0 ? body : `0${body}`).toLowerCase();
}

export function extractFunctions(code: string): Extraction {
  const hex = normalizeCode(code);
  if (hex === null) return { functions: [], error: 'code is not hex' };
  if (hex.length === 0) return { functions: [], error: 'no code' };
  if (hex.length / 2 > MAX_CODE_BYTES)
    return { functions: [], error: `code larger than ${MAX_CODE_BYTES} bytes` };
  let raw: ReturnType<typeof contractInfo>;
  try {
    raw = contractInfo(hex, { selectors: true, arguments: true, stateMutability: true });
  } catch (error) {
    return { functions: [], error: `evmole: ${(error as Error).message}` };
  }
  const seen = new Set<string>();
  const functions: DispatchedFunction[] = [];
  for (const f of raw.functions ?? []) {
    const selector = f.selector.toLowerCase();
    // A dispatcher may compare one selector twice (e.g. Vyper's hash buckets); keep the first.
    if (!SELECTOR.test(selector) || seen.has(selector)) continue;
    seen.add(selector);
    const mutability = f.stateMutability as ExtractedFunction['state_mutability'] | undefined;
    functions.push({
      selector,
      arguments: f.arguments ?? '',
      state_mutability: mutability && STATE_MUTABILITIES.has(mutability) ? mutability : 'unknown',
      offset: f.bytecodeOffset,
    });
  }
  functions.sort((a, b) => a.selector.localeCompare(b.selector));
  return { functions, error: null };
}

/** The stored shape (without the bytecode offset). */
export const toExtracted = ({
  selector,
  arguments: args,
  state_mutability,
}: ExtractedFunction): ExtractedFunction => ({
  selector,
  arguments: args,
  state_mutability,
});
