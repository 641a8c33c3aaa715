import { describe, expect, it } from 'vitest';
import { mergeRanges, pendingChunks } from './ranges.ts';

describe('pendingChunks', () => {
  it('splits a range into chunks of the given size', () => {
    expect(pendingChunks(0, 9, 4, [])).toEqual([
      { from: 0, to: 3 },
      { from: 4, to: 7 },
      { from: 8, to: 9 },
    ]);
  });
  it('skips finished ranges, even ones that straddle chunk boundaries', () => {
    expect(pendingChunks(0, 9, 4, [{ from: 2, to: 5 }])).toEqual([
      { from: 0, to: 1 },
      { from: 6, to: 9 },
    ]);
  });
  it('returns nothing when everything is finished', () => {
    expect(pendingChunks(10, 20, 5, [{ from: 0, to: 100 }])).toEqual([]);
  });
  it('handles a single block', () => {
    expect(pendingChunks(7, 7, 100, [])).toEqual([{ from: 7, to: 7 }]);
  });
  it('skips finished ranges given out of order, overlapping or reaching outside the range', () => {
    const finished = [
      { from: 12, to: 14 },
      { from: 3, to: 5 },
      { from: 4, to: 6 },
      { from: 0, to: 1 },
    ];
    expect(pendingChunks(1, 13, 3, finished)).toEqual([
      { from: 2, to: 2 },
      { from: 7, to: 9 },
      { from: 10, to: 11 },
    ]);
  });
});

describe('mergeRanges', () => {
  it('joins adjacent and overlapping ranges, in any order, and keeps gaps', () => {
    const batches = [
      { from: 200, to: 299 },
      { from: 0, to: 99 },
      { from: 100, to: 199 },
      { from: 150, to: 160 },
      { from: 400, to: 499 },
      { from: 450, to: 520 },
    ];
    expect(mergeRanges(batches)).toEqual([
      { from: 0, to: 299 },
      { from: 400, to: 520 },
    ]);
  });
  it('covers exactly the blocks its input covers', () => {
    const input = [
      { from: 5, to: 5 },
      { from: 7, to: 9 },
      { from: 6, to: 6 },
      { from: 20, to: 30 },
    ];
    expect(mergeRanges(input)).toEqual([
      { from: 5, to: 9 },
      { from: 20, to: 30 },
    ]);
    expect(pendingChunks(0, 40, 100, mergeRanges(input))).toEqual(pendingChunks(0, 40, 100, input));
    expect(mergeRanges([])).toEqual([]);
  });
});
