import {
  type PairRow,
  type PairUpdate,
  priceNumeric,
  usdNumeric,
} from '../../db/repositories/dex.ts';
import { V2_SWAP_TOPIC, V3_SWAP_TOPIC } from '../../src/dex/abi.ts';
import type { TokenDexFigures } from '../../src/dex/dex-hints.ts';
import type { PoolState } from '../../src/dex/pool-state.ts';
import { toUnits } from '../../src/dex/pricing.ts';
import { createDexReader, type DexReader } from '../../src/dex/reader.ts';
import { V4_SWAP_TOPIC } from '../../src/dex/v4/index.ts';
import {
  addToBuckets,
  DAY_SECONDS,
  logTimestamp,
  pruneBuckets,
  scanRanges,
  swapQuoteAmount,
  type VolumeBuckets,
  volume24h,
} from '../../src/dex/volume.ts';
import { createCallBatcher } from '../../src/evm/multicall.ts';
import { fromQuantity, toQuantity } from '../../src/evm/rpc.ts';
import type { RpcLog } from '../../src/evm/types.ts';
import type { ChainRuntime } from '../chain-runtime.ts';

/**
 * The dex stage's chain reads: one DexReader and one shared head-block read per chain, and the
 * incremental swap-volume scan of a token's pools (workers/dex/processor.ts).
 */

export interface VolumeScan {
  cursor: number;
  cursorBefore: number | null;
  fromAt: Date;
  buckets: VolumeBuckets;
  lastSwapBlock: number | null;
  lastSwapAt: Date | null;
  complete: boolean;
}
export interface ChainHead {
  number: number;
  timestamp: number;
}

type SwapLog = RpcLog & { blockTimestamp?: string; removed?: boolean };

/** One DexReader per chain, built on first use (Multicall3 unless `multicall` is false). */
export function createReaderCache(multicall: boolean | undefined) {
  const readers = new Map<number, DexReader>();
  return function readerFor(chain: ChainRuntime): DexReader {
    let reader = readers.get(chain.config.chainId);
    if (!reader) {
      const c = chain.config;
      const batcher = createCallBatcher(chain.rpc, multicall === false ? undefined : c.multicall3);
      reader = createDexReader(
        {
          chainId: c.chainId,
          wrappedNative: c.wrappedNative,
          stablecoins: c.stablecoins,
          dexes: c.dexes,
          lockers: c.lockers ?? [],
        },
        batcher,
      );
      readers.set(c.chainId, reader);
    }
    return reader;
  };
}

/**
 * The chain's head block, one read shared by the refreshes within `cacheMs`; a failed read is not
 * cached. A refresh that must see block `atLeast` (a pool created there) never gets an older head.
 */
export function createHeadCache(now: () => number, cacheMs: number) {
  const heads = new Map<number, { at: number; promise: Promise<ChainHead> }>();
  return async function head(chain: ChainRuntime, atLeast = 0): Promise<ChainHead> {
    const cached = heads.get(chain.config.chainId);
    if (cached && now() - cached.at < cacheMs) {
      const tip = await cached.promise;
      if (tip.number >= atLeast) return tip;
    }
    const promise = chain.reader.block('latest').then((b) => {
      if (!b) throw new Error(`chain ${chain.config.chainId}: no latest block`);
      return { number: fromQuantity(b.number), timestamp: fromQuantity(b.timestamp) };
    });
    promise.catch(() => heads.delete(chain.config.chainId));
    heads.set(chain.config.chainId, { at: now(), promise });
    return promise;
  };
}

