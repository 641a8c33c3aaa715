import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { V2_SWAP_TOPIC, V3_SWAP_TOPIC } from '../src/dex/abi.ts';
import type { AggregatorClient } from '../src/dex/aggregator.ts';
import { dexHints, liquidityLock, valueToken, type TokenDexFigures } from '../src/dex/hints.ts';
import type { PoolRef } from '../src/dex/pricing.ts';
import { createDexReader, type DexReader, type PoolState } from '../src/dex/reader.ts';
import {
  ACTIVE_TRADING_WINDOW_MS, REFRESH_INTERVAL_MS, SLOW_REFRESH_INTERVAL_MS, assessChange, bucketStart, nextRefreshAt, refreshTier,
} from '../src/dex/refresh.ts';
import {
  DAY_SECONDS, INITIAL_LOOKBACK_BLOCKS, addToBuckets, logTimestamp, pruneBuckets, scanRanges, swapQuoteAmount, volume24h, type VolumeBuckets,
} from '../src/dex/volume.ts';
import { createCallBatcher } from '../src/evm/multicall.ts';
import { fromQuantity, toQuantity } from '../src/evm/rpc.ts';
import type { RpcLog } from '../src/evm/types.ts';
import { toUnits } from '../src/dex/pricing.ts';
import type { EventPublisher } from '../infra/events.ts';
import { priceNumeric, usdNumeric, type DexRepository, type PairRow, type PairUpdate } from '../db/repositories/dex.ts';
import type { JobData } from './catalog.ts';
import { tokenUpdatedData } from '../src/events/types.ts';
import { chainOf, type ChainRuntime } from './chain-runtime.ts';
import { routeOutcome } from './pipeline.ts';
import type { Producer } from './queues.ts';

/**
 * The dex stage: a token's pools, price, liquidity, volume, market cap, LP lock and dex_hints
 * from chain state (the aggregator only fills gaps), a token_history snapshot for the bucket, and
 * the events a change deserves. Every side effect that must not be lost (events, the simulate job
 * on first liquidity) happens before the database commit: a crash in between repeats it
 * (at-least-once, and the simulate job id is deterministic), never loses it.
 */

/** Concurrent refreshes of one chain share the head block read within this window. */
const HEAD_CACHE_MS = 1_000;

export interface DexDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  dex: DexRepository;
  producer: Producer;
  events: EventPublisher;
  logger: Logger;
  aggregator?: AggregatorClient;
  /** DEX_IDLE_AFTER_MINUTES in ms: no trade for this long moves a token to the slow cadence. */
  idleAfterMs: number;
  /** false forces plain JSON-RPC batches even where Multicall3 exists (benchmark baseline). */
  multicall?: boolean;
  /** The refresh cadence (tests shorten it); the slow cadence scales with it. */
  intervalMs?: number;
  /** A liquidity pull or rug: the creator's reputation takes it into account (creators repository). */
  onLiquidityPulled?: (chainId: number, address: string) => Promise<unknown>;
  /** How long concurrent refreshes of a chain share one head-block read (default 1 s; 0: every job reads its own). */
  headCacheMs?: number;
  /** How far back a pool's first volume scan reaches when its creation block is unknown. */
  initialLookbackBlocks?: number;
  now?: () => number;
}

export type DexResult =
  | { status: 'unknown-token' }
  | {
    status: 'done';
    bucketAt: string;
    pairs: number;
    mainPair: string | null;
    priceUsd: number | null;
    liquidityUsd: number | null;
    volume24hUsd: number | null;
    events: string[];
    firstLiquidity: boolean;
  };

interface VolumeScan {
  cursor: number;
  cursorBefore: number | null;
  fromAt: Date;
  buckets: VolumeBuckets;
  lastSwapBlock: number | null;
  lastSwapAt: Date | null;
  complete: boolean;
}

function poolRefOf(row: PairRow): PoolRef {
  // Pairs recorded by the LP probe are ERC-20 LP tokens: V2. V3 pools are recorded with their kind.
  return { dex: row.dex, kind: row.kind === 'v3' ? 'v3' : 'v2', address: row.address, token0: row.token0, token1: row.token1, fee: row.fee };
}

