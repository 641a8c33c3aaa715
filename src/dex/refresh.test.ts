import { describe, expect, it } from 'vitest';
import {
  assessChange,
  bucketStart,
  LIQUIDITY_CHANGE_THRESHOLD,
  NO_LIQUIDITY_WATCH_MS,
  nextRefreshAt,
  PRICE_CHANGE_THRESHOLD,
  REFRESH_INTERVAL_MS,
  refreshTier,
  SLOW_REFRESH_INTERVAL_MS,
} from './refresh.ts';

describe('buckets', () => {
  it('maps a moment to the start of its minute', () => {
    const at = Date.UTC(2026, 0, 1, 12, 34, 56, 789);
    expect(bucketStart(at)).toBe(Date.UTC(2026, 0, 1, 12, 34));
    expect(bucketStart(at, 10 * 60_000)).toBe(Date.UTC(2026, 0, 1, 12, 30));
  });
});

describe('refreshTier', () => {
  const now = Date.UTC(2026, 0, 2);
  const idleAfterMs = 6 * 3_600_000;
  const base = {
    nowMs: now,
    idleAfterMs,
    detectedAt: new Date(now - 3_600_000),
    firstLiquidityAt: null,
    lastTradeAt: null,
  };

  it('keeps recently traded or freshly pooled tokens on the fast cadence', () => {
    expect(refreshTier({ ...base, hasLiquidity: true, lastTradeAt: new Date(now - 60_000) })).toBe(
      'fast',
    );
    expect(
      refreshTier({ ...base, hasLiquidity: true, firstLiquidityAt: new Date(now - 60_000) }),
    ).toBe('fast');
  });

  it('slows down tokens without trades for the idle time', () => {
    expect(
      refreshTier({
        ...base,
        hasLiquidity: true,
        lastTradeAt: new Date(now - idleAfterMs - 1),
        firstLiquidityAt: new Date(now - 2 * idleAfterMs),
      }),
    ).toBe('slow');
  });

  it('watches a token without liquidity for a day, then leaves it to PairCreated', () => {
    expect(refreshTier({ ...base, hasLiquidity: false })).toBe('slow');
    expect(
      refreshTier({
        ...base,
        hasLiquidity: false,
        detectedAt: new Date(now - NO_LIQUIDITY_WATCH_MS - 1),
      }),
    ).toBe('none');
  });

  it('schedules by tier', () => {
    expect(nextRefreshAt('fast', 0)?.getTime()).toBe(REFRESH_INTERVAL_MS);
    expect(nextRefreshAt('slow', 0)?.getTime()).toBe(SLOW_REFRESH_INTERVAL_MS);
    expect(nextRefreshAt('none', 0)).toBeNull();
  });
});

describe('assessChange', () => {
  const before = { priceUsd: 1, liquidityUsd: 10_000, riskScore: 20 };

  it('stays quiet below the thresholds', () => {
    const after = {
      priceUsd: 1 + PRICE_CHANGE_THRESHOLD / 2,
      liquidityUsd: 10_000 * (1 + LIQUIDITY_CHANGE_THRESHOLD / 2),
      riskScore: 22,
    };
    expect(assessChange(before, after)).toEqual({ updated: [], alert: null });
  });

  it('reports price, liquidity and risk moves', () => {
    expect(
      assessChange(before, { priceUsd: 1.2, liquidityUsd: 13_000, riskScore: 40 }).updated,
    ).toEqual(['price', 'liquidity', 'risk']);
    expect(
      assessChange(
        { priceUsd: null, liquidityUsd: null, riskScore: null },
        { priceUsd: 1, liquidityUsd: 5, riskScore: null },
      ).updated,
    ).toEqual(['price', 'liquidity']);
  });

  it('alerts on a pull of more than half, and calls a near-total pull a rug', () => {
    const pull = assessChange(before, { priceUsd: 0.8, liquidityUsd: 4_000, riskScore: 20 });
    expect(pull.alert).toMatchObject({
      kind: 'liquidity_pull',
      liquidity_before_usd: 10_000,
      liquidity_after_usd: 4_000,
    });
    expect(
      assessChange(before, { priceUsd: 0.9, liquidityUsd: 6_000, riskScore: 20 }).alert,
    ).toBeNull();
    expect(
      assessChange(before, { priceUsd: 0.01, liquidityUsd: 500, riskScore: 20 }).alert?.kind,
    ).toBe('rug');
    expect(
      assessChange(before, { priceUsd: 0.05, liquidityUsd: 9_000, riskScore: 20 }).alert?.kind,
    ).toBe('rug');
    expect(
      assessChange(before, { priceUsd: null, liquidityUsd: 0, riskScore: 20 }).alert?.kind,
    ).toBe('rug');
  });
});
