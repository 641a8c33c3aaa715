export { codeFactsOf } from './code-facts.ts';
export {
  type CreatorCounts,
  PRIOR_SUCCESSES,
  PRIOR_TOTAL,
  rates,
  reputationScore,
  SCAM_WEIGHT,
  SUCCESS_MAX_RISK_SCORE,
  SUCCESS_MIN_AGE_HOURS,
  tokenOutcome,
} from './creators.ts';
export { deriveHints, evidenceFor, HINT_SOURCES, type HintFlag } from './hints.ts';
export type { CodeFacts, HolderRiskFacts, LookalikeFact } from './holder-facts.ts';
export { assessRisk, type CreatorInput, type LiquidityInput } from './risk.ts';
export { isTrusted } from './trust.ts';
