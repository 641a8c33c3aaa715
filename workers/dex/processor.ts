import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import {
  type DexRepository,
  type PairRow,
  type PairUpdate,
  priceNumeric,
  type TokenRow,
  usdNumeric,
} from '../../db/repositories/dex.ts';
import type { HolderRepository } from '../../db/repositories/holders.ts';
import type { EventPublisher } from '../../infra/events.ts';
import type { AggregatorClient } from '../../src/dex/aggregator.ts';
import {
  dexHints,
  liquidityLock,
  type TokenDexFigures,
  valueToken,
} from '../../src/dex/dex-hints.ts';
import { type PoolRef, toUnits } from '../../src/dex/pricing.ts';
import type { TokenChainState } from '../../src/dex/reader.ts';
import {
  ACTIVE_TRADING_WINDOW_MS,
  assessChange,
  bucketStart,
  nextRefreshAt,
  REFRESH_INTERVAL_MS,
  refreshTier,
  SLOW_REFRESH_INTERVAL_MS,
} from '../../src/dex/refresh.ts';
import { INITIAL_LOOKBACK_BLOCKS } from '../../src/dex/volume.ts';
import { tokenUpdatedData } from '../../src/events/types.ts';
import type { StoredHolders } from '../../src/holders/report.ts';
import { holdersView } from '../../src/tokens/holders-view.ts';
import { type ChainRuntime, chainOf } from '../chain-runtime.ts';
import { buildHoldersReport } from '../holders-report.ts';
import type { JobData } from '../jobs.ts';
import { routeOutcome } from '../pipeline.ts';
import type { Producer } from '../queues.ts';
import {
  createHeadCache,
  createReaderCache,
  pairUpdatesOf,
  scanVolume,
  type VolumeScan,
} from './chain.ts';

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
  /** With it, each refresh also rebuilds the token's holders report from the tracked balances (no RPC). */
  holders?: Pick<HolderRepository, 'facts' | 'tracks' | 'saveReport'>;
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

function poolRefOf(row: PairRow): PoolRef | null {
  const ref = { dex: row.dex, address: row.address, token0: row.token0, token1: row.token1 };
  // A V4 pool is read from its PoolManager (the recorded factory) by its id (the address).
  if (row.kind === 'v4') {
    if (!row.factory || row.tickSpacing === null || !row.hooks) return null;
    return {
      ...ref,
      kind: 'v4',
      fee: row.fee,
      v4: { poolManager: row.factory, tickSpacing: row.tickSpacing, hooks: row.hooks },
    };
  }
  // Pairs recorded by the LP probe are ERC-20 LP tokens: V2. V3 pools are recorded with their kind.
  return { ...ref, kind: row.kind === 'v3' ? 'v3' : 'v2', fee: row.fee };
}

/** Price and volume, the aggregator filling only what chain state could not give. */
async function fillFromAggregator(
  aggregator: AggregatorClient | undefined,
  data: JobData<'dex'>,
  figures: TokenDexFigures,
  volume: { volumeUsd: number | null; volumeComplete: boolean },
) {
  let priceUsd = figures.priceUsd;
  let volumeUsd = volume.volumeUsd;
  const needPrice = priceUsd === null && figures.hasLiquidity;
  const needVolume = !volume.volumeComplete || volumeUsd === null;
  if (aggregator && (needPrice || needVolume)) {
    const quote = await aggregator.token(data.chainId, data.address);
    if (quote) {
      if (needPrice && quote.priceUsd !== null) priceUsd = quote.priceUsd;
      if (needVolume && quote.volume24hUsd !== null) volumeUsd = quote.volume24hUsd;
    }
  }
  return { priceUsd, volumeUsd };
}

/** Market cap from the pools, else price times the circulating (unburned) supply. */
function marketCapOf(
  figures: TokenDexFigures,
  priceUsd: number | null,
  state: TokenChainState,
  address: string,
): number | null {
  if (figures.marketCapUsd != null) return figures.marketCapUsd;
  if (priceUsd === null || state.totalSupply === null) return null;
  const burned = state.burnedSupply > state.totalSupply ? state.totalSupply : state.burnedSupply;
  return priceUsd * toUnits(state.totalSupply - burned, state.decimals.get(address) ?? 18);
}

interface TradingState {
  lastTradeAt: Date | null;
  firstLiquidity: boolean;
  tier: ReturnType<typeof refreshTier>;
  isActivelyTraded: boolean;
}

/** What this refresh found, as written to the token and published in its events. */
interface RefreshOutcome {
  priceUsd: number | null;
  liquidityUsd: number | null;
  marketCapUsd: number | null;
  volumeUsd: number | null;
  hasLiquidity: boolean;
  hints: ReturnType<typeof dexHints>;
  lock: ReturnType<typeof liquidityLock>;
  trading: TradingState;
  /** The holders report of this refresh (undefined without holder tracking). */
  holders?: StoredHolders;
}

/**
 * Whether the holders moved enough to tell subscribers: the count, or a share that risk factors
 * read (creator, top ten outside pools) by a percentage point or more.
 */
