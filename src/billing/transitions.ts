import type { Plan } from '../plans.ts';
import { type BillingPeriod, type PriceIds, planOfPrice } from './catalog.ts';
import type { BillingEvent, SubscriptionAction, SubscriptionSnapshot } from './events.ts';

/**
 * From a webhook event to what changes (docs/operations.md, billing): pure, so that every
 * transition is decided in one place and tested without a database. Events arrive late, twice
 * and out of order; each kind carries its own clock: a subscription event older than the one
 * applied (by the processor's `created`, then by created < updated < deleted within one second)
 * and an invoice event older than the last one applied change nothing.
 */

/** A subscription that grants its plan (past_due: still, for the grace period). */
const LIVE_STATUSES = new Set(['trialing', 'active', 'past_due']);
/** A subscription that no longer grants anything. */
const ENDED_STATUSES = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused']);
const ACTION_RANK: Record<SubscriptionAction, number> = { created: 1, updated: 2, deleted: 3 };

export const isLiveSubscription = (status: string | null | undefined) =>
  status !== null && status !== undefined && LIVE_STATUSES.has(status);

/** The billing record of an account as stored (billing_customers). */
export interface BillingState {
  subscriptionId: string | null;
  subscriptionStatus: string | null;
  trialUsedAt: Date | null;
  subscriptionEventAt: Date | null;
  subscriptionEventRank: number;
  paymentEventAt: Date | null;
  paymentEventPaid: boolean | null;
}

/** The account's plan columns as stored. */
export interface AccountFacts {
  plan: string;
  trialEndsAt: Date | null;
  trialConverts: boolean;
  planEndsAt: Date | null;
  paymentFailedAt: Date | null;
}

export interface BillingUpdate {
  subscriptionId?: string | null;
  subscriptionStatus?: string | null;
  priceId?: string | null;
  plan?: string | null;
  period?: BillingPeriod | null;
  currentPeriodEnd?: Date | null;
  cancelAt?: Date | null;
  trialUsedAt?: Date | null;
  subscriptionEventAt?: Date;
  subscriptionEventRank?: number;
  paymentEventAt?: Date;
  paymentEventPaid?: boolean;
}

export type AccountChange =
  | { kind: 'none' }
  | {
      kind: 'plan';
      plan: Plan;
      trialEndsAt: Date | null;
      trialConverts: boolean;
      planEndsAt: Date | null;
      reason: string;
    }
  /** The first failed payment: the grace period starts. */
  | { kind: 'payment_failed' }
  /** A payment went through: the failure is forgotten, the plan kept as it is. */
  | { kind: 'payment_settled' };

export type Decision =
  | { kind: 'ignore'; outcome: string }
  | { kind: 'apply'; billing: BillingUpdate; account: AccountChange; outcome: string };

type Event<K extends BillingEvent['kind']> = Extract<BillingEvent, { kind: K }>;

