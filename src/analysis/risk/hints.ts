import { privilegedAddressProof } from '../access/index.ts';
import type { BehaviourFinding } from '../simulation/index.ts';
import type { RiskAssessment, SecurityHints, StaticAnalysis } from '../types.ts';
import type { CreatorInput, LiquidityInput } from './risk.ts';

/**
 * security_hints (docs/api.md), derived from the risk assessment: every true flag is the presence of a
 * risk factor, so the factor's evidence explains it (which function, which observation). A flag
 * means a power someone can still use (an owner-only mint after a real renounce is not
 * "mintable"). Trusted tokens keep truthful flags; their factors carry 0 points.
 */

/** Which factor codes raise each flag. */
export const HINT_SOURCES = {
  is_proxy: ['proxy'],
  is_mintable: ['admin:mint'],
  can_blacklist: ['admin:blacklist'],
  can_pause: ['admin:pause'],
  fee_modifiable: ['admin:fee'],
  has_max_tx_limit: ['admin:max-tx', 'max-tx-detected'],
  trading_restricted: ['admin:trading-switch', 'not-buyable', 'transfer-blocked'],
  owner_can_change_balance: ['admin:balance-change', 'admin:burn-from'],
  hidden_owner: ['hidden-owner'],
  ownership_renounced: ['ownership-renounced'],
  selfdestruct: ['code:selfdestruct'],
  external_call: ['code:external-call'],
} as const satisfies Partial<Record<keyof SecurityHints, readonly string[]>>;

export type HintFlag = keyof typeof HINT_SOURCES;

export interface HintsInput {
  assessment: RiskAssessment;
  static: StaticAnalysis | null;
  behaviour?: readonly BehaviourFinding[];
  creator?: CreatorInput | null;
  liquidity?: LiquidityInput | null;
}

export function deriveHints(input: HintsInput): SecurityHints {
  const codes = new Set(input.assessment.risk_factors.map((f) => f.code));
  const flag = (name: HintFlag) => HINT_SOURCES[name].some((code) => codes.has(code));
  const ownership = input.static?.ownership ?? null;
  const hidden = flag('hidden_owner');
  // The address that holds the power: owner() while live, else the admin a call proved
  // privileged (the hidden owner behind a renounce, or the admin of a contract without owner()).
  const live = ownership && !ownership.renounced && ownership.owner ? ownership.owner : null;
  const proof = live
    ? null
    : privilegedAddressProof({ static: input.static, behaviour: input.behaviour ?? [] });
  const ownerAddress = live ?? (proof && (hidden || !ownership?.owner) ? proof.address : null);
  return {
    is_proxy: flag('is_proxy'),
    is_mintable: flag('is_mintable'),
    can_blacklist: flag('can_blacklist'),
    can_pause: flag('can_pause'),
    fee_modifiable: flag('fee_modifiable'),
    has_max_tx_limit: flag('has_max_tx_limit'),
    trading_restricted: flag('trading_restricted'),
    owner_can_change_balance: flag('owner_can_change_balance'),
    hidden_owner: hidden,
    ownership_renounced: flag('ownership_renounced'),
    owner_address: ownerAddress,
    creator_reputation_score: input.creator?.reputation_score ?? null,
    liquidity_lock: input.liquidity
      ? {
          locked_pct: input.liquidity.locked_pct,
          burned_pct: input.liquidity.burned_pct,
          lockers: input.liquidity.lockers,
        }
      : null,
  };
}

/** The evidence behind one true flag (for the API and for tests that every flag is explained). */
export function evidenceFor(assessment: RiskAssessment, flag: HintFlag) {
  const codes: readonly string[] = HINT_SOURCES[flag];
  return assessment.risk_factors.filter((f) => codes.includes(f.code)).flatMap((f) => f.evidence);
}
