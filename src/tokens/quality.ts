import { REFRESH_INTERVAL_MS, type RefreshTier, SLOW_REFRESH_INTERVAL_MS } from '../dex/refresh.ts';

/**
 * `data_quality_score` of the complete token object: the share of the token's four facts that
 * were actually measured and are still fresh (docs/api.md, "data_quality_score"):
 *
 * 1. creation: the deployment transaction, its block number and its block time are known;
 * 2. code analysis: the selectors stage analysed the deployed code;
 * 3. simulation: a buy/sell/transfer simulation ran to completion (no `error`);
 * 4. DEX state: the DEX stage read the pools within FRESHNESS_CADENCES refresh intervals of
 *    the token's tier (60 s for traded tokens, 10 min for idle ones); a token whose pools are
 *    not refreshed (`none` tier: never had liquidity) counts as measured when it was read once.
 *
 * The score is measured / 4, rounded to two decimals: 0 for a token just detected, 1 for a token
 * whose every fact is known and current.
 */

export const QUALITY_FACTS = ['creation', 'code_analysis', 'simulation', 'dex_state'] as const;
export type QualityFact = (typeof QUALITY_FACTS)[number];

/** DEX state older than this many refresh intervals of its tier is stale (one missed tick is allowed). */
export const FRESHNESS_CADENCES = 2;

export interface QualityInput {
  creationTxHash: string | null;
  creationBlockNumber: number | null;
  creationTimestamp: string | null;
  codeAnalysed: boolean;
  simulated: boolean;
  dexUpdatedAt: string | null;
  refreshTier: RefreshTier | string | null;
}

function intervalOf(tier: QualityInput['refreshTier']): number | undefined {
  if (tier === 'fast') return REFRESH_INTERVAL_MS;
  if (tier === 'slow') return SLOW_REFRESH_INTERVAL_MS;
  return undefined;
}

export function dexStateFresh(
  input: Pick<QualityInput, 'dexUpdatedAt' | 'refreshTier'>,
  nowMs: number,
): boolean {
  if (input.dexUpdatedAt === null) return false;
  const interval = intervalOf(input.refreshTier);
  if (interval === undefined) return true;
  return nowMs - Date.parse(input.dexUpdatedAt) <= FRESHNESS_CADENCES * interval;
}

export function measuredFacts(input: QualityInput, nowMs: number): QualityFact[] {
  const present: Record<QualityFact, boolean> = {
    creation:
      input.creationTxHash !== null &&
      input.creationBlockNumber !== null &&
      input.creationTimestamp !== null,
    code_analysis: input.codeAnalysed,
    simulation: input.simulated,
    dex_state: dexStateFresh(input, nowMs),
  };
  return QUALITY_FACTS.filter((fact) => present[fact]);
}

export function dataQualityScore(input: QualityInput, nowMs: number): number {
  return Math.round((measuredFacts(input, nowMs).length / QUALITY_FACTS.length) * 100) / 100;
}
