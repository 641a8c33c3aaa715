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

/**
 * The union of `ranges` as the fewest ranges, in order: overlapping and adjacent ranges (one ends
 * at block n, the next starts at n + 1) become one. A replay records each finished batch as a
 * range of its own; merged, a chain's record stays a handful of rows however long it replays.
 */
export function mergeRanges(ranges: readonly BlockRange[]): BlockRange[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from || a.to - b.to);
  const merged: BlockRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.from <= last.to + 1) last.to = Math.max(last.to, range.to);
    else merged.push({ from: range.from, to: range.to });
  }
  return merged;
}