export function holdersMoved(before: unknown, after: StoredHolders | undefined): boolean {
  if (!after) return false;
  const was = holdersView(before).holders;
  const now = after.holders;
  if (!was) return now.holder_count > 0;
  return (
    was.holder_count !== now.holder_count ||
    Math.abs((was.creator_percent ?? 0) - (now.creator_percent ?? 0)) >= 1 ||
    Math.abs(was.top10_outside_pools_percent - now.top10_outside_pools_percent) >= 1
  );
}

/** The last trade, whether this refresh saw first liquidity, and the refresh cadence that follows. */
function tradingStateOf(
  token: TokenRow,
  hasLiquidity: boolean,
  scans: Map<string, VolumeScan>,
  nowMs: number,
  idleAfterMs: number,
): TradingState {
  const swapTimes = [...scans.values()].map((s) => s.lastSwapAt?.getTime() ?? 0);
  const lastTradeMs = Math.max(token.lastTradeAt?.getTime() ?? 0, ...swapTimes);
  const lastTradeAt = lastTradeMs > 0 ? new Date(lastTradeMs) : null;
  const firstLiquidity = token.initialLiquidityAt === null && hasLiquidity;
  const tier = refreshTier({
    hasLiquidity,
    lastTradeAt,
    firstLiquidityAt: token.initialLiquidityAt ?? (firstLiquidity ? new Date(nowMs) : null),
    detectedAt: token.detectedAt,
    nowMs,
    idleAfterMs,
  });
  const isActivelyTraded =
    hasLiquidity &&
    lastTradeAt !== null &&
    nowMs - lastTradeAt.getTime() < ACTIVE_TRADING_WINDOW_MS;
  return { lastTradeAt, firstLiquidity, tier, isActivelyTraded };
}

interface FiguresBefore {
  priceUsd: number | null;
  liquidityUsd: number | null;
  riskScore: number | null;
}

async function publishTokenUpdated(
  events: EventPublisher,
  token: TokenRow,
  nowMs: number,
  o: RefreshOutcome,
  changes: string[],
  before: FiguresBefore,
) {
  const after = {
    ...token,
    priceUsd: priceNumeric(o.priceUsd),
    currentLiquidityUsd: usdNumeric(o.liquidityUsd),
    marketCapUsd: usdNumeric(o.marketCapUsd),
    volume24hUsd: usdNumeric(o.volumeUsd),
    dexHints: o.hints,
    liquidityLock: o.lock,
    isActivelyTraded: o.trading.isActivelyTraded,
    dexUpdatedAt: new Date(nowMs),
    holders: o.holders ?? token.holders,
  };
  const previous = {
    current_risk_score: before.riskScore,
    current_risk_level: token.currentRiskLevel,
    current_liquidity_usd: before.liquidityUsd,
    price_usd: before.priceUsd,
  };
  await events.publish({
    type: 'token.updated',
    data: tokenUpdatedData(after, { source: 'dex', changes, previous }),
  });
}

/** Publishes what changed against the previous refresh (or the token's stored figures on its first DEX pass); returns the event names. */
async function publishChanges(
  deps: DexDeps,
  log: Logger,
  data: JobData<'dex'>,
  token: TokenRow,
  bucketAt: Date,
  nowMs: number,
  o: RefreshOutcome,
): Promise<string[]> {
  const previous = await deps.dex.previousSnapshot(data.chainId, data.address, bucketAt);
  const before: FiguresBefore = {
    priceUsd: token.priceUsd === null ? null : Number(token.priceUsd),
    liquidityUsd: token.currentLiquidityUsd === null ? null : Number(token.currentLiquidityUsd),
    riskScore: previous ? previous.riskScore : token.currentRiskScore,
  };
  const after = {
    priceUsd: o.priceUsd,
    liquidityUsd: o.liquidityUsd,
    riskScore: token.currentRiskScore,
  };
  const change =
    token.dexUpdatedAt === null && !o.hasLiquidity
      ? { updated: [], alert: null }
      : assessChange(before, after);
  const updated = [
    ...change.updated,
    ...(holdersMoved(token.holders, o.holders) ? ['holders'] : []),
  ];
  const published: string[] = [];
  if (updated.length > 0) {
    await publishTokenUpdated(deps.events, token, nowMs, o, updated, before);
    published.push('token.updated');
  }
  if (change.alert) {
    const { kind, message, ...figuresOfAlert } = change.alert;
    await deps.events.publish({
      type: 'alert',
      data: {
        contract_address: data.address,
        chain_id: data.chainId,
        type: kind,
        message,
        alert_key: null,
        bucket_at: bucketAt.toISOString(),
        details: figuresOfAlert,
      },
    });
    published.push(`alert:${kind}`);
    log.warn({ alert: change.alert }, 'liquidity alert');
    await deps.onLiquidityPulled?.(data.chainId, data.address);
  }
  return published;
}

