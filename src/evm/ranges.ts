/** Block-range arithmetic for replays: pure. */

export interface BlockRange {
  from: number;
  to: number;
}

/** Splits [from, to] into chunks of `size` blocks, leaving out the blocks covered by `finished`. */
export function pendingChunks(
  from: number,
  to: number,
  size: number,
  finished: readonly BlockRange[],
): BlockRange[] {
  const covered = (n: number) => finished.some((r) => r.from <= n && n <= r.to);
  const chunks: BlockRange[] = [];
  let start: number | undefined;
  for (let n = from; n <= to; n++) {
    if (covered(n)) {
      if (start !== undefined) chunks.push({ from: start, to: n - 1 });
      start = undefined;
      continue;
    }
    start ??= n;
    if (n - start + 1 === size) {
      chunks.push({ from: start, to: n });
      start = undefined;
    }
  }
  if (start !== undefined) chunks.push({ from: start, to });
  return chunks;
}