/** Where a pool's volume scan starts (the block before the first one to read) and its stored state. */
async function startVolumeScan(
  chain: ChainRuntime,
  row: PairRow | undefined,
  tip: ChainHead,
  lookbackBlocks: number,
): Promise<VolumeScan> {
  const stored = row?.volumeCursorBlock ?? null;
  // First scan: from the pool's creation when known, else a bounded lookback.
  const lookbackStart = Math.max(-1, tip.number - lookbackBlocks);
  const fromCreation =
    row?.creationBlockNumber != null && row.creationBlockNumber - 1 >= lookbackStart;
  const start = stored ?? (fromCreation ? row!.creationBlockNumber! - 1 : lookbackStart);
  let fromAt = row?.volumeFromAt ?? null;
  if (stored === null) {
    // Counting from genesis or from the pool's creation misses nothing; a lookback misses what came before it.
    const header = fromCreation || lookbackStart < 0 ? null : await chain.reader.block(start + 1);
    fromAt = header ? new Date(fromQuantity(header.timestamp) * 1000) : new Date(0);
  }
  return {
    cursor: start,
    cursorBefore: stored,
    fromAt: fromAt ?? new Date(0),
    buckets: pruneBuckets(
      { ...((row?.volumeBuckets as VolumeBuckets | null) ?? {}) },
      tip.timestamp,
    ),
    lastSwapBlock: null,
    lastSwapAt: null,
    complete: (fromAt ?? new Date(0)).getTime() <= (tip.timestamp - DAY_SECONDS) * 1000,
  };
}

/** Adds one swap log to its pool's buckets and last-swap marks. */
function countSwap(
  log: SwapLog,
  pool: PoolState,
  scan: VolumeScan,
  timestamp: number,
  decimals: ReadonlyMap<string, number>,
) {
  const amount = swapQuoteAmount(pool.ref.kind, log, pool.ref.token0 === pool.quote);
  if (amount === null) return;
  addToBuckets(scan.buckets, timestamp, toUnits(amount, decimals.get(pool.quote) ?? 18));
  const block = fromQuantity(log.blockNumber ?? '0x0');
  if (scan.lastSwapBlock === null || block >= scan.lastSwapBlock) {
    scan.lastSwapBlock = block;
    scan.lastSwapAt = new Date(timestamp * 1000);
  }
}

/**
 * The getLogs filter of a group and how a log names its pool: V2/V3 pools emit their own Swap
 * events; V4 pools' come from their PoolManager, with the pool id as first topic.
 */
function swapFilter(group: PoolState[]) {
  const manager = group[0]!.ref.v4?.poolManager;
  if (manager)
    return {
      filter: { address: manager, topics: [V4_SWAP_TOPIC, group.map((p) => p.ref.address)] },
      poolOf: (log: SwapLog) =>
        log.address.toLowerCase() === manager ? log.topics[1]?.toLowerCase() : undefined,
    };
  return {
    filter: { address: group.map((p) => p.ref.address), topics: [[V2_SWAP_TOPIC, V3_SWAP_TOPIC]] },
    poolOf: (log: SwapLog) => log.address.toLowerCase(),
  };
}

/** Reads the swaps of pools sharing one cursor, from `start` to the confirmed head, and moves their cursors. */
async function scanGroup(
  chain: ChainRuntime,
  start: number,
  group: PoolState[],
  scans: Map<string, VolumeScan>,
  tip: ChainHead,
  confirmedHead: number,
  decimals: ReadonlyMap<string, number>,
) {
  const ranges = scanRanges(start, confirmedHead);
  const byAddress = new Map(group.map((p) => [p.ref.address, p]));
  const { filter, poolOf } = swapFilter(group);
  let anchor: { n: number; t: number } | undefined;
  for (const range of ranges) {
    const logs = await chain.rpc.request<SwapLog[]>('eth_getLogs', [
      { ...filter, fromBlock: toQuantity(range.from), toBlock: toQuantity(range.to) },
    ]);
    if (logs.some((l) => !l.blockTimestamp) && !anchor) {
      const b = await chain.reader.block(range.from);
      anchor = { n: range.from, t: b ? fromQuantity(b.timestamp) : tip.timestamp };
    }
    for (const log of logs) {
      if (log.removed) continue;
      const key = poolOf(log);
      const pool = key === undefined ? undefined : byAddress.get(key);
      if (!pool) continue;
      const ts = logTimestamp(log, {
        from: anchor ?? { n: tip.number, t: tip.timestamp },
        to: { n: tip.number, t: tip.timestamp },
      });
      countSwap(log, pool, scans.get(pool.ref.address)!, ts, decimals);
    }
  }
  const reached = ranges.length > 0 ? ranges[ranges.length - 1]!.to : start;
  for (const pool of group) {
    const scan = scans.get(pool.ref.address)!;
    scan.cursor = reached;
    if (reached < confirmedHead) scan.complete = false;
  }
}

