/** Block-range arithmetic for replays: pure. */

export interface BlockRange {
  from: number;
  to: number;
}

/**
 * Splits [from, to] into chunks of `size` blocks, leaving out the blocks covered by `finished`.
 * Walks the finished ranges in order, so a long replay with many finished ranges costs
 * O(ranges + chunks), not O(blocks × ranges).
 */
export function pendingChunks(
  from: number,
  to: number,
  size: number,
  finished: readonly BlockRange[],
): BlockRange[] {
  const covered = [...finished].filter((r) => r.to >= from && r.from <= to);
  covered.sort((a, b) => a.from - b.from);
  const chunks: BlockRange[] = [];
  const split = (a: number, b: number) => {
    for (let start = a; start <= b; start += size)
      chunks.push({ from: start, to: Math.min(start + size - 1, b) });
  };
  let next = from;
  for (const range of covered) {
    if (range.from > next) split(next, Math.min(range.from - 1, to));
    next = Math.max(next, range.to + 1);
    if (next > to) break;
  }
  if (next <= to) split(next, to);
  return chunks;
}
