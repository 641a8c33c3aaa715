import { hookCanChangeSwaps } from '../hooks/index.ts';
import type { Evidence, RiskFactor } from '../types.ts';
import { type RiskInput, WEIGHTS } from './weights.ts';

/**
 * Risk factors of a Uniswap V4 pool's hook (trading_simulation.hook): a hook that can never work,
 * one its owner can change (hook_can_change_swaps), and what it did in the simulated trades. A
 * blocked sell and a hook's fee are scored where they show, as the honeypot and the sell tax;
 * their factors here say that the hook did it, with its address.
 */

export function hookFactors(sim: RiskInput['simulation']): RiskFactor[] {
  const hook = sim?.hook;
  if (!hook) return [];
  const at = `hook ${hook.address} (permissions ${hook.permissions.join(', ') || 'none'}; pool ${hook.pool_id})`;
  const factors: RiskFactor[] = [];
  if (hook.problems.length > 0)
    factors.push({
      code: 'hook-invalid',
      points: WEIGHTS.hookInvalid,
      severity: 'medium',
      message: `The V4 pool's hook cannot work: ${hook.problems.join('; ')}`,
      evidence: hook.problems.map((p) => ({ kind: 'bytecode', detail: `${at}: ${p}` })),
    });
  if (hookCanChangeSwaps(hook)) {
    const control = hook.control!;
    const how = control.upgradeable
      ? 'it is an upgradeable proxy'
      : `${control.owner_settings.length} privileged function(s) set state its swap callbacks read`;
    factors.push({
      code: 'hook_can_change_swaps',
      points: WEIGHTS.hookCanChangeSwaps,
      severity: 'medium',
      message: `The V4 pool's hook can be changed by its owner (${how}): swaps can be taxed or refused later`,
      evidence: control.evidence,
    });
  }
  const effects = hook.effects;
  if (!effects) return factors;
  const simulated = (detail: string): Evidence => ({
    kind: 'simulation',
    detail: `${at}: ${detail}`,
  });
  if (effects.swaps_blocked || effects.sells_blocked)
    factors.push({
      code: effects.swaps_blocked ? 'hook-blocks-swaps' : 'hook-blocks-sells',
      // Scored as not-buyable or honeypot, where the simulation shows it.
      points: 0,
      severity: effects.swaps_blocked ? 'high' : 'critical',
      message: effects.swaps_blocked
        ? 'The V4 pool cannot be traded: its hook reverts every swap'
        : "The V4 pool's hook refuses sells",
      evidence: [simulated(effects.revert ?? 'reverted'), ...effects.findings.map(simulated)],
    });
  if (effects.treats_creator_differently)
    factors.push({
      code: 'hook-creator-exempt',
      points: WEIGHTS.hookCreatorExempt,
      severity: 'high',
      message: "The V4 pool's hook treats the token's creator differently from other traders",
      evidence: effects.findings.map(simulated),
    });
  if ((effects.buy_fee_pct ?? 0) > 0 || (effects.sell_fee_pct ?? 0) > 0)
    factors.push({
      code: 'hook-fee',
      // Counted in the measured buy and sell taxes.
      points: 0,
      severity: 'info',
      message: `The V4 pool's hook takes ${effects.buy_fee_pct ?? 0}% of buys and ${effects.sell_fee_pct ?? 0}% of sells (part of the measured taxes)`,
      evidence: [
        simulated(
          `buy share ${effects.buy_fee_pct}%, sell share ${effects.sell_fee_pct}% of the pool's own output`,
        ),
      ],
    });
  return factors;
}
