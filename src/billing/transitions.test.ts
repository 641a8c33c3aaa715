import { describe, expect, it } from 'vitest';
import type { PriceIds } from './catalog.ts';
import { type BillingEvent, parseBillingEvent } from './events.ts';
import { type AccountFacts, type BillingState, decide } from './transitions.ts';

/** The transitions one by one, where the integration test (api/billing.test.ts) cannot place events to the second. */

const PRICES: PriceIds = {
  BASIC: { monthly: 'price_bm', annual: 'price_ba' },
  PRO: { monthly: 'price_pm', annual: 'price_pa' },
};
const T = new Date('2026-05-01T12:00:00Z');
const at = (seconds: number) => new Date(T.getTime() + seconds * 1000);
const FRESH: BillingState = {
  subscriptionId: null,
  subscriptionStatus: null,
  trialUsedAt: null,
  subscriptionEventAt: null,
  subscriptionEventRank: 0,
  paymentEventAt: null,
  paymentEventPaid: null,
};
const FREE: AccountFacts = {
  plan: 'FREE',
  trialEndsAt: null,
  trialConverts: false,
  planEndsAt: null,
  paymentFailedAt: null,
};
const PRO: AccountFacts = { ...FREE, plan: 'PRO' };

function subscriptionEvent(
  action: 'created' | 'updated' | 'deleted',
  seconds: number,
  fields: { id?: string; status: string; price?: string; trialEnd?: Date; cancelAt?: Date },
): BillingEvent {
  return {
    id: `evt_${action}_${seconds}`,
    type: `customer.subscription.${action}`,
    created: at(seconds),
    kind: 'subscription',
    action,
    subscription: {
      id: fields.id ?? 'sub_1',
      customerId: 'cus_1',
      status: fields.status,
      priceId: fields.price ?? 'price_pm',
      trialEnd: fields.trialEnd ?? null,
      currentPeriodEnd: at(30 * 86_400),
      cancelAt: fields.cancelAt ?? null,
    },
  };
}

const payment = (paid: boolean, seconds: number, subscriptionId = 'sub_1'): BillingEvent => ({
  id: `evt_pay_${seconds}`,
  type: paid ? 'invoice.paid' : 'invoice.payment_failed',
  created: at(seconds),
  kind: 'payment',
  paid,
  invoiceId: 'in_1',
  customerId: 'cus_1',
  subscriptionId,
});

