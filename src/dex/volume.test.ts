import { AbiCoder } from 'ethers';
import { describe, expect, it } from 'vitest';
import { V2_SWAP_TOPIC, V3_SWAP_TOPIC } from './abi.ts';
import {
  addToBuckets,
  DAY_SECONDS,
  HOUR_SECONDS,
  logTimestamp,
  MAX_LOG_BLOCK_RANGE,
  MAX_LOG_REQUESTS_PER_REFRESH,
  pruneBuckets,
  scanRanges,
  swapQuoteAmount,
  volume24h,
} from './volume.ts';

const abi = AbiCoder.defaultAbiCoder();

describe('swapQuoteAmount', () => {
  it('counts quote in plus quote out of a V2 swap', () => {
    const log = {
      topics: [V2_SWAP_TOPIC],
      data: abi.encode(['uint256', 'uint256', 'uint256', 'uint256'], [0n, 7n, 100n, 0n]),
    };
    expect(swapQuoteAmount('v2', log, false)).toBe(7n); // quote is token1: 7 in
    expect(swapQuoteAmount('v2', log, true)).toBe(100n); // quote is token0: 100 out
  });

  it('takes the absolute quote delta of a V3 swap', () => {
    const log = {
      topics: [V3_SWAP_TOPIC],
      data: abi.encode(['int256', 'int256', 'uint160', 'uint128', 'int24'], [-250n, 9n, 1n, 1n, 0]),
    };
    expect(swapQuoteAmount('v3', log, true)).toBe(250n);
    expect(swapQuoteAmount('v3', log, false)).toBe(9n);
  });

  it('ignores other events and truncated data', () => {
    expect(swapQuoteAmount('v2', { topics: [V3_SWAP_TOPIC], data: '0x' }, true)).toBeNull();
    expect(swapQuoteAmount('v2', { topics: [V2_SWAP_TOPIC], data: '0x01' }, true)).toBeNull();
  });
});

describe('hourly buckets', () => {
  const now = 1_700_000_000;

  it('sums the last 24 h, the oldest hour pro rata, and prunes older buckets', () => {
    const buckets = {};
    addToBuckets(buckets, now, 5);
    addToBuckets(buckets, now - 10, 5);
    addToBuckets(buckets, now - 2 * HOUR_SECONDS, 3);
    addToBuckets(buckets, now - DAY_SECONDS - 2 * HOUR_SECONDS, 100); // outside
    const hourAgo = Math.floor((now - DAY_SECONDS) / HOUR_SECONDS) * HOUR_SECONDS;
    addToBuckets(buckets, hourAgo, 60); // the hour straddling the window start
    const inside = (hourAgo + HOUR_SECONDS - (now - DAY_SECONDS)) / HOUR_SECONDS;
    expect(volume24h(buckets, now)).toBeCloseTo(13 + 60 * inside, 9);
    const pruned = pruneBuckets(buckets, now);
    expect(Object.keys(pruned)).toHaveLength(3);
    expect(volume24h(pruned, now)).toBeCloseTo(volume24h(buckets, now), 9);
  });
});

describe('scanRanges', () => {
  it('covers the blocks after the cursor in bounded, contiguous ranges', () => {
    expect(scanRanges(10, 10)).toEqual([]);
    expect(scanRanges(10, 15)).toEqual([{ from: 11, to: 15 }]);
    const far = scanRanges(0, 1_000_000);
    expect(far).toHaveLength(MAX_LOG_REQUESTS_PER_REFRESH);
    expect(far[0]).toEqual({ from: 1, to: MAX_LOG_BLOCK_RANGE });
    for (let i = 1; i < far.length; i++) expect(far[i]!.from).toBe(far[i - 1]!.to + 1);
  });
});

describe('logTimestamp', () => {
  it('uses the node timestamp, else interpolates between known blocks', () => {
    const base = { address: '0x', topics: [], data: '0x', transactionHash: '0x' };
    expect(
      logTimestamp(
        { ...base, blockNumber: '0x5', blockTimestamp: '0x64' },
        { from: { n: 0, t: 0 }, to: { n: 10, t: 10 } },
      ),
    ).toBe(100);
    expect(
      logTimestamp(
        { ...base, blockNumber: '0x5' },
        { from: { n: 0, t: 1000 }, to: { n: 10, t: 1120 } },
      ),
    ).toBe(1060);
  });
});
