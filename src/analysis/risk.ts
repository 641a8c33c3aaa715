import type { BehaviourFinding } from './behaviour.ts';
import {
  allAdminFunctions,
  grantsPower,
  hiddenOwnerProof,
  isLive,
  isRealRenounce,
  POWER_OF,
} from './privilege.ts';
import type {
  AdminFamily,
  AdminFunction,
  Evidence,
  RiskAssessment,
  RiskFactor,
  StaticAnalysis,
  TradingSimulation,
} from './types.ts';
import { riskLevelOf } from './types.ts';

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

export const HONEYPOT_MIN_SCORE = 91;
export const NON_HONEYPOT_MAX_SCORE = 90;

/** Points per admin family when someone can still call the function. */
export const FAMILY_POINTS: Record<AdminFamily, number> = {
  'balance-change': 35,
  'burn-from': 30,
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
  simulation: (TradingSimulation & { honeypot_reason?: string | null }) | null;
  liquidity?: LiquidityInput | null;
  creator?: CreatorInput | null;
  /** Earlier tokens judged honeypots whose skeleton hash equals this token's. */
  similarHoneypots: number;
}

const functionEvidence = (fn: AdminFunction): Evidence[] =>
  fn.evidence.length > 0
    ? fn.evidence
    : [
        {
          kind: 'function',
          selector: fn.selector,
          detail: `${fn.signature} (0x${fn.selector}) is ${fn.access_control}`,
        },
      ];

const tier = (value: number, table: readonly (readonly [number, number])[]) =>
  table.find(([at]) => value >= at)?.[1] ?? 0;
const severityOf = (points: number): RiskFactor['severity'] =>
  points >= 40
    ? 'critical'
    : points >= 20
      ? 'high'
      : points >= 10
        ? 'medium'
        : points > 0
          ? 'low'
          : 'info';

function simulationFactors(sim: RiskInput['simulation']): RiskFactor[] {
  const factors: RiskFactor[] = [];
  if (!sim || sim.error !== null) {
    const why = sim?.error ?? 'not simulated yet';
    factors.push({
      code: 'simulation-unavailable',
      points: WEIGHTS.noSimulation,
      severity: 'low',
      message: `Trading could not be simulated (${why}); it is simulated again when liquidity appears`,
      evidence: [{ kind: 'simulation', detail: why }],
    });
    return factors;
  }
  const amountEvidence = (pred: (a: TradingSimulation['amounts'][number]) => boolean): Evidence[] =>
    sim.amounts.filter(pred).map((a) => ({
      kind: 'simulation',
      detail: `${a.amount_in_wei} wei: ${a.error ?? `buy tax ${a.buy_tax_pct}%, sell tax ${a.sell_tax_pct}%`}`,
    }));
  if (sim.is_honeypot) {
    factors.push({
      code: 'honeypot',
      points: WEIGHTS.honeypot,
      severity: 'critical',
      message: `Honeypot: ${sim.honeypot_reason ?? 'bought tokens cannot be sold'}`,
      evidence: [
        { kind: 'simulation', detail: sim.honeypot_reason ?? 'sell failed after a successful buy' },
        ...amountEvidence((a) => a.buy_ok && (!a.sell_ok || (a.sell_tax_pct ?? 0) >= 90)),
      ],
    });
  }
  if (sim.is_buyable === false) {
    factors.push({
      code: 'not-buyable',
      points: WEIGHTS.notBuyable,
      severity: 'high',
      message:
        'Buying reverts at every amount: trading is restricted (not enabled, paused or gated)',
      evidence: amountEvidence(() => true),
    });
  }
  const blockedTransfers = sim.amounts.filter(
    (a) => a.buy_ok && !a.transfer_ok && a.error?.startsWith('transfer'),
  );
  if (blockedTransfers.length > 0) {
    factors.push({
      code: 'transfer-blocked',
      points: WEIGHTS.transferBlocked,
      severity: 'medium',
      message: 'Bought tokens cannot be transferred to another wallet',
      evidence: amountEvidence((a) => blockedTransfers.includes(a)),
    });
  }
  const taxes = [
    ['sell-tax', 'Sell', sim.sell_tax_pct, WEIGHTS.sellTax],
    ['buy-tax', 'Buy', sim.buy_tax_pct, WEIGHTS.buyTax],
    ['transfer-tax', 'Transfer', sim.transfer_tax_pct, WEIGHTS.transferTax],
  ] as const;
  for (const [code, label, value, table] of taxes) {
    if (value === null || value <= 0) continue;
    // A honeypot's punitive sell tax is already the honeypot factor.
    const points = code === 'sell-tax' && sim.is_honeypot ? 0 : tier(value, table);
    factors.push({
      code,
      points,
      severity: severityOf(points),
      message: `${label} tax ${value}% (measured)`,
      evidence: [
        {
          kind: 'simulation',
          detail: `${label.toLowerCase()} tax ${value}% at the worst of ${sim.amounts.length} simulated amounts`,
        },
      ],
    });
  }
  if (sim.max_tx_amount !== null) {
    factors.push({
      code: 'max-tx-detected',
      points: WEIGHTS.maxTxDetected,
      severity: 'low',
      message: `Buys above ${sim.max_tx_amount} token units revert (max tx or max wallet limit)`,
      evidence: [
        {
          kind: 'simulation',
          detail: `largest buy that succeeded returned ${sim.max_tx_amount} units; larger buys reverted`,
        },
        ...amountEvidence((a) => !a.buy_ok),
      ],
    });
  }
  return factors;
}

