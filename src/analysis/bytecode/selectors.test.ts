import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { selectorOf } from '../catalog/index.ts';
import { extractFunctions, MAX_CODE_BYTES, normalizeCode, toExtracted } from './selectors.ts';

describe('extractFunctions', () => {
  it('finds the dispatcher functions of a compiled token, with arguments and mutability', () => {
    const { functions, error } = extractFunctions(loadArtifact('MintableToken').deployedBytecode);
    expect(error).toBeNull();
    const bySelector = new Map(functions.map((f) => [f.selector, f]));
    expect(bySelector.get(selectorOf('mint(address,uint256)'))).toMatchObject({
      arguments: 'address,uint256',
      state_mutability: 'nonpayable',
    });
    expect(bySelector.get(selectorOf('balanceOf(address)'))).toMatchObject({
      arguments: 'address',
      state_mutability: 'view',
    });
    expect(bySelector.get(selectorOf('renounceOwnership()'))).toMatchObject({
      arguments: '',
      state_mutability: 'nonpayable',
    });
    // Sorted, unique, 8 lower-case hex characters, with the body offset for the bytecode walk.
    expect(functions.map((f) => f.selector)).toEqual([...bySelector.keys()].sort());
    for (const f of functions) {
      expect(f.selector).toMatch(/^[0-9a-f]{8}$/);
      expect(f.offset).toBeGreaterThan(0);
    }
  });

  it('accepts code with or without 0x, in any case', () => {
    const code = loadArtifact('SimpleToken').deployedBytecode;
    const a = extractFunctions(code).functions;
    expect(extractFunctions(code.slice(2).toUpperCase()).functions).toEqual(a);
  });

  it('never throws on empty, garbage, odd-length or oversized code', () => {
    expect(extractFunctions('')).toEqual({ functions: [], error: 'no code' });
    expect(extractFunctions('0x')).toEqual({ functions: [], error: 'no code' });
    expect(extractFunctions('0xzz')).toEqual({ functions: [], error: 'code is not hex' });
    expect(extractFunctions('0x6').functions).toEqual([]);
    expect(extractFunctions('0xfe').functions).toEqual([]);
    expect(extractFunctions(`0x${'5b'.repeat(MAX_CODE_BYTES + 1)}`).error).toMatch(/larger than/);
    // Random bytes: whatever evmole makes of them, no exception and well-formed output.
    const random = Buffer.from(
      Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256),
    ).toString('hex');
    for (const f of extractFunctions(random).functions) expect(f.selector).toMatch(/^[0-9a-f]{8}$/);
  });

  it('normalizes hex and strips the offset for storage', () => {
    expect(normalizeCode('0xABC')).toBe('0abc');
    expect(normalizeCode('g')).toBeNull();
    expect(
      toExtracted({
        selector: 'aabbccdd',
        arguments: '',
        state_mutability: 'view',
        offset: 5,
      } as never),
    ).toEqual({ selector: 'aabbccdd', arguments: '', state_mutability: 'view' });
  });
});
