import type { Evidence, RiskFactor } from '../types.ts';
import type { HolderRiskFacts } from './holder-facts.ts';
import { type RiskInput, severityOf, tier, WEIGHTS } from './weights.ts';

/**
 * Risk factors from who holds the token, how real holders' sells went, what the token pretends to
 * be and what its code can do beyond the admin catalog (docs/risk-model.md, "Holders",
 * "Look-alikes", "Code facts"). Each carries its evidence: addresses, shares, the block.
 */

const at = (block: number | null) => (block === null ? '' : ` at block ${block}`);
const short = (xs: readonly Evidence[], max = 5) => xs.slice(0, max);

function shareFactors(facts: NonNullable<HolderRiskFacts['holders']>): RiskFactor[] {
  const out: RiskFactor[] = [];
  const creatorPoints =
    facts.creator_percent === null ? 0 : tier(facts.creator_percent, WEIGHTS.creatorShare);
  if (creatorPoints > 0)
    out.push({
      code: 'holders:creator',
      points: creatorPoints,
      severity: severityOf(creatorPoints),
      message: `The creator still holds ${facts.creator_percent}% of the supply`,
      evidence: [
        {
          kind: 'holders',
          detail: `creator ${facts.creator}: ${facts.creator_percent}% of the supply${at(facts.block)}`,
        },
      ],
    });
  const ownerPoints =
    facts.owner_percent === null || facts.owner === facts.creator
      ? 0
      : tier(facts.owner_percent, WEIGHTS.creatorShare);
  if (ownerPoints > 0)
    out.push({
      code: 'holders:owner',
      points: ownerPoints,
      severity: severityOf(ownerPoints),
      message: `The owner holds ${facts.owner_percent}% of the supply`,
      evidence: [
        {
          kind: 'holders',
          detail: `owner ${facts.owner}: ${facts.owner_percent}% of the supply${at(facts.block)}`,
        },
      ],
    });
  // Concentration beyond what the creator's and owner's own shares already scored.
  const concentration = tier(facts.top10_outside_pools_percent, WEIGHTS.top10Concentration);
  const extra = concentration - Math.max(creatorPoints, ownerPoints);
  if (concentration > 0)
    out.push({
      code: 'holders:concentration',
      points: Math.max(0, extra),
      severity: severityOf(concentration),
      message: `The 10 largest holders outside pools hold ${facts.top10_outside_pools_percent}% of the supply`,
      evidence: [
        {
          kind: 'holders',
          detail: `top 10 of ${facts.holder_count} holders, pools, lockers and burn addresses aside: ${facts.top10_outside_pools_percent}%${at(facts.block)}`,
        },
      ],
    });
  return out;
}

function lpFactors(facts: HolderRiskFacts): RiskFactor[] {
  const held = facts.lp.filter((p) => p.creator_percent >= WEIGHTS.lpCreator[0]);
  if (held.length === 0) return [];
  const points = WEIGHTS.lpCreator[1];
  return [
    {
      code: 'holders:lp-creator',
      points,
      severity: severityOf(points),
      message: `The creator holds the LP tokens of ${held.length === 1 ? 'the pool' : `${held.length} pools`}: the liquidity can be pulled at will`,
      evidence: held.map((p) => ({
        kind: 'holders' as const,
        detail: `pair ${p.pair_address}: creator ${p.creator_percent}% of the LP tokens, locked ${p.locked_percent}%, burned ${p.burned_percent}%`,
      })),
    },
  ];
}

function sellFactors(input: RiskInput, sells: NonNullable<HolderRiskFacts['sells']>): RiskFactor[] {
  const out: RiskFactor[] = [];
  const freshSells = input.simulation?.is_sellable === true && !input.simulation.is_honeypot;
  if (sells.failed > 0) {
    const evidence: Evidence[] = short(
      sells.failures.map((f) => ({
        kind: 'simulation',
        detail: `eth_call${at(sells.block)}: a sell of the whole balance of ${f.address} failed (${f.reason})`,
      })),
    );
    const most = sells.failed / Math.max(1, sells.tried) >= WEIGHTS.holderSellsHoneypotShare;
    if (most && freshSells)
      out.push({
        code: 'honeypot',
        points: WEIGHTS.honeypot,
        severity: 'critical',
        message: `Real holders cannot sell: ${sells.failed} of ${sells.tried} holders' sells failed, while a fresh buyer can sell`,
        evidence,
      });
    else
      out.push({
        code: 'holders:sells-failed',
        points: WEIGHTS.holderSellsFailed,
        severity: severityOf(WEIGHTS.holderSellsFailed),
        message: `${sells.failed} of ${sells.tried} real holders cannot sell their tokens`,
        evidence,
      });
  }
  if (sells.siphoned.length > 0)
    out.push({
      code: 'holders:siphon',
      points: WEIGHTS.siphon,
      severity: severityOf(WEIGHTS.siphon),
      message: `Balances shrink without a transfer by their holder (${sells.siphoned.length} holder${sells.siphoned.length === 1 ? '' : 's'}): tokens are taken from wallets`,
      evidence: short(
        sells.siphoned.map((s) => ({
          kind: 'holders',
          detail: `${s.address}: the Transfer logs give ${s.tracked_balance}, balanceOf answers ${s.balance}${at(sells.block)}`,
        })),
      ),
    });
  return out;
}

/** Factors of holders, real holders' sells, a look-alike and the code facts. */
export function holderFactors(input: RiskInput): RiskFactor[] {
  const out: RiskFactor[] = [];
  const facts = input.holderFacts;
  const h = facts?.holders;
  // Before any pool the creator holds everything by nature: shares say something once it trades.
  const trading =
    h !== null && h !== undefined && (h.pools_percent > 0 || (facts?.lp.length ?? 0) > 0);
  if (h?.complete && trading) out.push(...shareFactors(h));
  if (facts) out.push(...lpFactors(facts));
  if (facts?.sells) out.push(...sellFactors(input, facts.sells));
  const look = input.lookalike;
  if (look)
    out.push({
      code: 'impersonation',
      points: WEIGHTS.impersonation,
      severity: severityOf(WEIGHTS.impersonation),
      message: `Pretends to be ${look.symbol}: the real ${look.symbol} of this chain is at ${look.canonical_address}`,
      evidence: [
        {
          kind: 'holders',
          detail: `${look.matched} "${look.matched === 'name' ? look.name : look.own_symbol}" matches ${look.symbol} (${look.canonical_address})`,
        },
      ],
    });
  const code = input.codeFacts;
  if (code?.selfdestruct)
    out.push({
      code: 'code:selfdestruct',
      points: WEIGHTS.selfdestruct,
      severity: severityOf(WEIGHTS.selfdestruct),
      message: 'The contract can destroy itself (reachable SELFDESTRUCT)',
      evidence: [{ kind: 'bytecode', detail: code.selfdestruct.detail }],
    });
  if (code?.external_call) {
    // The simple bytecode check only points at the possibility: reported, not scored.
    const points = code.external_call.source === 'static-analysis' ? WEIGHTS.externalCall : 0;
    out.push({
      code: 'code:external-call',
      points,
      severity: severityOf(points),
      message: 'Transfers call a contract the owner can replace',
      evidence: [{ kind: 'bytecode', detail: code.external_call.detail }],
    });
  }
  return out;
}
