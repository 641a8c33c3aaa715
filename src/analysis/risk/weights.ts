import type { HookReport } from '../hooks/index.ts';
import type { BehaviourFinding } from '../simulation/index.ts';
import type {
  AdminFamily,
  AdminFunction,
  Evidence,
  RiskFactor,
  StaticAnalysis,
  TradingSimulation,
} from '../types.ts';
import type { CodeFacts, HolderRiskFacts, LookalikeFact } from './holder-facts.ts';

/** The weights and inputs of the risk score (risk.ts), and the helpers every factor uses. */

export const HONEYPOT_MIN_SCORE = 91;
export const NON_HONEYPOT_MAX_SCORE = 90;

/** Points per admin family when someone can still call the function. */
export const FAMILY_POINTS: Record<AdminFamily, number> = {
  'balance-change': 35,
  'burn-from': 30,
  // An uncapped fee the owner routes to a wallet it sets: every sale can be taken, not only stopped.
  'fee-siphon': 30,
  mint: 20,
  upgrade: 20,
  blacklist: 15,
  pause: 15,
  fee: 15,
  'trading-switch': 15,
  'max-tx': 5,
  whitelist: 5,
  'router-pair': 5,
  withdraw: 3,
  'fee-exclusion': 2,
  'ownership-transfer': 0,
  renounce: 0,
  other: 0,
};

export const WEIGHTS = {
  honeypot: 100,
  notBuyable: 40,
  transferBlocked: 15,
  maxTxDetected: 5,
  noSimulation: 5,
  /** Sell tax thresholds (percent, inclusive) and points, highest first. */
  sellTax: [
    [50, 40],
    [25, 25],
    [10, 10],
    [5, 4],
  ] as const,
  buyTax: [
    [50, 30],
    [25, 20],
    [10, 8],
    [5, 3],
  ] as const,
  transferTax: [
    [10, 10],
    [0.01, 3],
  ] as const,
  hiddenOwner: 30,
  proxy: 15,
  renounced: -5,
  /** An admin function whose access control could not be decided counts this share. */
  unknownAccessShare: 0.5,
  /**
   * A power over holders that an execution could not prove (it reverted for every privileged
   * caller tried, or ran without its effect) counts this share (docs/risk-model.md).
   */
  unconfirmedShare: 0.5,
  liquidityUsdVeryLow: [1_000, 10] as const,
  liquidityUsdLow: [10_000, 5] as const,
  liquidityLocked: [80, -10] as const,
  liquidityUnlocked: [20, 10] as const,
  creatorBad: [20, 20] as const,
  creatorPoor: [40, 10] as const,
  creatorGood: [80, -5] as const,
  /** A good reputation counts only after this many decided tokens. */
  creatorGoodMinTokens: 3,
  honeypotClone: 20,
  honeypotCloneMany: [3, 30] as const,
  /** The creator's (or owner's) share of the supply once the token trades: percent, points. */
  creatorShare: [
    [50, 20],
    [20, 10],
  ] as const,
  /** The ten largest holders outside pools, lockers and burn addresses: percent, points. */
  top10Concentration: [
    [80, 15],
    [50, 8],
  ] as const,
  /** The creator holds at least this share of a pool's LP tokens. */
  lpCreator: [50, 10] as const,
  /** Real holders' sells: a honeypot when at least this share failed (and a fresh buyer can sell). */
  holderSellsHoneypotShare: 0.5,
  holderSellsFailed: 20,
  siphon: 35,
  impersonation: 30,
  selfdestruct: 10,
  externalCall: 10,
  /** A V4 pool's hook its owner can change (upgradeable, or owner-set state read in its swap callbacks). */
  hookCanChangeSwaps: 15,
  /** A V4 pool's hook that cannot work (impossible permission bits, no code). */
  hookInvalid: 10,
  /** A V4 pool's hook that lets the creator trade on better terms. */
  hookCreatorExempt: 10,
} as const;

/** Scores at the bottom of "medium" and "high" (riskLevelOf's thresholds plus one). */
export const LEVEL_FLOORS = { onePower: 31, twoPowers: 61 } as const;

/** Templates that move the score; unknown templates are reported at 0 points. */
export const TEMPLATE_POINTS: Record<string, number> = {
  'openzeppelin-erc20': -3,
  'plain-erc20': 0,
  'reflection-token': 3,
  'launchpad-tax-token': 3,
};

export interface LiquidityInput {
  usd: number | null;
  locked_pct: number | null;
  burned_pct: number | null;
  lockers: string[];
}

export interface CreatorInput {
  address: string;
  reputation_score: number | null;
  total_tokens: number;
  success_count: number;
  scam_count: number;
}

export interface RiskInput {
  /** On the chain's trust list (wrapped native, major stablecoins). */
  trusted: boolean;
  static: StaticAnalysis | null;
  behaviour: readonly BehaviourFinding[];
  simulation:
    | (TradingSimulation & { honeypot_reason?: string | null; hook?: HookReport | null })
    | null;
  liquidity?: LiquidityInput | null;
  creator?: CreatorInput | null;
  /** Earlier tokens judged honeypots whose skeleton hash equals this token's. */
  similarHoneypots: number;
  /** Holders, LP holders and real holders' sells (src/analysis/risk/holders.ts). */
  holderFacts?: HolderRiskFacts | null;
  /** A well-known token of the chain this one's name or symbol copies. */
  lookalike?: LookalikeFact | null;
  codeFacts?: CodeFacts | null;
}

export const functionEvidence = (fn: AdminFunction): Evidence[] =>
  fn.evidence.length > 0
    ? fn.evidence
    : [
        {
          kind: 'function',
          selector: fn.selector,
          detail: `${fn.signature} (0x${fn.selector}) is ${fn.access_control}`,
        },
      ];

export const tier = (value: number, table: readonly (readonly [number, number])[]) =>
  table.find(([at]) => value >= at)?.[1] ?? 0;
export const severityOf = (points: number): RiskFactor['severity'] =>
  points >= 40
    ? 'critical'
    : points >= 20
      ? 'high'
      : points >= 10
        ? 'medium'
        : points > 0
          ? 'low'
          : 'info';
