import { relativeChange } from './pricing.ts';

/**
 * Refresh policy: buckets, cadence tiers, and which changes are worth an event.
 */

/** The refresh cadence of a token with recent trades. */
export const REFRESH_INTERVAL_MS = 60_000;
/** Tokens without trades for the idle time (DEX_IDLE_AFTER_MINUTES) are refreshed this often. */
export const SLOW_REFRESH_INTERVAL_MS = 10 * 60_000;
/** A token that never had liquidity is watched (slowly) this long after detection, then left alone until a pair appears. */
export const NO_LIQUIDITY_WATCH_MS = 24 * 3_600_000;
/** A token traded within this window is "actively traded". */
export const ACTIVE_TRADING_WINDOW_MS = 24 * 3_600_000;

/** token.updated when the price moved by more than this fraction since the last refresh… */
export const PRICE_CHANGE_THRESHOLD = 0.05;
/** …or liquidity by more than this fraction… */
export const LIQUIDITY_CHANGE_THRESHOLD = 0.1;
/** …or the risk score by at least this many points. */
export const RISK_CHANGE_THRESHOLD = 5;
/** An alert when more than this fraction of the liquidity is gone since the last refresh. */
export const LIQUIDITY_PULL_THRESHOLD = 0.5;
/** A rug: liquidity down by at least this fraction, or the price down by at least RUG_PRICE_DROP. */
export const RUG_LIQUIDITY_DROP = 0.9;
export const RUG_PRICE_DROP = 0.9;
/** Liquidity below this is noise: no pull or rug alert about a pool that never held anything. */
export const MIN_ALERT_LIQUIDITY_USD = 10;

export type RefreshTier = 'fast' | 'slow' | 'none';

/** The bucket a moment falls in, for a cadence of `intervalMs`. */
export function bucketStart(atMs: number, intervalMs = REFRESH_INTERVAL_MS): number {
  return Math.floor(atMs / intervalMs) * intervalMs;
}

export function refreshTier(input: {
  hasLiquidity: boolean;
  lastTradeAt: Date | null;
  firstLiquidityAt: Date | null;
  detectedAt: Date;
  nowMs: number;
  idleAfterMs: number;
}): RefreshTier {
  const { nowMs, idleAfterMs } = input;
  if (!input.hasLiquidity) {
    // Liquidity may still arrive (a V3 pool has no PairCreated the detect stage would catch early).
    return nowMs - input.detectedAt.getTime() < NO_LIQUIDITY_WATCH_MS || input.firstLiquidityAt
      ? 'slow'
      : 'none';
  }
  // Fresh liquidity counts as activity: a new pool gets the fast cadence before its first trade.
  const lastActivity = Math.max(
    input.lastTradeAt?.getTime() ?? 0,
    input.firstLiquidityAt?.getTime() ?? 0,
  );
  return nowMs - lastActivity < idleAfterMs ? 'fast' : 'slow';
}

export function nextRefreshAt(
  tier: RefreshTier,
  bucketMs: number,
  fastMs = REFRESH_INTERVAL_MS,
  slowMs = SLOW_REFRESH_INTERVAL_MS,
): Date | null {
  if (tier === 'none') return null;
  return new Date(bucketMs + (tier === 'fast' ? fastMs : slowMs));
}

export interface Figures {
  priceUsd: number | null;
  liquidityUsd: number | null;
  riskScore: number | null;
}

export type Alert = {
  kind: 'rug' | 'liquidity_pull';
  message: string;
  liquidity_before_usd: number;
  liquidity_after_usd: number;
  price_change_pct: number | null;
};

/** What moved between two refreshes, and whether it deserves token.updated or an alert. */
export function assessChange(
  before: Figures,
  after: Figures,
): { updated: string[]; alert: Alert | null } {
  const updated: string[] = [];
  if (
    before.priceUsd !== null && after.priceUsd !== null
      ? relativeChange(before.priceUsd, after.priceUsd) > PRICE_CHANGE_THRESHOLD
      : before.priceUsd !== after.priceUsd
  )
    updated.push('price');
  if (
    (before.liquidityUsd ?? 0) !== (after.liquidityUsd ?? 0) &&
    relativeChange(before.liquidityUsd ?? 0, after.liquidityUsd ?? 0) > LIQUIDITY_CHANGE_THRESHOLD
  )
    updated.push('liquidity');
  if (
    before.riskScore !== after.riskScore &&
    (before.riskScore === null ||
      after.riskScore === null ||
      Math.abs(before.riskScore - after.riskScore) >= RISK_CHANGE_THRESHOLD)
  )
    updated.push('risk');

  let alert: Alert | null = null;
  const liqBefore = before.liquidityUsd ?? 0;
  const liqAfter = after.liquidityUsd ?? 0;
  if (liqBefore >= MIN_ALERT_LIQUIDITY_USD) {
    const liqDrop = (liqBefore - liqAfter) / liqBefore;
    const priceDrop =
      before.priceUsd && after.priceUsd !== null
        ? (before.priceUsd - after.priceUsd) / before.priceUsd
        : null;
    const priceChangePct = priceDrop === null ? null : Number((-priceDrop * 100).toFixed(2));
    const base = {
      liquidity_before_usd: Number(liqBefore.toFixed(2)),
      liquidity_after_usd: Number(liqAfter.toFixed(2)),
      price_change_pct: priceChangePct,
    };
    if (liqDrop >= RUG_LIQUIDITY_DROP || (priceDrop !== null && priceDrop >= RUG_PRICE_DROP)) {
      alert = {
        kind: 'rug',
        message: `Likely rug pull: liquidity ${pctText(liqDrop)} down${priceDrop !== null ? `, price ${pctText(priceDrop)} down` : ''}`,
        ...base,
      };
    } else if (liqDrop > LIQUIDITY_PULL_THRESHOLD) {
      alert = {
        kind: 'liquidity_pull',
        message: `Liquidity pulled: ${pctText(liqDrop)} of the liquidity is gone`,
        ...base,
      };
    }
  }
  return { updated, alert };
}

const pctText = (fraction: number) => `${Math.round(fraction * 100)}%`;