/** The pair rows, token figures and history snapshot one refresh commits together. */
function refreshRecord(
  data: JobData<'dex'>,
  bucketAt: Date,
  token: TokenRow,
  pairs: PairUpdate[],
  o: RefreshOutcome,
  nextRefresh: Date | null,
) {
  return {
    pairs,
    token: {
      chainId: data.chainId,
      address: data.address,
      priceUsd: priceNumeric(o.priceUsd),
      marketCapUsd: usdNumeric(o.marketCapUsd),
      currentLiquidityUsd: usdNumeric(o.liquidityUsd),
      hasLiquidity: o.hasLiquidity,
      firstLiquidityUsd: usdNumeric(o.liquidityUsd),
      volume24hUsd: usdNumeric(o.volumeUsd),
      lastTradeAt: o.trading.lastTradeAt,
      isActivelyTraded: o.trading.isActivelyTraded,
      dexHints: o.hints,
      liquidityLock: o.lock,
      refreshTier: o.trading.tier,
      nextRefreshAt: nextRefresh,
    },
    snapshot: {
      chainId: data.chainId,
      address: data.address,
      bucketAt,
      riskScore: token.currentRiskScore,
      priceUsd: priceNumeric(o.priceUsd),
      liquidityUsd: usdNumeric(o.liquidityUsd),
      volume24hUsd: usdNumeric(o.volumeUsd),
      marketCapUsd: usdNumeric(o.marketCapUsd),
    },
  };
}

export function createDexProcessor(deps: DexDeps) {
  const now = deps.now ?? Date.now;
  const intervalMs = deps.intervalMs ?? REFRESH_INTERVAL_MS;
  const slowMs = (intervalMs * SLOW_REFRESH_INTERVAL_MS) / REFRESH_INTERVAL_MS;
  const readerFor = createReaderCache(deps.multicall);
  const head = createHeadCache(now, deps.headCacheMs ?? HEAD_CACHE_MS);
  const lookbackBlocks = deps.initialLookbackBlocks ?? INITIAL_LOOKBACK_BLOCKS;

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
    const rows = new Map(
      (await deps.dex.pairsOf(data.chainId, data.address)).map((r) => [r.address, r]),
    );
    // A pass for a pool created or funded in block N reads at N or later, never at a head cached
    // before it.
    const newest = Math.max(
      data.atBlock ?? 0,
      ...[...rows.values()].map((r) => r.creationBlockNumber ?? 0),
    );
    const tip = await head(chain, newest);
    const state = await reader.readToken(
      data.address,
      tip.number,
      [...rows.values()].flatMap((r) => poolRefOf(r) ?? []),
    );
    const quoteUsd = await reader.quotePrices(tip.number);
    const figures: TokenDexFigures = valueToken(data.address, state, quoteUsd);
    const scans = await scanVolume(chain, state.pools, rows, tip, state.decimals, lookbackBlocks);
    const volume = pairUpdatesOf(data.chainId, figures, scans, quoteUsd, tip);
    const { priceUsd, volumeUsd } = await fillFromAggregator(
      deps.aggregator,
      data,
      figures,
      volume,
    );
    const outcome: RefreshOutcome = {
      priceUsd,
      volumeUsd,
      liquidityUsd: figures.liquidityUsd,
      hasLiquidity: figures.hasLiquidity,
      marketCapUsd: marketCapOf(figures, priceUsd, state, data.address),
      hints: dexHints(
        { ...figures, priceUsd },
        {
          chainId: data.chainId,
          token: data.address,
          dexes: chain.config.dexes,
          volume24hUsd: volumeUsd,
        },
      ),
      lock: liquidityLock(figures),
      trading: tradingStateOf(token, figures.hasLiquidity, scans, nowMs, deps.idleAfterMs),
      holders: deps.holders
        ? await buildHoldersReport(deps.holders, chain.config, token, [...rows.values()])
        : undefined,
    };

    const published = await publishChanges(deps, log, data, token, bucketAt, nowMs, outcome);
    // First liquidity: trading can now be simulated and the risk re-scored. Routed before the commit:
    // after it, a retry would no longer see the liquidity as new.
    await routeOutcome(deps.producer, 'dex', data, {
      firstLiquidity: outcome.trading.firstLiquidity,
    });
    const nextRefresh = nextRefreshAt(outcome.trading.tier, bucketMs, intervalMs, slowMs);
    await deps.dex.saveRefresh(
      refreshRecord(data, bucketAt, token, volume.pairUpdates, outcome, nextRefresh),
    );
    if (outcome.holders)
      await deps.holders?.saveReport(data.chainId, data.address, outcome.holders);
    log.debug(
      {
        pairs: volume.pairUpdates.length,
        priceUsd,
        liquidityUsd: figures.liquidityUsd,
        events: published,
      },
      'dex refreshed',
    );
    return {
      status: 'done',
      bucketAt: bucketAt.toISOString(),
      pairs: volume.pairUpdates.length,
      mainPair: outcome.hints.main_trading_pair,
      priceUsd,
      liquidityUsd: figures.liquidityUsd,
      volume24hUsd: volumeUsd,
      events: published,
      firstLiquidity: outcome.trading.firstLiquidity,
    };
  };
}
