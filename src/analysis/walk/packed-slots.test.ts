import { keccak256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import { entrySlot, isCallerLeaf, isPackedBase, prepareCode, slotShape, walk } from './index.ts';

/**
 * Solady keeps a balance at keccak256(account . seed): `mstore(0x0c, seed)`, `mstore(0x00,
 * account)`, `keccak256(0x0c, 0x20)`, or `mstore(0x0c, or(shl(96, account), seed))`. Both read
 * as one mapping keyed by the account, whose entry slot is the real one.
 */

const SEED = 0x87a211a2n;
const ACCOUNT = 0x1111111111111111111111111111111111111111n;
const hex = (n: bigint, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

// PUSH4 seed PUSH1 0x0c MSTORE; CALLER PUSH1 0 MSTORE; PUSH1 0x20 PUSH1 0x0c SHA3 SLOAD POP
// PUSH1 4 CALLDATALOAD PUSH1 0 MSTORE; PUSH1 0x20 PUSH1 0x0c SHA3 SLOAD POP
// PUSH4 seed PUSH1 4 CALLDATALOAD PUSH1 0x60 SHL OR PUSH1 0x0c MSTORE; PUSH1 0x20 PUSH1 0x0c SHA3 SLOAD POP
// PUSH4 seed CALLER PUSH1 0x60 SHL OR PUSH1 0x0c MSTORE; PUSH1 0x20 PUSH1 0x0c SHA3 SLOAD POP STOP
const SEED_PUSH = `63${hex(SEED, 4)}`;
const HASH_LOAD = '6020600c20545000'.slice(0, -2);
const CODE =
  `${SEED_PUSH}600c52` +
  `33600052${HASH_LOAD}` +
  `600435600052${HASH_LOAD}` +
  `${SEED_PUSH}60043560601b17600c52${HASH_LOAD}` +
  `${SEED_PUSH}3360601b17600c52${HASH_LOAD}` +
  '00';

describe('packed balance slots (Solady)', () => {
  const calldata = `0x70a08231${hex(ACCOUNT, 32)}`;
  const [trace] = walk(prepareCode(CODE), calldata, { record: true }).traces;

  it('reads four entries of one mapping, keyed by the caller or the account', () => {
    const shapes = trace!.reads.map((r) => slotShape(r));
    expect(shapes).toHaveLength(4);
    const bases = new Set(shapes.map((s) => (s?.kind === 'map' ? s.base : null)));
    expect(bases.size).toBe(1);
    const [base] = [...bases];
    expect(base !== null && base !== undefined && isPackedBase(base)).toBe(true);
    const keys = shapes.map((s) => (s?.kind === 'map' ? s.key : null));
    expect(isCallerLeaf(keys[0]!)).toBe(true);
    expect(keys[1]).toBe(ACCOUNT);
    expect(keys[2]).toBe(ACCOUNT);
    expect(isCallerLeaf(keys[3]!)).toBe(true);
  });

  it('computes the entry slot Solady computes', () => {
    const shape = slotShape(trace!.reads[1]!);
    expect(shape?.kind).toBe('map');
    const base = shape?.kind === 'map' ? shape.base : 0n;
    expect(entrySlot(base, ACCOUNT)).toBe(keccak256(`0x${hex(ACCOUNT, 20)}${hex(SEED, 12)}`));
  });

  it('a byte stored over the seed since leaves the hashed word unknown', () => {
    // PUSH4 seed PUSH1 0x0c MSTORE; CALLER PUSH1 0 MSTORE; PUSH1 1 PUSH1 0x25 MSTORE8; hash, load
    const code = `${SEED_PUSH}600c5233600052600160255${'3'}${HASH_LOAD}00`;
    const [t] = walk(prepareCode(code), calldata, { record: true }).traces;
    expect(slotShape(t!.reads[0]!)).toBeNull();
  });

  it('a dynamic array at a small slot is no packed entry', () => {
    expect(slotShape({ op: 'sha3', args: [5n], taint: 0, depth: 1 })?.kind).toBe('slot');
  });
});