describe('subscription events', () => {
  it('trialing grants the plan with a trial that converts; active grants it without', () => {
    const trial = decide(
      FRESH,
      FREE,
      subscriptionEvent('created', 0, { status: 'trialing', trialEnd: at(7 * 86_400) }),
      PRICES,
    );
    expect(trial).toMatchObject({
      kind: 'apply',
      account: {
        kind: 'plan',
        plan: 'PRO',
        trialEndsAt: at(7 * 86_400),
        trialConverts: true,
        planEndsAt: null,
      },
      billing: { subscriptionId: 'sub_1', plan: 'PRO', period: 'monthly', trialUsedAt: at(0) },
    });
    const active = decide(
      FRESH,
      FREE,
      subscriptionEvent('created', 0, { status: 'active', price: 'price_ba' }),
      PRICES,
    );
    expect(active).toMatchObject({ account: { kind: 'plan', plan: 'BASIC', trialEndsAt: null } });
  });

  it('within one second, created < updated < deleted; across seconds, the newer wins', () => {
    const afterUpdate: BillingState = {
      ...FRESH,
      subscriptionId: 'sub_1',
      subscriptionStatus: 'active',
      subscriptionEventAt: at(5),
      subscriptionEventRank: 2,
    };
    expect(
      decide(
        afterUpdate,
        PRO,
        subscriptionEvent('created', 5, { status: 'trialing', trialEnd: at(99) }),
        PRICES,
      ).kind,
    ).toBe('ignore');
    expect(
      decide(afterUpdate, PRO, subscriptionEvent('deleted', 5, { status: 'canceled' }), PRICES),
    ).toMatchObject({ account: { kind: 'plan', plan: 'FREE' } });
    expect(
      decide(afterUpdate, PRO, subscriptionEvent('updated', 4, { status: 'canceled' }), PRICES)
        .kind,
    ).toBe('ignore');
  });

  it('another subscription is ignored while one is live, and adopted once it ended', () => {
    const live: BillingState = {
      ...FRESH,
      subscriptionId: 'sub_1',
      subscriptionStatus: 'active',
      subscriptionEventAt: at(0),
      subscriptionEventRank: 1,
    };
    const other = subscriptionEvent('created', 10, {
      id: 'sub_2',
      status: 'active',
      price: 'price_ba',
    });
    expect(decide(live, PRO, other, PRICES)).toMatchObject({
      kind: 'ignore',
      outcome: expect.stringContaining('sub_1'),
    });
    const ended = { ...live, subscriptionStatus: 'canceled', subscriptionEventRank: 3 };
    expect(decide(ended, FREE, other, PRICES)).toMatchObject({
      billing: { subscriptionId: 'sub_2' },
      account: { plan: 'BASIC' },
    });
  });

  it('past_due starts the grace once; after a downgrade it grants nothing back', () => {
    const live: BillingState = { ...FRESH, subscriptionId: 'sub_1', subscriptionStatus: 'active' };
    const pastDue = subscriptionEvent('updated', 10, { status: 'past_due' });
    expect(decide(live, PRO, pastDue, PRICES)).toMatchObject({
      account: { kind: 'payment_failed' },
    });
    expect(decide(live, { ...PRO, paymentFailedAt: at(0) }, pastDue, PRICES)).toMatchObject({
      account: { kind: 'none' },
    });
    expect(decide(live, FREE, pastDue, PRICES)).toMatchObject({ account: { kind: 'none' } });
  });

  it('a snapshot older than a failed payment does not clear the failure', () => {
    const failing: BillingState = {
      ...FRESH,
      subscriptionId: 'sub_1',
      subscriptionStatus: 'past_due',
      paymentEventAt: at(20),
      paymentEventPaid: false,
    };
    const account = { ...PRO, paymentFailedAt: at(20) };
    expect(
      decide(failing, account, subscriptionEvent('updated', 10, { status: 'active' }), PRICES),
    ).toMatchObject({ account: { kind: 'none' } });
    expect(
      decide(failing, account, subscriptionEvent('updated', 30, { status: 'active' }), PRICES),
    ).toMatchObject({ account: { kind: 'plan', plan: 'PRO' } });
  });

  it('incomplete, an unknown price, or nothing new change no plan', () => {
    expect(
      decide(FRESH, FREE, subscriptionEvent('created', 0, { status: 'incomplete' }), PRICES),
    ).toMatchObject({ account: { kind: 'none' } });
    expect(
      decide(
        FRESH,
        FREE,
        subscriptionEvent('created', 0, { status: 'active', price: 'price_other' }),
        PRICES,
      ),
    ).toMatchObject({
      account: { kind: 'none' },
      outcome: expect.stringContaining('price_other'),
    });
    expect(
      decide(FRESH, PRO, subscriptionEvent('updated', 0, { status: 'active' }), PRICES),
    ).toMatchObject({ account: { kind: 'none' } });
  });

  it('cancelled at the period end: the plan ends then, and a trial that is cancelled does not convert', () => {
    const end = at(10 * 86_400);
    expect(
      decide(
        FRESH,
        PRO,
        subscriptionEvent('updated', 0, { status: 'active', cancelAt: end }),
        PRICES,
      ),
    ).toMatchObject({
      account: { kind: 'plan', plan: 'PRO', planEndsAt: end },
      billing: { cancelAt: end },
    });
    expect(
      decide(
        FRESH,
        FREE,
        subscriptionEvent('updated', 0, { status: 'trialing', trialEnd: end, cancelAt: end }),
        PRICES,
      ),
    ).toMatchObject({ account: { trialConverts: false, planEndsAt: end } });
  });
});

