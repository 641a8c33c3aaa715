/**
 * Plans and account states (docs/api.md, plans). Pure functions: the stored plan says what was sold, the
 * effective plan what the caller gets right now. A trial that has ended, or a payment that failed
 * more than the grace period ago, is FREE at once, before the scheduled job records the downgrade.
 */

export const PLANS = ['FREE', 'BASIC', 'PRO'] as const;
export type Plan = (typeof PLANS)[number];

export const DAY_MS = 86_400_000;
export const TRIAL_DAYS = 7;
/** A failed payment leaves the paid plan in place this long. */
export const PAYMENT_GRACE_DAYS = 3;
/** Watchlist and preferences survive a downgrade this long. */
export const PURGE_AFTER_DAYS = 30;
/**
 * A trial that converts by itself (the payment processor charges the card on file at its end)
 * waits this long past its end for the processor's word before it lapses like any trial: the
 * charge and its webhook come within the hour, so an ordinary delay never looks like a downgrade.
 */
export const TRIAL_SETTLE_DAYS = 1;

export interface PlanFeatures {
  /** current_risk_score / current_risk_level and the risk filters. */
  risk: boolean;
  watchlist: boolean;
  creators: boolean;
  /** The /api/pro operations and API keys. */
  pro_api: boolean;
  api_keys: boolean;
  /** Concurrent WebSocket connections (0: refused). */
  ws_connections: number;
}

export const PLAN_FEATURES: Record<Plan, PlanFeatures> = {
  FREE: {
    risk: false,
    watchlist: false,
    creators: false,
    pro_api: false,
    api_keys: false,
    ws_connections: 0,
  },
  BASIC: {
    risk: true,
    watchlist: true,
    creators: true,
    pro_api: false,
    api_keys: false,
    ws_connections: 1,
  },
  PRO: {
    risk: true,
    watchlist: true,
    creators: true,
    pro_api: true,
    api_keys: true,
    ws_connections: 10,
  },
};

/** The features an API key object lists, each an operation of docs/api.md: the complete object, history, bulk and export. */
export const PRO_KEY_FEATURES = [
  'complete_data_access',
  'historical_data',
  'bulk_operations',
  'data_export',
] as const;

export const DEFAULT_KEY_LIMITS = {
  requests_per_minute: 10,
  requests_per_hour: 100,
  requests_per_day: 1000,
} as const;

export interface AccountState {
  plan: string;
  trialEndsAt: Date | null;
  paymentFailedAt: Date | null;
  /** The trial becomes the paid plan at its end unless the processor says otherwise. */
  trialConverts?: boolean;
  /** The paid plan ends then (cancelled at the end of its period); null or absent: it renews. */
  planEndsAt?: Date | null;
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function trialExpired(user: AccountState, now: Date): boolean {
  if (user.trialEndsAt === null) return false;
  const settle = user.trialConverts ? TRIAL_SETTLE_DAYS * DAY_MS : 0;
  return user.trialEndsAt.getTime() + settle <= now.getTime();
}

export function planEnded(user: AccountState, now: Date): boolean {
  const end = user.planEndsAt ?? null;
  return end !== null && end.getTime() <= now.getTime();
}

export function paymentGraceOver(user: AccountState, now: Date): boolean {
  return (
    user.paymentFailedAt !== null &&
    user.paymentFailedAt.getTime() + PAYMENT_GRACE_DAYS * DAY_MS <= now.getTime()
  );
}

/** What the caller may use now. Unknown stored plans fall back to FREE. */
export function effectivePlan(user: AccountState, now: Date): Plan {
  if (!isPlan(user.plan) || user.plan === 'FREE') return 'FREE';
  if (trialExpired(user, now) || paymentGraceOver(user, now) || planEnded(user, now)) return 'FREE';
  return user.plan;
}

export const PLAN_STATES = [
  'active',
  'trialing',
  'trial_expired',
  'payment_failed',
  'cancelled',
  'downgraded',
] as const;
export type PlanState = (typeof PLAN_STATES)[number];

export function planState(
  user: AccountState & { downgradedAt: Date | null },
  now: Date,
): PlanState {
  if (user.plan !== 'FREE') {
    if (trialExpired(user, now)) return 'trial_expired';
    if (paymentGraceOver(user, now)) return 'payment_failed';
    if (planEnded(user, now)) return 'cancelled';
    if (user.paymentFailedAt) return 'payment_failed';
    if (user.trialEndsAt) return 'trialing';
    return 'active';
  }
  return user.downgradedAt ? 'downgraded' : 'active';
}

export function planAllows(plan: Plan, feature: keyof PlanFeatures): boolean {
  return Boolean(PLAN_FEATURES[plan][feature]);
}