export function createDexProcessor(deps: DexDeps) {
  const now = deps.now ?? Date.now;
  const intervalMs = deps.intervalMs ?? REFRESH_INTERVAL_MS;
  const slowMs = (intervalMs * SLOW_REFRESH_INTERVAL_MS) / REFRESH_INTERVAL_MS;
  const readers = new Map<number, DexReader>();
  const heads = new Map<number, { at: number; promise: Promise<{ number: number; timestamp: number }> }>();

  function readerFor(chain: ChainRuntime): DexReader {
    let reader = readers.get(chain.config.chainId);
    if (!reader) {
      const c = chain.config;
      const batcher = createCallBatcher(chain.rpc, deps.multicall === false ? undefined : c.multicall3);
      reader = createDexReader({ chainId: c.chainId, wrappedNative: c.wrappedNative, stablecoins: c.stablecoins, dexes: c.dexes, lockers: c.lockers ?? [] }, batcher);
      readers.set(c.chainId, reader);
    }
    return reader;
  }

  function head(chain: ChainRuntime) {
    const cached = heads.get(chain.config.chainId);
    if (cached && now() - cached.at < (deps.headCacheMs ?? HEAD_CACHE_MS)) return cached.promise;
    const promise = chain.reader.block('latest').then((b) => {
      if (!b) throw new Error(`chain ${chain.config.chainId}: no latest block`);
      return { number: fromQuantity(b.number), timestamp: fromQuantity(b.timestamp) };
    });
    promise.catch(() => heads.delete(chain.config.chainId));
    heads.set(chain.config.chainId, { at: now(), promise });
    return promise;
  }

  /** Swap events after each pool's cursor, in bounded ranges; pools sharing a cursor share the getLogs calls. */
  async function scanVolume(chain: ChainRuntime, pools: PoolState[], rows: Map<string, PairRow>, tip: { number: number; timestamp: number }, decimals: ReadonlyMap<string, number>) {
    const scans = new Map<string, VolumeScan>();
    const groups = new Map<number, PoolState[]>();
    for (const pool of pools) {
      const row = rows.get(pool.ref.address);
      const stored = row?.volumeCursorBlock ?? null;
      // First scan: from the pool's creation when known, else a bounded lookback.
      const lookbackStart = Math.max(-1, tip.number - (deps.initialLookbackBlocks ?? INITIAL_LOOKBACK_BLOCKS));
      const fromCreation = row?.creationBlockNumber != null && row.creationBlockNumber - 1 >= lookbackStart;
      const start = stored ?? (fromCreation ? row!.creationBlockNumber! - 1 : lookbackStart);
      let fromAt = row?.volumeFromAt ?? null;
      if (stored === null) {
        // Counting from genesis or from the pool's creation misses nothing; a lookback misses what came before it.
        const header = fromCreation || lookbackStart < 0 ? null : await chain.reader.block(start + 1);
        fromAt = header ? new Date(fromQuantity(header.timestamp) * 1000) : new Date(0);
      }
      scans.set(pool.ref.address, {
        cursor: start, cursorBefore: stored, fromAt: fromAt ?? new Date(0),
        buckets: pruneBuckets({ ...((row?.volumeBuckets as VolumeBuckets | null) ?? {}) }, tip.timestamp),
        lastSwapBlock: null, lastSwapAt: null,
        complete: (fromAt ?? new Date(0)).getTime() <= (tip.timestamp - DAY_SECONDS) * 1000,
      });
      const group = groups.get(start) ?? [];
      group.push(pool);
      groups.set(start, group);
    }
    // Swaps are counted only in confirmed blocks: a block scanned once is never scanned again, so
    // one that a reorg later drops must not be counted in the first place.
    const confirmedHead = tip.number - chain.config.confirmations;
    for (const [start, group] of groups) {
      const ranges = scanRanges(start, confirmedHead);
      const byAddress = new Map(group.map((p) => [p.ref.address, p]));
      let anchor: { n: number; t: number } | undefined;
      for (const range of ranges) {
        const logs = await chain.rpc.request<(RpcLog & { blockTimestamp?: string; removed?: boolean })[]>('eth_getLogs', [{
          address: group.map((p) => p.ref.address), topics: [[V2_SWAP_TOPIC, V3_SWAP_TOPIC]],
          fromBlock: toQuantity(range.from), toBlock: toQuantity(range.to),
        }]);
        if (logs.some((l) => !l.blockTimestamp) && !anchor) {
          const b = await chain.reader.block(range.from);
          anchor = { n: range.from, t: b ? fromQuantity(b.timestamp) : tip.timestamp };
        }
        for (const log of logs) {
          if (log.removed) continue;
          const pool = byAddress.get(log.address.toLowerCase());
          if (!pool) continue;
          const amount = swapQuoteAmount(pool.ref.kind, log, pool.ref.token0 === pool.quote);
          if (amount === null) continue;
          const scan = scans.get(pool.ref.address)!;
          const ts = logTimestamp(log, { from: anchor ?? { n: tip.number, t: tip.timestamp }, to: { n: tip.number, t: tip.timestamp } });
          addToBuckets(scan.buckets, ts, toUnits(amount, decimals.get(pool.quote) ?? 18));
          const block = fromQuantity(log.blockNumber ?? '0x0');
          if (scan.lastSwapBlock === null || block >= scan.lastSwapBlock) {
            scan.lastSwapBlock = block;
            scan.lastSwapAt = new Date(ts * 1000);
          }
        }
      }
      const reached = ranges.length > 0 ? ranges[ranges.length - 1]!.to : start;
      for (const pool of group) {
        const scan = scans.get(pool.ref.address)!;
        scan.cursor = reached;
        if (reached < confirmedHead) scan.complete = false;
      }
    }
    return scans;
  }

  return async function processDex(data: JobData<'dex'>, _job?: Job): Promise<DexResult> {
    const chain = chainOf(deps.chains, data.chainId);
    const token = await deps.dex.token(data.chainId, data.address);
    if (!token) return { status: 'unknown-token' };
    const log = deps.logger.child({ chain: data.chainId, token: data.address, run: data.run });
    const nowMs = now();
    // A scheduled refresh writes the snapshot of its own bucket, even when it runs late or again.
    const bucketMs = data.bucketMs ?? bucketStart(nowMs, intervalMs);
    const bucketAt = new Date(bucketMs);

    const reader = readerFor(chain);
    const tip = await head(chain);
    const rows = new Map((await deps.dex.pairsOf(data.chainId, data.address)).map((r) => [r.address, r]));
    const state = await reader.readToken(data.address, tip.number, [...rows.values()].map(poolRefOf));
    const quoteUsd = await reader.quotePrices(tip.number);
    const figures: TokenDexFigures = valueToken(data.address, state, quoteUsd);
    const scans = await scanVolume(chain, state.pools, rows, tip, state.decimals);

    // Volume in USD at the quote's current price (swaps are counted in quote tokens).
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
        chainId: data.chainId, address: p.pool.ref.address, dex: p.pool.ref.dex, kind: p.pool.ref.kind, fee: p.pool.ref.fee,
        token0: p.pool.ref.token0, token1: p.pool.ref.token1, quoteToken: p.pool.quote,
        reserve0: p.pool.reading.amount0.toString(), reserve1: p.pool.reading.amount1.toString(),
        sqrtPriceX96: p.pool.reading.sqrtPriceX96?.toString() ?? null, liquidity: p.pool.reading.liquidity?.toString() ?? null,
        liquidityUsd: usdNumeric(p.liquidityUsd), priceUsd: priceNumeric(p.priceUsd), stateBlock: tip.number,
        volume: {
          cursorBefore: scan.cursorBefore, cursor: scan.cursor, fromAt: scan.fromAt, buckets: scan.buckets, volume24hUsd: usdNumeric(pairVolume),
          lastSwapBlock: scan.lastSwapBlock, lastSwapAt: scan.lastSwapAt,
        },
      };
    });

    // The aggregator only fills what chain state could not give.
    let priceUsd = figures.priceUsd;
    const needPrice = priceUsd === null && figures.hasLiquidity;
    if (deps.aggregator && (needPrice || !volumeComplete || volumeUsd === null)) {
      const quote = await deps.aggregator.token(data.chainId, data.address);
      if (quote) {
        if (needPrice && quote.priceUsd !== null) priceUsd = quote.priceUsd;
        if ((!volumeComplete || volumeUsd === null) && quote.volume24hUsd !== null) volumeUsd = quote.volume24hUsd;
      }
    }
    const marketCapUsd = figures.marketCapUsd ?? (priceUsd !== null && state.totalSupply !== null
      ? priceUsd * toUnits(state.totalSupply - (state.burnedSupply > state.totalSupply ? state.totalSupply : state.burnedSupply), state.decimals.get(data.address) ?? 18)
      : null);

    const hints = dexHints({ ...figures, priceUsd }, { chainId: data.chainId, token: data.address, dexes: chain.config.dexes, volume24hUsd: volumeUsd });
    const lock = liquidityLock(figures);
    const swapTimes = [...scans.values()].map((s) => s.lastSwapAt?.getTime() ?? 0);
    const lastTradeMs = Math.max(token.lastTradeAt?.getTime() ?? 0, ...swapTimes);
    const lastTradeAt = lastTradeMs > 0 ? new Date(lastTradeMs) : null;
    const firstLiquidity = token.initialLiquidityAt === null && figures.hasLiquidity;
    const tier = refreshTier({
      hasLiquidity: figures.hasLiquidity, lastTradeAt, firstLiquidityAt: token.initialLiquidityAt ?? (firstLiquidity ? new Date(nowMs) : null),
      detectedAt: token.detectedAt, nowMs, idleAfterMs: deps.idleAfterMs,
    });
    const isActivelyTraded = figures.hasLiquidity && lastTradeAt !== null && nowMs - lastTradeAt.getTime() < ACTIVE_TRADING_WINDOW_MS;

    // Events against the previous refresh (or the token's stored figures on its first DEX pass).
    const previous = await deps.dex.previousSnapshot(data.chainId, data.address, bucketAt);
    const before = {
      priceUsd: token.priceUsd === null ? null : Number(token.priceUsd),
      liquidityUsd: token.currentLiquidityUsd === null ? null : Number(token.currentLiquidityUsd),
      riskScore: previous ? previous.riskScore : token.currentRiskScore,
    };
    const after = { priceUsd, liquidityUsd: figures.liquidityUsd, riskScore: token.currentRiskScore };
    const change = token.dexUpdatedAt === null && !figures.hasLiquidity ? { updated: [], alert: null } : assessChange(before, after);
    const published: string[] = [];
    if (change.updated.length > 0) {
      const after = {
        ...token, priceUsd: priceNumeric(priceUsd), currentLiquidityUsd: usdNumeric(figures.liquidityUsd), marketCapUsd: usdNumeric(marketCapUsd),
        volume24hUsd: usdNumeric(volumeUsd), dexHints: hints, liquidityLock: lock, isActivelyTraded, dexUpdatedAt: new Date(nowMs),
      };
      const previous = {
        current_risk_score: before.riskScore, current_risk_level: token.currentRiskLevel,
        current_liquidity_usd: before.liquidityUsd, price_usd: before.priceUsd,
      };
      await deps.events.publish({ type: 'token.updated', data: tokenUpdatedData(after, { source: 'dex', changes: change.updated, previous }) });
      published.push('token.updated');
    }
    if (change.alert) {
      const { kind, message, ...figuresOfAlert } = change.alert;
      await deps.events.publish({
        type: 'alert',
        data: {
          contract_address: data.address, chain_id: data.chainId, type: kind, message, alert_key: null,
          bucket_at: bucketAt.toISOString(), details: figuresOfAlert,
        },
      });
      published.push(`alert:${kind}`);
      log.warn({ alert: change.alert }, 'liquidity alert');
      await deps.onLiquidityPulled?.(data.chainId, data.address);
    }
    // First liquidity: trading can now be simulated and the risk re-scored. Routed before the commit:
    // after it, a retry would no longer see the liquidity as new.
    await routeOutcome(deps.producer, 'dex', data, { firstLiquidity });

    await deps.dex.saveRefresh({
      pairs: pairUpdates,
      token: {
        chainId: data.chainId, address: data.address, priceUsd: priceNumeric(priceUsd), marketCapUsd: usdNumeric(marketCapUsd),
        currentLiquidityUsd: usdNumeric(figures.liquidityUsd), hasLiquidity: figures.hasLiquidity, firstLiquidityUsd: usdNumeric(figures.liquidityUsd),
        volume24hUsd: usdNumeric(volumeUsd), lastTradeAt, isActivelyTraded, dexHints: hints, liquidityLock: lock,
        refreshTier: tier, nextRefreshAt: nextRefreshAt(tier, bucketMs, intervalMs, slowMs),
      },
      snapshot: {
        chainId: data.chainId, address: data.address, bucketAt, riskScore: token.currentRiskScore, priceUsd: priceNumeric(priceUsd),
        liquidityUsd: usdNumeric(figures.liquidityUsd), volume24hUsd: usdNumeric(volumeUsd), marketCapUsd: usdNumeric(marketCapUsd),
      },
    });
    log.debug({ pairs: pairUpdates.length, priceUsd, liquidityUsd: figures.liquidityUsd, events: published }, 'dex refreshed');
    return {
      status: 'done', bucketAt: bucketAt.toISOString(), pairs: pairUpdates.length, mainPair: hints.main_trading_pair, priceUsd, liquidityUsd: figures.liquidityUsd,
      volume24hUsd: volumeUsd, events: published, firstLiquidity,
    };
  };
}