describe('invoice and checkout events', () => {
  const live: BillingState = { ...FRESH, subscriptionId: 'sub_1', subscriptionStatus: 'active' };

  it('a failure of the live subscription starts the grace; a payment ends it; an older one of either changes nothing', () => {
    expect(decide(live, PRO, payment(false, 10), PRICES)).toMatchObject({
      account: { kind: 'payment_failed' },
      billing: { paymentEventAt: at(10), paymentEventPaid: false },
    });
    const failing = { ...live, paymentEventAt: at(10), paymentEventPaid: false };
    expect(
      decide(failing, { ...PRO, paymentFailedAt: at(10) }, payment(true, 20), PRICES),
    ).toMatchObject({ account: { kind: 'payment_settled' } });
    const paid = { ...live, paymentEventAt: at(20), paymentEventPaid: true };
    expect(decide(paid, PRO, payment(false, 15), PRICES).kind).toBe('ignore');
    // Same second: a payment after a failure, never the reverse.
    expect(decide(paid, PRO, payment(false, 20), PRICES).kind).toBe('ignore');
    expect(
      decide(failing, { ...PRO, paymentFailedAt: at(10) }, payment(true, 10), PRICES),
    ).toMatchObject({ account: { kind: 'payment_settled' } });
  });

  it('an invoice of another subscription, or a failure without a live subscription, changes nothing', () => {
    expect(decide(live, PRO, payment(false, 10, 'sub_9'), PRICES).kind).toBe('ignore');
    expect(
      decide({ ...FRESH, subscriptionStatus: 'incomplete' }, PRO, payment(false, 10), PRICES),
    ).toMatchObject({ account: { kind: 'none' } });
  });

  it('a completed checkout records the trial and adopts its subscription unless one is live', () => {
    const checkout = (subscriptionId: string, trialDays: number): BillingEvent => ({
      id: 'evt_c',
      type: 'checkout.session.completed',
      created: at(3),
      kind: 'checkout',
      customerId: 'cus_1',
      subscriptionId,
      userId: 1,
      trialDays,
    });
    expect(decide(FRESH, FREE, checkout('sub_1', 7), PRICES)).toMatchObject({
      billing: { subscriptionId: 'sub_1', trialUsedAt: at(3) },
      account: { kind: 'none' },
    });
    expect(decide(live, PRO, checkout('sub_2', 0), PRICES)).toEqual({
      kind: 'apply',
      billing: { trialUsedAt: null },
      account: { kind: 'none' },
      outcome: 'applied',
    });
  });
});

describe('reading events', () => {
  const envelope = (type: string, object: unknown) => ({
    id: 'evt_1',
    type,
    created: 1_700_000_000,
    data: { object },
  });

  it('reads a subscription (expanded customer, item price and period) and an invoice’s subscription', () => {
    const parsed = parseBillingEvent(
      envelope('customer.subscription.updated', {
        id: 'sub_1',
        customer: { id: 'cus_1' },
        status: 'active',
        cancel_at_period_end: true,
        cancel_at: null,
        trial_end: null,
        items: { data: [{ price: { id: 'price_pm' }, current_period_end: 1_700_086_400 }] },
      }),
    );
    expect(parsed).toMatchObject({
      ok: true,
      event: {
        kind: 'subscription',
        action: 'updated',
        subscription: {
          customerId: 'cus_1',
          priceId: 'price_pm',
          cancelAt: new Date(1_700_086_400_000),
        },
      },
    });
    const invoice = parseBillingEvent(
      envelope('invoice.payment_failed', {
        id: 'in_1',
        customer: 'cus_1',
        parent: { subscription_details: { subscription: 'sub_1' } },
      }),
    );
    expect(invoice).toMatchObject({
      ok: true,
      event: { kind: 'payment', paid: false, subscriptionId: 'sub_1' },
    });
  });

  it('says which field of an unknown shape is wrong; other types and one-off checkouts are not acted on', () => {
    expect(
      parseBillingEvent(
        envelope('customer.subscription.created', { id: 'sub_1', status: 'active' }),
      ),
    ).toEqual({
      ok: false,
      error: expect.stringMatching(/data\.object\.customer/),
    });
    expect(parseBillingEvent({ id: 'evt' })).toMatchObject({ ok: false });
    expect(parseBillingEvent(envelope('charge.refunded', {}))).toMatchObject({
      ok: true,
      event: { kind: 'other' },
    });
    expect(
      parseBillingEvent(
        envelope('checkout.session.completed', { mode: 'payment', customer: 'cus_1' }),
      ),
    ).toMatchObject({ event: { kind: 'other' } });
    expect(
      parseBillingEvent(
        envelope('checkout.session.completed', {
          mode: 'subscription',
          customer: 'cus_1',
          client_reference_id: 'x; drop',
          metadata: { trial_days: '7' },
        }),
      ),
    ).toMatchObject({ event: { kind: 'checkout', userId: null, trialDays: 7 } });
  });
});
