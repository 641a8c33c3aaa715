import { describe, expect, it } from 'vitest';
import { REFRESH_INTERVAL_MS, SLOW_REFRESH_INTERVAL_MS } from '../dex/refresh.ts';
import { dataQualityScore, measuredFacts, type QualityInput } from './quality.ts';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const complete: QualityInput = {
  creationTxHash: `0x${'ab'.repeat(32)}`,
  creationBlockNumber: 10,
  creationTimestamp: ago(3_600_000),
  codeAnalysed: true,
  simulated: true,
  dexUpdatedAt: ago(30_000),
  refreshTier: 'fast',
};

describe('dataQualityScore', () => {
  it('every fact measured and fresh: 1; nothing measured: 0', () => {
    expect(dataQualityScore(complete, NOW)).toBe(1);
    const none: QualityInput = {
      creationTxHash: null,
      creationBlockNumber: null,
      creationTimestamp: null,
      codeAnalysed: false,
      simulated: false,
      dexUpdatedAt: null,
      refreshTier: null,
    };
    expect(dataQualityScore(none, NOW)).toBe(0);
  });

  it('a submitted token without creation data and not yet simulated: 0.5', () => {
    const submitted = {
      ...complete,
      creationTxHash: null,
      creationBlockNumber: null,
      creationTimestamp: null,
      simulated: false,
    };
    expect(measuredFacts(submitted, NOW)).toEqual(['code_analysis', 'dex_state']);
    expect(dataQualityScore(submitted, NOW)).toBe(0.5);
  });

  it('DEX state goes stale after two refresh intervals of its tier', () => {
    expect(dataQualityScore({ ...complete, dexUpdatedAt: ago(2 * REFRESH_INTERVAL_MS) }, NOW)).toBe(
      1,
    );
    expect(
      dataQualityScore({ ...complete, dexUpdatedAt: ago(2 * REFRESH_INTERVAL_MS + 1) }, NOW),
    ).toBe(0.75);
    expect(
      dataQualityScore(
        { ...complete, refreshTier: 'slow', dexUpdatedAt: ago(2 * SLOW_REFRESH_INTERVAL_MS - 1) },
        NOW,
      ),
    ).toBe(1);
    expect(
      dataQualityScore(
        { ...complete, refreshTier: 'slow', dexUpdatedAt: ago(2 * SLOW_REFRESH_INTERVAL_MS + 1) },
        NOW,
      ),
    ).toBe(0.75);
  });

  it('a token left unrefreshed (no pool ever) counts its one DEX reading as measured', () => {
    expect(
      dataQualityScore({ ...complete, refreshTier: 'none', dexUpdatedAt: ago(86_400_000) }, NOW),
    ).toBe(1);
  });
});
