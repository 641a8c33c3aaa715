import type { RiskFactor } from '../types.ts';
import { type RiskInput, severityOf, WEIGHTS } from './weights.ts';

/** Risk factors from the token's context: its liquidity and its creator's record. */

export function contextFactors(input: RiskInput): RiskFactor[] {
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
