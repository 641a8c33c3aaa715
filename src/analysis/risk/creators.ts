/**
 * Creator reputation (docs/risk-model.md). Every token a creator deploys ends up in one of three states:
 *
 *  - scam: the token was judged a honeypot (simulation: a sell failed after a buy, or a sell tax
 *    of 90 % or more), or its liquidity was pulled (the DEX stage calls recordLiquidityPulled);
 *    once a scam, always a scam;
 *  - success: not a scam, analysed with a risk score of at most 60 (low or medium), at least
 *    24 hours since it was created (detected, when the creation time is unknown), liquidity not pulled, and its latest trade simulation could
 *    buy and sell it (or the DEX stage reports it actively traded);
 *  - pending: anything else (too young, not analysed yet, high risk without proof of a scam,
 *    no pool). Pending tokens count in total_tokens but in neither rate.
 *
 * success_rate = 100 × successes / total_tokens, scam_rate = 100 × scams / total_tokens: percentages,
 * as the interface words them (two decimals; null without tokens). The score (0–100)
 * is a smoothed success share in which a scam weighs three successes:
 *     score = 100 × (successes + 1) / (successes + 3 × scams + 2)
 * A new creator starts at 50; one scam drops a newcomer to 20; five successes lift it to 86;
 * five successes and one scam give 60. Pure: the repository computes the counts with the same
 * definitions in SQL (db/repositories/creators.ts), and this module is the one statement of them.
 */

export const SUCCESS_MIN_AGE_HOURS = 24;
export const SUCCESS_MAX_RISK_SCORE = 60;
export const SCAM_WEIGHT = 3;
/** Beta(1, 1) prior: one success and one failure of pseudo-evidence. */
export const PRIOR_SUCCESSES = 1;
export const PRIOR_TOTAL = 2;

export type TokenOutcome = 'scam' | 'success' | 'pending';

export interface TokenOutcomeInput {
  isHoneypot: boolean | null;
  liquidityPulledAt: Date | null;
  riskScore: number | null;
  /** Creation time, else detection time. */
  bornAt: Date;
  /** The latest simulation could buy and sell (is_sellable true). */
  tradable: boolean;
  isActivelyTraded: boolean;
}

export function tokenOutcome(t: TokenOutcomeInput, now: Date = new Date()): TokenOutcome {
  if (t.isHoneypot === true || t.liquidityPulledAt !== null) return 'scam';
  const ageHours = (now.getTime() - t.bornAt.getTime()) / 3_600_000;
  if (
    t.riskScore !== null &&
    t.riskScore <= SUCCESS_MAX_RISK_SCORE &&
    ageHours >= SUCCESS_MIN_AGE_HOURS &&
    (t.tradable || t.isActivelyTraded)
  )
    return 'success';
  return 'pending';
}

export interface CreatorCounts {
  total_tokens: number;
  success_count: number;
  scam_count: number;
}

export function reputationScore(c: Pick<CreatorCounts, 'success_count' | 'scam_count'>): number {
  return Math.round(
    (100 * (c.success_count + PRIOR_SUCCESSES)) /
      (c.success_count + SCAM_WEIGHT * c.scam_count + PRIOR_TOTAL),
  );
}

export function rates(c: Pick<CreatorCounts, 'total_tokens' | 'success_count' | 'scam_count'>): {
  success_rate: number | null;
  scam_rate: number | null;
} {
  if (c.total_tokens === 0) return { success_rate: null, scam_rate: null };
  const percent = (n: number) => Math.round((n / c.total_tokens) * 10_000) / 100;
  return { success_rate: percent(c.success_count), scam_rate: percent(c.scam_count) };
}
