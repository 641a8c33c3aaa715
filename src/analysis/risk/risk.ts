import { type Proof, type RiskAssessment, type RiskFactor, riskLevelOf } from '../types.ts';
import { capabilityFactors, levelFloorFactor } from './capability.ts';
import { contextFactors } from './context.ts';
import { holderFactors } from './holders.ts';
import { hookFactors } from './hooks.ts';
import { simulationFactors } from './simulation.ts';
import { HONEYPOT_MIN_SCORE, NON_HONEYPOT_MAX_SCORE, type RiskInput } from './weights.ts';

export {
  type CreatorInput,
  FAMILY_POINTS,
  HONEYPOT_MIN_SCORE,
  LEVEL_FLOORS,
  type LiquidityInput,
  NON_HONEYPOT_MAX_SCORE,
  type RiskInput,
  TEMPLATE_POINTS,
  WEIGHTS,
} from './weights.ts';

/**
 * The risk score (docs/risk-model.md): pure, 0–100, lower is safer. Each factor adds points and carries
 * its evidence; the README's "Risk score" section explains the weights. Two rules shape it:
 *  - only behaviour proven by simulation (a sell that fails after a buy, a sell tax of 90 % or
 *    more) makes a honeypot: its score is at least 91, and every other token is capped at 90;
 *  - a token on the chain's trust list (wrapped native, major stablecoins) is not scored for
 *    mere capability: its admin functions, proxy and owner stay in the factors, at 0 points, so
 *    USDT's blacklist is reported but does not make it look like a scam;
 *  - a live privileged power over holders (mint, blacklist, balance rewrite, trading switch)
 *    puts the token at least "medium", two of them at least "high", whatever else lowers the sum.
 * docs/risk-model.md ("Risk levels", "Ownership and renounce") states the rules.
 */

/** Factors that are capability, not behaviour: zeroed for trusted tokens. */
const CAPABILITY_CODES =
  /^(admin:|hidden-owner$|proxy$|template$|honeypot-clone$|creator-reputation$|liquidity-|holders:|code:)/;

const INSIGHTS: Record<string, string> = {
  honeypot: 'Do not buy: the simulation could buy this token but not sell it back.',
  'not-buyable': 'Trading is not open: buys revert. Check again when the owner enables trading.',
  'transfer-blocked':
    'Tokens cannot be moved between wallets: you may be unable to exit to another address.',
  'sell-tax': 'Selling costs a large share of the proceeds; account for the tax before trading.',
  'buy-tax': 'Buying costs a share of the tokens; account for the tax before trading.',
  'admin:mint': 'The supply is not fixed: an admin can mint and dilute holders.',
  'admin:balance-change': 'An admin can rewrite balances, including yours.',
  'admin:burn-from': 'An admin can destroy tokens held by others.',
  'admin:blacklist': 'An admin can freeze any wallet, yours included.',
  'admin:pause': 'An admin can stop all transfers at any time.',
  'admin:fee': 'An admin can change the tax; it may be raised after you buy.',
  'admin:trading-switch': 'An admin controls whether trading is open.',
  'admin-powers':
    'An admin keeps power over your tokens: the risk is at least medium, whatever else looks good.',
  'hidden-owner':
    'Privileges survive behind an address owner() does not show: treat the contract as owned.',
  proxy: 'The contract is upgradeable: its rules can change without notice.',
  hook_can_change_swaps:
    "The pool's hook can be changed by its owner: swaps may be taxed or refused after you buy.",
  'hook-creator-exempt': "The pool's hook favours the creator: you do not trade on the same terms.",
  'hook-invalid': "The pool's hook cannot work: do not trade through this pool.",
  'honeypot-clone': 'This code matches earlier honeypots.',
  'liquidity-unlocked': 'The liquidity is not locked: it can be withdrawn at any moment.',
  'creator-reputation': "Check the creator's earlier tokens.",
  'holders:creator': 'The creator can dump a large share of the supply on buyers at any time.',
  'holders:owner': 'The owner can dump a large share of the supply on buyers at any time.',
  'holders:concentration': 'A few wallets hold most of the supply: one sale can crash the price.',
  'holders:lp-creator': 'The creator holds the liquidity: it can be withdrawn at any moment.',
  'holders:sells-failed': 'Some holders cannot sell: check whether your wallet could be next.',
  'holders:siphon': 'Tokens disappear from wallets without their owners moving them.',
  impersonation:
    'This is not the well-known token it is named after: check the contract address before buying.',
  'code:selfdestruct': 'The contract can be destroyed, taking every balance with it.',
  'code:external-call':
    'Transfers depend on a contract the owner can swap: their rules can change.',
};

const ALERT_CODES = new Set([
  'honeypot',
  'hidden-owner',
  'admin:balance-change',
  'admin:burn-from',
  'honeypot-clone',
  'holders:siphon',
  'impersonation',
]);

/** Factors that are themselves an execution: a trade, a sell, a hook's swap, a call that succeeded. */
const OBSERVED =
  /^(honeypot$|not-buyable$|transfer-blocked$|max-tx-detected$|holders:sells-failed$|hook|hidden-owner$)/;

/** The proof of a factor no execution of a power stands behind (docs/risk-model.md). */
function defaultProof(f: RiskFactor): Proof {
  if (OBSERVED.test(f.code))
    return { status: 'observed', detail: 'the finding is itself the outcome of an eth_call' };
  if (f.code === 'admin-powers')
    return {
      status: 'not-executable',
      detail: 'the level floor of the admin powers listed in their own factors, with their proofs',
    };
  return {
    status: 'not-executable',
    detail: 'a fact of the code, the chain or the market that no call can show',
  };
}

export function assessRisk(input: RiskInput): RiskAssessment {
  let factors = [
    ...simulationFactors(input.simulation),
    ...hookFactors(input.simulation),
    ...capabilityFactors(input),
    ...contextFactors(input),
    ...holderFactors(input),
  ];
  if (input.trusted) {
    factors = factors.map((f) =>
      CAPABILITY_CODES.test(f.code) && f.points > 0
        ? {
            ...f,
            points: 0,
            severity: 'info' as const,
            message: `${f.message} (trusted token: capability not scored)`,
          }
        : f,
    );
  }
  const floor = levelFloorFactor(
    input,
    factors.reduce((s, f) => s + f.points, 0),
  );
  if (floor) factors.push(floor);
  const sum = factors.reduce((s, f) => s + f.points, 0);
  const honeypot = factors.some((f) => f.code === 'honeypot');
  const score = honeypot
    ? Math.min(100, Math.max(HONEYPOT_MIN_SCORE, sum))
    : Math.max(0, Math.min(NON_HONEYPOT_MAX_SCORE, Math.round(sum)));
  const scored = factors.filter((f) => f.points > 0);
  const insights = [
    ...new Set(scored.map((f) => INSIGHTS[f.code]).filter((s): s is string => s !== undefined)),
  ];
  const alerts = scored
    .filter((f) => ALERT_CODES.has(f.code) || f.severity === 'critical')
    .map((f) => f.message);
  factors.sort((a, b) => b.points - a.points);
  factors = factors.map((f) => (f.proof ? f : { ...f, proof: defaultProof(f) }));
  return {
    score,
    level: riskLevelOf(score),
    risk_factors: factors,
    actionable_insights: insights,
    alerts: [...new Set(alerts)],
  };
}
