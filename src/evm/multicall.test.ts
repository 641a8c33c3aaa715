import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decodeAggregate3, encodeAggregate3 } from './multicall.ts';

const reference = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

const calls = [
  { target: '0x5FbDB2315678afecb367f032d93F642f64180aa3', data: '0x0902f1ac' },
  {
    target: '0x1000000000000000000000000000000000000001',
    data: `0x70a08231${'00'.repeat(12)}${'ab'.repeat(20)}`,
  },
  { target: '0x2000000000000000000000000000000000000002', data: '0x' },
  { target: '0x3000000000000000000000000000000000000003', data: `0x${'cd'.repeat(67)}` },
];

describe('aggregate3 coding', () => {
  it('encodes exactly as the generic ABI coder does', () => {
    const expected = reference.encodeFunctionData('aggregate3', [
      calls.map((c) => ({ target: c.target, allowFailure: true, callData: c.data })),
    ]);
    expect(encodeAggregate3(calls)).toBe(expected);
    expect(encodeAggregate3([])).toBe(reference.encodeFunctionData('aggregate3', [[]]));
  });

  it('decodes results, failures as reverts carrying their data', () => {
    const results = [
      [true, `0x${'11'.repeat(96)}`],
      [false, '0x08c379a0'],
      [true, '0x'],
    ] as const;
    const encoded = reference.encodeFunctionResult('aggregate3', [
      results.map(([success, returnData]) => ({ success, returnData })),
    ]);
    const decoded = decodeAggregate3(encoded, 3);
    expect(decoded[0]).toEqual({ ok: true, result: results[0][1] });
    expect(decoded[1]?.ok).toBe(false);
    expect(decoded[1]?.ok === false && decoded[1].error.kind).toBe('revert');
    expect(decoded[1]?.ok === false && decoded[1].error.data).toBe('0x08c379a0');
    expect(decoded[2]).toEqual({ ok: true, result: '0x' });
  });

  it('refuses a wrong count and truncated data', () => {
    const encoded = reference.encodeFunctionResult('aggregate3', [
      [{ success: true, returnData: '0x1234' }],
    ]);
    expect(() => decodeAggregate3(encoded, 2)).toThrow(/1 results for 2 calls/);
    expect(() => decodeAggregate3(encoded.slice(0, 100), 1)).toThrow(/truncated/);
  });
});
