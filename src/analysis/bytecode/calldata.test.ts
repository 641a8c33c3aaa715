import { AbiCoder } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  describeProbeArguments,
  PADDING_WORDS,
  PROBE_ARGUMENT_ADDRESS,
  probeCalldata,
  splitTypes,
} from './calldata.ts';

const PADDING = '00'.repeat(32 * PADDING_WORDS);

describe('probe call data', () => {
  it('splits argument lists at top-level commas only', () => {
    expect(splitTypes('')).toEqual([]);
    expect(splitTypes('address,uint256')).toEqual(['address', 'uint256']);
    expect(splitTypes('(uint256,address)[],bool,(bytes,(uint8,bool))')).toEqual([
      '(uint256,address)[]',
      'bool',
      '(bytes,(uint8,bool))',
    ]);
  });

  it('encodes plausible arguments that decode back', () => {
    const ones = probeCalldata('40c10f19', 'address,uint256', 'ones');
    expect(ones.slice(0, 10)).toBe('0x40c10f19');
    const [to, amount] = AbiCoder.defaultAbiCoder().decode(
      ['address', 'uint256'],
      `0x${ones.slice(10)}`,
    );
    expect(String(to).toLowerCase()).toBe(PROBE_ARGUMENT_ADDRESS);
    expect(amount).toBe(1n);
    const zeros = probeCalldata('0b78f9c0', 'uint256,bool,bytes32,string,address[]', 'zeros');
    const decoded = AbiCoder.defaultAbiCoder().decode(
      ['uint256', 'bool', 'bytes32', 'string', 'address[]'],
      `0x${zeros.slice(10)}`,
    );
    expect([decoded[0], decoded[1], decoded[3], decoded[4].length]).toEqual([0n, false, '', 1]);
    // Zero words follow the arguments, in case evmole missed one.
    expect(probeCalldata('8456cb59', '', 'ones')).toBe(`0x8456cb59${PADDING}`);
    expect(ones.endsWith(PADDING)).toBe(true);
  });

  it('falls back to zero words when the types cannot be encoded', () => {
    expect(probeCalldata('aabbccdd', 'weird9', 'ones')).toBe(
      `0xaabbccdd${'00'.repeat(128)}${PADDING}`,
    );
    expect(describeProbeArguments('address,bool,uint8', 'zeros')).toBe(
      'address a fresh address, bool false, uint8 0',
    );
  });
});
