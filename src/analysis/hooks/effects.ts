import { decodeRevert, type V4Outcome, type V4Run, type V4Test } from '../simulation/index.ts';
import type { CreatorRun, HookEffects } from './report.ts';

/**
 * What a V4 pool's hook did in the simulated trades: the stranger's buys and sells compared with
 * the same swaps quoted with the hook switched off (its share of each), reverts that came from the
 * hook (the PoolManager wraps them with the hook's address), and the creator's own run.
 */

/** A creator's fee counts as lower only by more than this (rounding, price impact). */
const FEE_DIFFERENCE_PCT = 1;

const pct = (lost: bigint, of: bigint): number | null => {
  if (of <= 0n) return null;
  const clamped = lost < 0n ? 0n : lost > of ? of : lost;
  return Number((clamped * 10_000n + of / 2n) / of) / 100;
};
const maxOf = (xs: (number | null)[]) => {
  const present = xs.filter((x): x is number => x !== null);
  return present.length === 0 ? null : Math.max(...present);
};

type Ran = Extract<V4Outcome, { raw: unknown }>;
const ran = (run: V4Run | null): Ran[] => (run?.outcomes ?? []).filter((o): o is Ran => 'raw' in o);

/** A revert from `hook` (wrapped by the PoolManager, or its invalid answer), decoded; else null. */
function fromHook(revertData: string, hook: string): string | null {
  const reason = decodeRevert(revertData);
  return reason.startsWith(`hook ${hook} `) || reason.startsWith('the hook gave no valid answer')
    ? reason
    : null;
}

const buyFee = (o: Ran) =>
  o.raw.buy.ok ? pct(o.raw.buyExpected - o.buySwapOut, o.raw.buyExpected) : null;
const sellFee = (o: Ran) =>
  o.raw.sell.ok ? pct(o.raw.sellExpectedEth - o.sellSwapOut, o.raw.sellExpectedEth) : null;

function creatorRun(run: V4Run | null): CreatorRun | null {
  if (!run) return null;
  const first = ran(run)[0];
  if (!first) {
    const failed = run.outcomes.find(
      (o): o is Extract<V4Outcome, { error: string }> => 'error' in o,
    );
    return { sell_ok: false, sell_fee_pct: null, error: failed?.error ?? null };
  }
  const ok = first.raw.buy.ok && first.raw.sell.ok;
  const error = !first.raw.buy.ok
    ? decodeRevert(first.raw.buy.revertData)
    : !first.raw.sell.ok
      ? decodeRevert(first.raw.sell.revertData)
      : null;
  return { sell_ok: ok, sell_fee_pct: sellFee(first), error };
}

function findingsOf(e: Omit<HookEffects, 'findings'>, hook: string): string[] {
  const out: string[] = [];
  if (e.swaps_blocked) out.push(`The hook ${hook} reverted every buy: ${e.revert}.`);
  if (e.sells_blocked) out.push(`The hook ${hook} reverted a stranger's sell: ${e.revert}.`);
  if (e.buy_fee_pct) out.push(`The hook took ${e.buy_fee_pct}% of a buy's output.`);
  if (e.sell_fee_pct) out.push(`The hook took ${e.sell_fee_pct}% of a sell's output.`);
  if (e.creator && e.treats_creator_differently)
    out.push(
      e.creator.sell_ok
        ? `The creator's own sell went through${e.creator.sell_fee_pct ? ` (hook fee ${e.creator.sell_fee_pct}%)` : ''}: the hook treats its creator differently.`
        : 'The creator is treated differently by the hook.',
    );
  if (out.length === 0)
    out.push('The hook let every simulated buy and sell through without taking a share.');
  return out;
}

export function hookEffects(test: V4Test, hook: string): HookEffects {
  const outcomes = ran(test.run);
  const buyReverts = outcomes
    .filter((o) => !o.raw.buy.ok)
    .map((o) => fromHook(o.raw.buy.revertData, hook));
  const sellReverts = outcomes
    .filter((o) => o.raw.buy.ok && !o.raw.sell.ok)
    .map((o) => fromHook(o.raw.sell.revertData, hook));
  const bought = outcomes.some((o) => o.raw.buy.ok);
  const swapsBlocked = outcomes.length > 0 && !bought && buyReverts.some((r) => r !== null);
  const sellsBlocked = sellReverts.some((r) => r !== null);
  const revert = [...buyReverts, ...sellReverts].find((r) => r !== null) ?? null;
  const sellFeePct = maxOf(outcomes.map(sellFee));
  const creator = creatorRun(test.creatorRun);
  // Only what the hook did counts: a token that spares its creator its own tax is not the hook.
  const treatsCreatorDifferently =
    creator?.sell_ok === true &&
    (sellsBlocked ||
      swapsBlocked ||
      (sellFeePct !== null && (creator.sell_fee_pct ?? 0) + FEE_DIFFERENCE_PCT < sellFeePct));
  const effects = {
    swaps_blocked: swapsBlocked,
    sells_blocked: sellsBlocked,
    buy_fee_pct: maxOf(outcomes.map(buyFee)),
    sell_fee_pct: sellFeePct,
    revert,
    creator,
    treats_creator_differently: treatsCreatorDifferently,
  };
  return { ...effects, findings: findingsOf(effects, hook) };
}