const sameTime = (a: Date | null, b: Date | null) =>
  (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** An event older than the one applied, by time then (same subscription, same second) by action. */
function staleSubscriptionEvent(state: BillingState, event: Event<'subscription'>): boolean {
  if (!state.subscriptionEventAt) return false;
  const t = event.created.getTime();
  const at = state.subscriptionEventAt.getTime();
  if (t !== at) return t < at;
  return (
    state.subscriptionId === event.subscription.id &&
    ACTION_RANK[event.action] < state.subscriptionEventRank
  );
}

/** What the account should be, as of this snapshot; undefined: the snapshot says nothing about it. */
function desiredAccount(
  state: BillingState,
  account: AccountFacts,
  event: Event<'subscription'>,
  plan: Plan | undefined,
): AccountChange {
  const s = event.subscription;
  if (event.action === 'deleted' || ENDED_STATUSES.has(s.status)) {
    if (account.plan === 'FREE') return { kind: 'none' };
    return {
      kind: 'plan',
      plan: 'FREE',
      trialEndsAt: null,
      trialConverts: false,
      planEndsAt: null,
      reason: `subscription_${event.action === 'deleted' ? 'deleted' : s.status}`,
    };
  }
  // incomplete (the first payment is pending), or a price this installation does not sell.
  if (!LIVE_STATUSES.has(s.status) || plan === undefined) return { kind: 'none' };
  if (s.status === 'past_due')
    return account.plan === plan && !account.paymentFailedAt
      ? { kind: 'payment_failed' }
      : { kind: 'none' };
  // A failed payment newer than this snapshot stands: the snapshot is not the latest word.
  const failureIsNewer =
    account.paymentFailedAt !== null &&
    state.paymentEventPaid === false &&
    state.paymentEventAt !== null &&
    state.paymentEventAt.getTime() > event.created.getTime();
  if (failureIsNewer) return { kind: 'none' };
  const trialing = s.status === 'trialing' && s.trialEnd !== null;
  const target = {
    plan,
    trialEndsAt: trialing ? s.trialEnd : null,
    trialConverts: trialing && s.cancelAt === null,
    planEndsAt: s.cancelAt,
  };
  const unchanged =
    account.plan === target.plan &&
    sameTime(account.trialEndsAt, target.trialEndsAt) &&
    account.trialConverts === target.trialConverts &&
    sameTime(account.planEndsAt, target.planEndsAt) &&
    account.paymentFailedAt === null;
  if (unchanged) return { kind: 'none' };
  return { kind: 'plan', ...target, reason: `subscription_${s.status}` };
}

function decideSubscription(
  state: BillingState,
  account: AccountFacts,
  event: Event<'subscription'>,
  prices: PriceIds,
): Decision {
  const s: SubscriptionSnapshot = event.subscription;
  if (
    state.subscriptionId !== null &&
    state.subscriptionId !== s.id &&
    isLiveSubscription(state.subscriptionStatus)
  )
    return {
      kind: 'ignore',
      outcome: `ignored: another subscription (${state.subscriptionId}) is live`,
    };
  if (staleSubscriptionEvent(state, event))
    return { kind: 'ignore', outcome: 'ignored: older than the subscription state applied' };
  const priced = planOfPrice(prices, s.priceId);
  const billing: BillingUpdate = {
    subscriptionId: s.id,
    subscriptionStatus: event.action === 'deleted' ? 'canceled' : s.status,
    priceId: s.priceId,
    plan: priced?.plan ?? null,
    period: priced?.period ?? null,
    currentPeriodEnd: s.currentPeriodEnd,
    cancelAt: s.cancelAt,
    trialUsedAt: state.trialUsedAt ?? (s.trialEnd ? event.created : null),
    subscriptionEventAt: event.created,
    subscriptionEventRank: ACTION_RANK[event.action],
  };
  const account_ = desiredAccount(state, account, event, priced?.plan);
  const outcome =
    priced === undefined && isLiveSubscription(s.status)
      ? `applied: price ${s.priceId} is not sold here, plan unchanged`
      : 'applied';
  return { kind: 'apply', billing, account: account_, outcome };
}

function decidePayment(
  state: BillingState,
  account: AccountFacts,
  event: Event<'payment'>,
): Decision {
  if (
    state.subscriptionId !== null &&
    event.subscriptionId !== null &&
    event.subscriptionId !== state.subscriptionId
  )
    return { kind: 'ignore', outcome: 'ignored: invoice of another subscription' };
  if (state.paymentEventAt) {
    const t = event.created.getTime();
    const at = state.paymentEventAt.getTime();
    // Within one second a payment after a failure is the likely order, never the reverse.
    if (t < at || (t === at && !event.paid && state.paymentEventPaid === true))
      return { kind: 'ignore', outcome: 'ignored: older than the payment state applied' };
  }
  const billing: BillingUpdate = { paymentEventAt: event.created, paymentEventPaid: event.paid };
  let change: AccountChange = { kind: 'none' };
  if (event.paid && account.paymentFailedAt && account.plan !== 'FREE')
    change = { kind: 'payment_settled' };
  if (
    !event.paid &&
    isLiveSubscription(state.subscriptionStatus) &&
    account.plan !== 'FREE' &&
    !account.paymentFailedAt
  )
    change = { kind: 'payment_failed' };
  return { kind: 'apply', billing, account: change, outcome: 'applied' };
}

function decideCheckout(state: BillingState, event: Event<'checkout'>): Decision {
  const adopt =
    event.subscriptionId !== null &&
    event.subscriptionId !== state.subscriptionId &&
    !isLiveSubscription(state.subscriptionStatus);
  const billing: BillingUpdate = {
    ...(adopt ? { subscriptionId: event.subscriptionId, subscriptionStatus: null } : {}),
    trialUsedAt: state.trialUsedAt ?? (event.trialDays > 0 ? event.created : null),
  };
  return { kind: 'apply', billing, account: { kind: 'none' }, outcome: 'applied' };
}

/** What an event changes for an account whose billing record and plan are as given. */
export function decide(
  state: BillingState,
  account: AccountFacts,
  event: BillingEvent,
  prices: PriceIds,
): Decision {
  switch (event.kind) {
    case 'subscription':
      return decideSubscription(state, account, event, prices);
    case 'payment':
      return decidePayment(state, account, event);
    case 'checkout':
      return decideCheckout(state, event);
    default:
      return { kind: 'ignore', outcome: `ignored: ${event.type} is not acted on` };
  }
}