/**
 * Swap events after each pool's cursor, in bounded ranges; pools sharing a cursor (and, for V4, a
 * PoolManager) share the getLogs calls.
 */
export async function scanVolume(
  chain: ChainRuntime,
  pools: PoolState[],
  rows: Map<string, PairRow>,
  tip: ChainHead,
  decimals: ReadonlyMap<string, number>,
  lookbackBlocks: number,
) {
  const scans = new Map<string, VolumeScan>();
  const groups = new Map<string, { start: number; pools: PoolState[] }>();
  for (const pool of pools) {
    const scan = await startVolumeScan(chain, rows.get(pool.ref.address), tip, lookbackBlocks);
    scans.set(pool.ref.address, scan);
    const key = `${scan.cursor}:${pool.ref.v4?.poolManager ?? ''}`;
    const group = groups.get(key) ?? { start: scan.cursor, pools: [] };
    group.pools.push(pool);
    groups.set(key, group);
  }
  // Swaps are counted only in confirmed blocks: a block scanned once is never scanned again, so
  // one that a reorg later drops must not be counted in the first place.
  const confirmedHead = tip.number - chain.config.confirmations;
  for (const { start, pools: group } of groups.values()) {
    await scanGroup(chain, start, group, scans, tip, confirmedHead, decimals);
  }
  return scans;
}

/** The pair rows to write and the token's 24 h volume in USD at the quotes' current prices (swaps are counted in quote tokens). */
export function pairUpdatesOf(
  chainId: number,
  figures: TokenDexFigures,
  scans: Map<string, VolumeScan>,
  quoteUsd: ReadonlyMap<string, number>,
  tip: ChainHead,
) {
  let volumeUsd: number | null = 0;
  let volumeComplete = true;
  const pairUpdates: PairUpdate[] = figures.pairs.map((p) => {
    const scan = scans.get(p.pool.ref.address)!;
    const q = quoteUsd.get(p.pool.quote) ?? null;
    const pairVolume = q === null ? null : volume24h(scan.buckets, tip.timestamp) * q;
    if (pairVolume === null) volumeUsd = null;
    else if (volumeUsd !== null) volumeUsd += pairVolume;
    if (!scan.complete) volumeComplete = false;
    return {
      chainId,
      address: p.pool.ref.address,
      dex: p.pool.ref.dex,
      kind: p.pool.ref.kind,
      fee: p.pool.ref.fee,
      token0: p.pool.ref.token0,
      token1: p.pool.ref.token1,
      quoteToken: p.pool.quote,
      reserve0: p.pool.reading.amount0.toString(),
      reserve1: p.pool.reading.amount1.toString(),
      sqrtPriceX96: p.pool.reading.sqrtPriceX96?.toString() ?? null,
      liquidity: p.pool.reading.liquidity?.toString() ?? null,
      liquidityUsd: usdNumeric(p.liquidityUsd),
      priceUsd: priceNumeric(p.priceUsd),
      stateBlock: tip.number,
      volume: {
        cursorBefore: scan.cursorBefore,
        cursor: scan.cursor,
        fromAt: scan.fromAt,
        buckets: scan.buckets,
        volume24hUsd: usdNumeric(pairVolume),
        lastSwapBlock: scan.lastSwapBlock,
        lastSwapAt: scan.lastSwapAt,
      },
    };
  });
  return { pairUpdates, volumeUsd: volumeUsd as number | null, volumeComplete };
}
