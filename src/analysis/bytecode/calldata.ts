import { AbiCoder, id, ParamType } from 'ethers';

/**
 * Plausible call data for a function known only by its selector and evmole's argument types, for
 * eth_call probes and for the bytecode walk. Two variants: "ones" (every number 1, booleans true,
 * addresses a fresh non-zero address) passes most `!= 0` checks; "zeros" (numbers 0, booleans
 * false) passes most upper-bound checks (a fee setter capped at 25 %).
 */

export type ArgumentVariant = 'ones' | 'zeros';
export const ARGUMENT_VARIANTS: readonly ArgumentVariant[] = ['ones', 'zeros'];

/** A fresh address no one controls (derived from a label, so it is the same on every run). */
export const addressFromLabel = (label: string): string => `0x${id(label).slice(-40)}`;
/** The address used for `address` arguments: a recipient, an account to blacklist, a new owner… */
export const PROBE_ARGUMENT_ADDRESS = addressFromLabel('token-monitor.probe.argument');
/** Dynamic arrays get one element, so that loops over them run once. */
const ARRAY_PROBE_LENGTH = 1;
/**
 * Zero words appended after the encoded arguments. evmole infers arguments from their use, so an
 * unused or oddly compiled one (via-IR) can be missing from its list; without the padding the ABI
 * decoder's length check would revert every probe. Solidity ignores extra call data.
 */
export const PADDING_WORDS = 4;
/** Fixed arrays longer than this are not encoded (a probe, not a fuzzer). */
const MAX_FIXED_ARRAY = 16;
const abi = AbiCoder.defaultAbiCoder();
const PADDING = '00'.repeat(32 * PADDING_WORDS);

/** Splits "address,(uint256,bool)[],bytes" at top-level commas. */
export function splitTypes(types: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < types.length; i++) {
    const c = types[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(types.slice(start, i));
      start = i + 1;
    }
  }
  const last = types.slice(start);
  if (last.length > 0) out.push(last);
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

function defaultValue(type: ParamType, variant: ArgumentVariant): unknown {
  const one = variant === 'ones';
  if (type.baseType === 'array') {
    const length = type.arrayLength === -1 ? ARRAY_PROBE_LENGTH : type.arrayLength!;
    if (length > MAX_FIXED_ARRAY) throw new Error(`array of ${length} not probed`);
    return Array.from({ length }, () => defaultValue(type.arrayChildren!, variant));
  }
  if (type.baseType === 'tuple') return type.components!.map((c) => defaultValue(c, variant));
  if (type.baseType === 'address') return PROBE_ARGUMENT_ADDRESS;
  if (type.baseType === 'bool') return one;
  if (type.baseType === 'string') return '';
  if (type.baseType === 'bytes') return '0x';
  if (type.baseType.startsWith('bytes')) return `0x${'00'.repeat(Number(type.baseType.slice(5)))}`;
  if (type.baseType.startsWith('uint') || type.baseType.startsWith('int')) return one ? 1n : 0n;
  throw new Error(`unknown type ${type.type}`);
}

/**
 * 0x-prefixed call data: selector + ABI-encoded plausible arguments. When the types cannot be
 * encoded (evmole guessed something odd), falls back to the selector and `fallbackWords` zero
 * words, which is what a careless caller would send.
 */
export function probeCalldata(
  selector: string,
  argumentTypes: string,
  variant: ArgumentVariant,
  fallbackWords = 4,
): string {
  try {
    const types = splitTypes(argumentTypes).map((t) => ParamType.from(t));
    const encoded = abi.encode(
      types,
      types.map((t) => defaultValue(t, variant)),
    );
    return `0x${selector}${encoded.slice(2)}${PADDING}`;
  } catch {
    return `0x${selector}${'00'.repeat(32 * fallbackWords)}${PADDING}`;
  }
}

/** Human-readable arguments of a probe, for evidence. */
export function describeProbeArguments(argumentTypes: string, variant: ArgumentVariant): string {
  const types = splitTypes(argumentTypes);
  if (types.length === 0) return 'no arguments';
  const value = (t: string) =>
    t === 'address'
      ? 'a fresh address'
      : t === 'bool'
        ? String(variant === 'ones')
        : /^u?int\d*$/.test(t)
          ? variant === 'ones'
            ? '1'
            : '0'
          : 'empty';
  return types.map((t) => `${t} ${value(t)}`).join(', ');
}
