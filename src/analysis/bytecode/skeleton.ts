import { keccak256 } from 'ethers';
import { pushDataSize } from '../../evm/opcodes.ts';
import { normalizeCode } from './selectors.ts';

/**
 * The bytecode skeleton: runtime code with the compiler's CBOR metadata trailer removed and every
 * PUSH1..PUSH32 immediate zeroed. Two deployments of one template that differ only in constants
 * (supply, fees, hard-coded wallets, immutables such as the owner or the pair) share a skeleton,
 * so a new token can be compared with earlier honeypots by one hash lookup.
 */

/** solc and Vyper end the code with a CBOR map followed by its length as two big-endian bytes. */
const CBOR_LENGTH_BYTES = 2;
/** A CBOR map of 1 to 8 pairs starts with 0xa1..0xa8 (solc writes ipfs/bzzr, solc, experimental). */
const CBOR_MAP_MIN = 0xa1;
const CBOR_MAP_MAX = 0xa8;
/** Longest trailer seen in practice (ipfs + solc + experimental) is about 90 bytes; leave room. */
const MAX_METADATA_BYTES = 256;

/** The length of the CBOR metadata trailer at the end of `bytes` (its two length bytes included), or 0. */
export function metadataLength(bytes: Uint8Array): number {
  if (bytes.length < CBOR_LENGTH_BYTES + 1) return 0;
  const cborLength = (bytes[bytes.length - 2]! << 8) | bytes[bytes.length - 1]!;
  const total = cborLength + CBOR_LENGTH_BYTES;
  if (cborLength === 0 || cborLength > MAX_METADATA_BYTES || total > bytes.length) return 0;
  const first = bytes[bytes.length - total]!;
  return first >= CBOR_MAP_MIN && first <= CBOR_MAP_MAX ? total : 0;
}

/** Code without metadata, PUSH immediates zeroed (a PUSH cut short by the end keeps its length). */
export function skeletonBytes(code: string): Uint8Array {
  const hex = normalizeCode(code) ?? '';
  const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  const end = bytes.length - metadataLength(bytes);
  const out = bytes.slice(0, end);
  for (let pc = 0; pc < end; pc++) {
    const size = pushDataSize(out[pc]!);
    if (size > 0) {
      out.fill(0, pc + 1, Math.min(end, pc + 1 + size));
      pc += size;
    }
  }
  return out;
}

/** keccak256 of the skeleton, 0x-prefixed. Empty or non-hex code hashes the empty string. */
export function skeletonHash(code: string): string {
  return keccak256(skeletonBytes(code));
}
