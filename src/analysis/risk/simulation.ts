import type { Evidence, RiskFactor, TradingSimulation } from '../types.ts';
import { type RiskInput, severityOf, tier, WEIGHTS } from './weights.ts';

/** Risk factors from the trade simulation: honeypot, not buyable, blocked transfers, taxes, max tx. */

export function simulationFactors(sim: RiskInput['simulation']): RiskFactor[] {
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