function capabilityFactors(input: RiskInput): RiskFactor[] {
  const factors: RiskFactor[] = [];
  const ownership = input.static?.ownership ?? null;
  const functions = allAdminFunctions(input);
  const proof = hiddenOwnerProof(input);
  const byFamily = new Map<AdminFamily, { fns: AdminFunction[]; points: number }>();
  const allowanceBurns: AdminFunction[] = [];
  for (const fn of functions) {
    if (!isLive(fn, ownership, proof)) continue;
    if (!grantsPower(fn)) {
      allowanceBurns.push(fn);
      continue;
    }
    const full = FAMILY_POINTS[fn.family];
    const points =
      fn.access_control === 'unknown' ? Math.round(full * WEIGHTS.unknownAccessShare) : full;
    const entry = byFamily.get(fn.family) ?? { fns: [], points: 0 };
    entry.fns.push(fn);
    entry.points = Math.max(entry.points, points);
    byFamily.set(fn.family, entry);
  }
  for (const [family, { fns, points }] of byFamily) {
    // Ownership transfer and renounce are no power over holders: nothing to report.
    if (FAMILY_POINTS[family] === 0) continue;
    const who = [...new Set(fns.map((f) => f.access_control))].join('/');
    factors.push({
      code: `admin:${family}`,
      points,
      severity: severityOf(points),
      message: `${family} function${fns.length > 1 ? 's' : ''} ${fns.map((f) => f.signature).join(', ')} callable (${who})`,
      evidence: fns.flatMap(functionEvidence),
    });
  }
  if (allowanceBurns.length > 0) {
    factors.push({
      code: 'allowance-burn',
      points: 0,
      severity: 'info',
      message:
        `${allowanceBurns.map((f) => f.signature).join(', ')} spends the holder's allowance ` +
        '(ERC20Burnable): no power over other holders',
      evidence: allowanceBurns.flatMap(functionEvidence),
    });
  }
  if (proof) {
    const fake = ownership?.renounced === true;
    factors.push({
      code: 'hidden-owner',
      points: WEIGHTS.hiddenOwner,
      severity: 'high',
      message: fake
        ? `Fake renounce: ${proof.address} keeps admin powers`
        : `${proof.address}, which owner() does not name, can call admin functions`,
      evidence: proof.evidence,
    });
  }
  const dead = functions.filter((fn) => !isLive(fn, ownership, proof));
  if (isRealRenounce(ownership, proof)) {
    factors.push({
      code: 'ownership-renounced',
      points: WEIGHTS.renounced,
      severity: 'info',
      message: `Ownership renounced${dead.length > 0 ? `: ${dead.map((f) => f.signature).join(', ')} can no longer be called` : ''}`,
      evidence:
        ownership!.evidence.length > 0
          ? ownership!.evidence
          : [{ kind: 'storage', detail: `owner is ${ownership!.owner ?? 'zero'}` }],
    });
  }
  const proxy = input.static?.proxy;
  if (proxy?.is_proxy) {
    factors.push({
      code: 'proxy',
      points: WEIGHTS.proxy,
      severity: severityOf(WEIGHTS.proxy),
      message: `Proxy (${proxy.kind ?? 'unknown kind'}) delegating to ${proxy.implementation ?? 'an unknown implementation'}: the code can change`,
      evidence:
        proxy.evidence.length > 0
          ? proxy.evidence
          : [{ kind: 'bytecode', detail: `proxy kind ${proxy.kind}` }],
    });
  }
  const template = input.static?.template;
  if (template) {
    const points = TEMPLATE_POINTS[template] ?? 0;
    factors.push({
      code: 'template',
      points,
      severity: severityOf(points),
      message: `Built from the ${template} template`,
      evidence: [{ kind: 'bytecode', detail: `template ${template}` }],
    });
  }
  if (input.similarHoneypots > 0) {
    const [many, manyPoints] = WEIGHTS.honeypotCloneMany;
    const points = input.similarHoneypots >= many ? manyPoints : WEIGHTS.honeypotClone;
    factors.push({
      code: 'honeypot-clone',
      points,
      severity: severityOf(points),
      message: `Same code skeleton as ${input.similarHoneypots} token${input.similarHoneypots > 1 ? 's' : ''} judged honeypot${input.similarHoneypots > 1 ? 's' : ''}`,
      evidence: [
        {
          kind: 'history',
          detail: `skeleton ${input.static?.skeleton_hash ?? '?'} shared with ${input.similarHoneypots} honeypot(s)`,
        },
      ],
    });
  }
  return factors;
}

