import { z } from 'zod';

/**
 * The payment processor's webhook events this service acts on (docs/operations.md, billing),
 * read from a Stripe event whose signature was already verified. Only the fields used are read,
 * each checked: an event of a shape this code does not know is reported, never half-applied.
 */

export const SUBSCRIPTION_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type SubscriptionAction = (typeof SUBSCRIPTION_ACTIONS)[number];

/** What a subscription event says about the subscription, as of the event. */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string;
  /** trialing, active, past_due, canceled, unpaid, incomplete, incomplete_expired, paused… */
  status: string;
  priceId: string | null;
  trialEnd: Date | null;
  currentPeriodEnd: Date | null;
  /** When it ends by cancellation (at the period's end, or a date set); null: it renews. */
  cancelAt: Date | null;
}

interface EventBase {
  id: string;
  type: string;
  created: Date;
}

export type BillingEvent = EventBase &
  (
    | {
        kind: 'checkout';
        customerId: string;
        subscriptionId: string | null;
        /** The account that opened the checkout (client_reference_id). */
        userId: number | null;
        trialDays: number;
      }
    | { kind: 'subscription'; action: SubscriptionAction; subscription: SubscriptionSnapshot }
    | {
        kind: 'payment';
        paid: boolean;
        invoiceId: string;
        customerId: string;
        subscriptionId: string | null;
      }
    | { kind: 'other' }
  );

export type ParsedEvent = { ok: true; event: BillingEvent } | { ok: false; error: string };

const unixTime = z.number().int().nonnegative();
const toDate = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? null : new Date(seconds * 1000);
/** A Stripe reference: the id, or the expanded object carrying it. */
const ref = z.union([
  z.string().min(1),
  z.object({ id: z.string().min(1) }).transform((o) => o.id),
]);

const envelope = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: unixTime,
  data: z.object({ object: z.unknown() }),
});

const checkoutSession = z.object({
  mode: z.string(),
  customer: ref.nullable(),
  subscription: ref.nullable().optional(),
  client_reference_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
});

const subscription = z.object({
  id: z.string().min(1),
  customer: ref,
  status: z.string().min(1),
  cancel_at_period_end: z.boolean().optional(),
  cancel_at: unixTime.nullable().optional(),
  trial_end: unixTime.nullable().optional(),
  items: z.object({
    data: z.array(
      z.object({
        price: z.object({ id: z.string() }).nullable().optional(),
        current_period_end: unixTime.optional(),
      }),
    ),
  }),
});

const invoice = z.object({
  id: z.string().min(1),
  customer: ref.nullable(),
  parent: z
    .object({
      subscription_details: z.object({ subscription: ref }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

const describe = (error: z.ZodError) =>
  error.issues
    .slice(0, 3)
    .map((i) => `${['data', 'object', ...i.path].join('.')}: ${i.message}`)
    .join('; ');

function subscriptionSnapshot(object: z.output<typeof subscription>): SubscriptionSnapshot {
  const item = object.items.data[0];
  const currentPeriodEnd = toDate(item?.current_period_end);
  return {
    id: object.id,
    customerId: object.customer,
    status: object.status,
    priceId: item?.price?.id ?? null,
    trialEnd: toDate(object.trial_end),
    currentPeriodEnd,
    cancelAt: toDate(object.cancel_at) ?? (object.cancel_at_period_end ? currentPeriodEnd : null),
  };
}

function checkoutEvent(base: EventBase, object: unknown): ParsedEvent {
  const parsed = checkoutSession.safeParse(object);
  if (!parsed.success) return { ok: false, error: describe(parsed.error) };
  const s = parsed.data;
  // A one-off payment or a session without customer opens no subscription of ours.
  if (s.mode !== 'subscription' || !s.customer)
    return { ok: true, event: { ...base, kind: 'other' } };
  const userId = /^\d{1,12}$/.test(s.client_reference_id ?? '')
    ? Number(s.client_reference_id)
    : null;
  const trialDays = Number(s.metadata?.trial_days ?? 0);
  return {
    ok: true,
    event: {
      ...base,
      kind: 'checkout',
      customerId: s.customer,
      subscriptionId: s.subscription ?? null,
      userId,
      trialDays: Number.isInteger(trialDays) && trialDays > 0 ? trialDays : 0,
    },
  };
}

/** The event as this service reads it; `other` for the types it does not act on. */
export function parseBillingEvent(raw: unknown): ParsedEvent {
  const outer = envelope.safeParse(raw);
  if (!outer.success) return { ok: false, error: describe(outer.error) };
  const { id, type, created, data } = outer.data;
  const base: EventBase = { id, type, created: new Date(created * 1000) };
  if (type === 'checkout.session.completed') return checkoutEvent(base, data.object);
  const action = /^customer\.subscription\.(created|updated|deleted)$/.exec(type)?.[1] as
    | SubscriptionAction
    | undefined;
  if (action) {
    const parsed = subscription.safeParse(data.object);
    if (!parsed.success) return { ok: false, error: describe(parsed.error) };
    return {
      ok: true,
      event: {
        ...base,
        kind: 'subscription',
        action,
        subscription: subscriptionSnapshot(parsed.data),
      },
    };
  }
  if (type === 'invoice.paid' || type === 'invoice.payment_failed') {
    const parsed = invoice.safeParse(data.object);
    if (!parsed.success) return { ok: false, error: describe(parsed.error) };
    if (!parsed.data.customer) return { ok: true, event: { ...base, kind: 'other' } };
    return {
      ok: true,
      event: {
        ...base,
        kind: 'payment',
        paid: type === 'invoice.paid',
        invoiceId: parsed.data.id,
        customerId: parsed.data.customer,
        subscriptionId: parsed.data.parent?.subscription_details?.subscription ?? null,
      },
    };
  }
  return { ok: true, event: { ...base, kind: 'other' } };
}
