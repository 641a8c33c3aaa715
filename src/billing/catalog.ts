import type { Plan } from '../plans.ts';

/**
 * What this installation sells (docs/operations.md, billing): BASIC and PRO, monthly or annual,
 * each one price of the payment processor (STRIPE_PRICE_<PLAN>_<PERIOD>). Prices are the
 * processor's; the service keeps only their ids.
 */

export const PAID_PLANS = ['BASIC', 'PRO'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];
export const BILLING_PERIODS = ['monthly', 'annual'] as const;
export type BillingPeriod = (typeof BILLING_PERIODS)[number];

/** A first subscription starts with this many days of trial, once per account. */
export const CHECKOUT_TRIAL_DAYS = 7;

export type PriceIds = Record<PaidPlan, Record<BillingPeriod, string>>;

export interface BillingConfig {
  secretKey: string;
  webhookSecret: string;
  prices: PriceIds;
  /** Another address for the processor's API (a local server in tests); absent: the processor's own. */
  apiUrl?: string;
}

/** The variable that names each price. */
export const priceVariable = (plan: PaidPlan, period: BillingPeriod) =>
  `STRIPE_PRICE_${plan}_${period.toUpperCase()}`;

export interface PricedPlan {
  plan: PaidPlan;
  period: BillingPeriod;
  priceId: string;
}

export function pricedPlans(prices: PriceIds): PricedPlan[] {
  return PAID_PLANS.flatMap((plan) =>
    BILLING_PERIODS.map((period) => ({ plan, period, priceId: prices[plan][period] })),
  );
}

/** The plan and period a price id stands for; undefined: a price this installation does not sell. */
export function planOfPrice(
  prices: PriceIds,
  priceId: string | null | undefined,
): { plan: Plan; period: BillingPeriod } | undefined {
  const found = pricedPlans(prices).find((p) => p.priceId === priceId);
  return found ? { plan: found.plan, period: found.period } : undefined;
}