function contextFactors(input: RiskInput): RiskFactor[] {
  const factors: RiskFactor[] = [];
  const liq = input.liquidity;
  if (liq) {
    if (liq.usd !== null) {
      const [veryLow, veryLowPoints] = WEIGHTS.liquidityUsdVeryLow;
      const [low, lowPoints] = WEIGHTS.liquidityUsdLow;
      const points = liq.usd < veryLow ? veryLowPoints : liq.usd < low ? lowPoints : 0;
      if (points > 0)
        factors.push({
          code: 'liquidity-low',
          points,
          severity: severityOf(points),
          message: `Liquidity only $${liq.usd.toFixed(0)}`,
          evidence: [{ kind: 'liquidity', detail: `pool liquidity $${liq.usd.toFixed(2)}` }],
        });
    }
    if (liq.locked_pct !== null || liq.burned_pct !== null) {
      const secured = (liq.locked_pct ?? 0) + (liq.burned_pct ?? 0);
      const detail = `LP locked ${liq.locked_pct ?? 0}%, burned ${liq.burned_pct ?? 0}%${liq.lockers.length ? ` (lockers: ${liq.lockers.join(', ')})` : ''}`;
      const [lockedAt, lockedPoints] = WEIGHTS.liquidityLocked;
      const [unlockedBelow, unlockedPoints] = WEIGHTS.liquidityUnlocked;
      if (secured >= lockedAt)
        factors.push({
          code: 'liquidity-locked',
          points: lockedPoints,
          severity: 'info',
          message: `Liquidity ${secured}% locked or burned`,
          evidence: [{ kind: 'liquidity', detail }],
        });
      else if (secured < unlockedBelow)
        factors.push({
          code: 'liquidity-unlocked',
          points: unlockedPoints,
          severity: 'medium',
          message: `Only ${secured}% of the liquidity is locked or burned: it can be pulled`,
          evidence: [{ kind: 'liquidity', detail }],
        });
    }
  }
  const creator = input.creator;
  if (creator && creator.reputation_score !== null) {
    const score = creator.reputation_score;
    const decided = creator.success_count + creator.scam_count;
    const [bad, badPoints] = WEIGHTS.creatorBad;
    const [poor, poorPoints] = WEIGHTS.creatorPoor;
    const [good, goodPoints] = WEIGHTS.creatorGood;
    const points =
      score <= bad
        ? badPoints
        : score <= poor
          ? poorPoints
          : score >= good && decided >= WEIGHTS.creatorGoodMinTokens
            ? goodPoints
            : 0;
    factors.push({
      code: 'creator-reputation',
      points,
      severity: severityOf(points),
      message: `Creator reputation ${score}/100 (${creator.scam_count} scam, ${creator.success_count} successful of ${creator.total_tokens} tokens)`,
      evidence: [
        {
          kind: 'creator',
          detail: `creator ${creator.address}: ${creator.total_tokens} tokens, ${creator.scam_count} scams, ${creator.success_count} successes`,
        },
      ],
    });
  }
  return factors;
}

