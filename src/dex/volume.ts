import { fromQuantity } from '../evm/rpc.ts';
import type { RpcLog } from '../evm/types.ts';
import { dataWord, toSigned256, V2_SWAP_TOPIC, V3_SWAP_TOPIC } from './abi.ts';
import type { DexKind } from './pricing.ts';
import { v4SwapQuoteAmount } from './v4/index.ts';

/**
 * 24 h volume from Swap events. Each pool keeps a scan cursor (the last block whose swaps are
 * counted) and hourly buckets of quote-token volume; a refresh scans only the blocks after the
 * cursor, in bounded getLogs ranges, so no block is counted twice and none is rescanned.
 */

export const HOUR_SECONDS = 3_600;
export const DAY_SECONDS = 86_400;
/** Blocks per eth_getLogs request: public RPCs commonly refuse wider ranges. */
export const MAX_LOG_BLOCK_RANGE = 2_000;
/** getLogs requests per pool group per refresh; a pool further behind catches up over the next refreshes. */
export const MAX_LOG_REQUESTS_PER_REFRESH = 5;
/** How far back the first scan of a pool reaches when its creation block is unknown. */
export const INITIAL_LOOKBACK_BLOCKS = 10_000;

/** Hour start (unix seconds) → quote tokens traded, in whole tokens. */
export type VolumeBuckets = Record<string, number>;

export interface SwapTotals {
  /** Quote volume per hour bucket. */
  buckets: VolumeBuckets;
  swaps: number;
  lastSwapBlock: number | null;
  lastSwapTimestamp: number | null;
}

/**
 * The quote-token amount a swap moved: V2 counts quote in + quote out (one of them is zero in a
 * normal swap), V3 and V4 the absolute quote delta.
 */
export function swapQuoteAmount(
  kind: DexKind,
  log: Pick<RpcLog, 'topics' | 'data'>,
  quoteIs0: boolean,
): bigint | null {
  if (kind === 'v2') {
    if (log.topics[0] !== V2_SWAP_TOPIC) return null;
    const in0 = dataWord(log.data, 0);
    const in1 = dataWord(log.data, 1);
    const out0 = dataWord(log.data, 2);
    const out1 = dataWord(log.data, 3);
    if (in0 === null || in1 === null || out0 === null || out1 === null) return null;
    return quoteIs0 ? in0 + out0 : in1 + out1;
  }
  if (kind === 'v4') return v4SwapQuoteAmount(log, quoteIs0);
  if (log.topics[0] !== V3_SWAP_TOPIC) return null;
  const raw = dataWord(log.data, quoteIs0 ? 0 : 1);
  if (raw === null) return null;
  const signed = toSigned256(raw);
  return signed < 0n ? -signed : signed;
}

export const hourOf = (unixSeconds: number) =>
  Math.floor(unixSeconds / HOUR_SECONDS) * HOUR_SECONDS;

/** Adds `amount` to the bucket of `unixSeconds`. */
export function addToBuckets(buckets: VolumeBuckets, unixSeconds: number, amount: number): void {
  const key = String(hourOf(unixSeconds));
  buckets[key] = (buckets[key] ?? 0) + amount;
}

/** Drops buckets that ended more than 24 h before `nowSeconds`. */
export function pruneBuckets(buckets: VolumeBuckets, nowSeconds: number): VolumeBuckets {
  const cutoff = hourOf(nowSeconds - DAY_SECONDS);
  return Object.fromEntries(Object.entries(buckets).filter(([hour]) => Number(hour) >= cutoff));
}

/**
 * Volume of the last 24 h at hour granularity: the current hour and the 23 before it, plus the
 * part of the hour 24 h ago that falls in the window, pro rata.
 */
export function volume24h(buckets: VolumeBuckets, nowSeconds: number): number {
  const windowStart = nowSeconds - DAY_SECONDS;
  let total = 0;
  for (const [hourKey, amount] of Object.entries(buckets)) {
    const hour = Number(hourKey);
    if (hour + HOUR_SECONDS <= windowStart) continue;
    total +=
      hour >= windowStart ? amount : (amount * (hour + HOUR_SECONDS - windowStart)) / HOUR_SECONDS;
  }
  return total;
}

/** The block ranges to scan after `cursor` up to `head`, bounded per refresh. */
export function scanRanges(cursor: number, head: number): { from: number; to: number }[] {
  const ranges: { from: number; to: number }[] = [];
  let from = cursor + 1;
  while (from <= head && ranges.length < MAX_LOG_REQUESTS_PER_REFRESH) {
    const to = Math.min(head, from + MAX_LOG_BLOCK_RANGE - 1);
    ranges.push({ from, to });
    from = to + 1;
  }
  return ranges;
}

/**
 * A log's block time: the node's `blockTimestamp` when it sends one (geth ≥ 1.15, anvil), else
 * interpolated between two known blocks (block times are steady enough for hour buckets).
 */
export function logTimestamp(
  log: RpcLog & { blockTimestamp?: string },
  known: { from: { n: number; t: number }; to: { n: number; t: number } },
): number {
  if (log.blockTimestamp) return fromQuantity(log.blockTimestamp);
  const n = fromQuantity(log.blockNumber ?? '0x0');
  const span = known.to.n - known.from.n;
  if (span <= 0) return known.to.t;
  return Math.round(known.from.t + ((n - known.from.n) * (known.to.t - known.from.t)) / span);
}
