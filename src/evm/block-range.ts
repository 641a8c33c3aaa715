import type { ChainReader } from './chain-reader.ts';
import type { BlockTraces } from './deployments.ts';
import type { BlockRange } from './ranges.ts';
import { fromQuantity, type RpcClient, RpcError, toQuantity } from './rpc.ts';
import type { RpcBlockHeader, RpcReceipt } from './types.ts';

/**
 * Reads a range of blocks for detection in as few round trips as the node allows: every header
 * in one JSON-RPC batch, then receipts and traces of the blocks that hold transactions through a
 * bounded window of concurrent requests (the reader asks eth_getBlockReceipts where the node has
 * it, per-transaction receipts otherwise). Empty blocks cost nothing beyond their header.
 * Replay jobs (workers/replay/detect.ts) and the bench's raw ceiling share it, so both do the
 * same RPC work per block.
 */

/** Blocks whose receipts and traces are in flight at once, per range. */
export const BLOCK_WINDOW = 8;
/**
 * A replay batch is worked in segments of this many blocks, a few at once: one segment's probes
 * run while the next one's blocks are read, and its writes while both go on.
 */
export const SEGMENT_BLOCKS = 20;
export const SEGMENTS_IN_FLIGHT = 2;

/** [from, to] in consecutive segments of at most `size` blocks. */
export function segmentsOf(range: BlockRange, size = SEGMENT_BLOCKS): BlockRange[] {
  const segments: BlockRange[] = [];
  for (let start = range.from; start <= range.to; start += size)
    segments.push({ from: start, to: Math.min(start + size - 1, range.to) });
  return segments;
}

export interface FetchedBlock {
  header: RpcBlockHeader;
  number: number;
  hash: string;
  receipts: RpcReceipt[];
  traces: BlockTraces;
}

/** Runs `fn` over `items` with at most `window` calls in flight; results keep the input order. */
export async function mapWindowed<T, R>(
  items: readonly T[],
  window: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, lane));
  return results;
}

/** Every header of `range`, in one batch; an answer for another block than asked is refused. */
export async function readHeaders(rpc: RpcClient, range: BlockRange): Promise<RpcBlockHeader[]> {
  const numbers = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
  const outcomes = await rpc.batch<RpcBlockHeader | null>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })),
  );
  return outcomes.map((o, i) => {
    if (!o.ok) throw o.error;
    if (!o.result) throw new RpcError('server', `block ${numbers[i]} not available`);
    if (fromQuantity(o.result.number) !== numbers[i])
      throw new RpcError('bad-response', `asked for block ${numbers[i]}, got ${o.result.number}`);
    return o.result;
  });
}

/** Headers, receipts and traces of every block of `range`, in block order. */
export async function readBlockRange(
  rpc: RpcClient,
  reader: ChainReader,
  range: BlockRange,
  window = BLOCK_WINDOW,
): Promise<FetchedBlock[]> {
  const headers = await readHeaders(rpc, range);
  return mapWindowed(headers, window, async (header) => {
    const [receipts, traces] = await Promise.all([reader.receipts(header), reader.traces(header)]);
    return {
      header,
      number: fromQuantity(header.number),
      hash: header.hash.toLowerCase(),
      receipts,
      traces,
    };
  });
}