/** Factors that are capability, not behaviour: zeroed for trusted tokens. */
const CAPABILITY_CODES =
  /^(admin:|hidden-owner$|proxy$|template$|honeypot-clone$|creator-reputation$|liquidity-)/;

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
  'honeypot-clone': 'This code matches earlier honeypots.',
  'liquidity-unlocked': 'The liquidity is not locked: it can be withdrawn at any moment.',
  'creator-reputation': "Check the creator's earlier tokens.",
};

const ALERT_CODES = new Set([
  'honeypot',
  'hidden-owner',
  'admin:balance-change',
  'admin:burn-from',
  'honeypot-clone',
]);

/**
 * The floor under the level: live privileged powers over holders (owner-only or role, not dead
 * by a real renounce) counted once per kind. Returned as a factor carrying the difference, so
 * that the score stays the sum of its factors and says why it was raised.
 */
function levelFloorFactor(input: RiskInput, sum: number): RiskFactor | null {
  if (input.trusted) return null;
  const ownership = input.static?.ownership ?? null;
  const proof = hiddenOwnerProof(input);
  const powers = new Map<string, AdminFunction[]>();
  for (const fn of allAdminFunctions(input)) {
    const power = POWER_OF[fn.family];
    const privileged = fn.access_control === 'owner-only' || fn.access_control === 'role';
    if (!power || !privileged || !isLive(fn, ownership, proof) || !grantsPower(fn)) continue;
    powers.set(power, [...(powers.get(power) ?? []), fn]);
  }
  if (powers.size === 0) return null;
  const floor = powers.size >= 2 ? LEVEL_FLOORS.twoPowers : LEVEL_FLOORS.onePower;
  if (sum >= floor) return null;
  const level = riskLevelOf(floor);
  return {
    code: 'admin-powers',
    points: floor - sum,
    severity: level === 'high' ? 'high' : 'medium',
    message:
      `Live admin power${powers.size > 1 ? 's' : ''} over holders ` +
      `(${[...powers.keys()].join(', ')}): at least ${level} risk`,
    evidence: [...powers.values()].flat().flatMap(functionEvidence),
  };
}

export function assessRisk(input: RiskInput): RiskAssessment {
  let factors = [
    ...simulationFactors(input.simulation),
    ...capabilityFactors(input),
    ...contextFactors(input),
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
  return {
    score,
    level: riskLevelOf(score),
    risk_factors: factors,
    actionable_insights: insights,
    alerts: [...new Set(alerts)],
  };
}
