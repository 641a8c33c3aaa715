import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './schema-columns.ts';

/**
 * Accounts: users with their plan state, their billing at the payment processor, and the emails
 * their plan changes owe (db/schema.ts re-exports every table here).
 */

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    plan: text('plan').notNull().default('FREE'),
    trialEndsAt: timestamp('trial_ends_at', { withTimezone: true }),
    paymentFailedAt: timestamp('payment_failed_at', { withTimezone: true }),
    /**
     * The trial turns into the paid plan at its end by itself (a payment processor's trial with a
     * card on file): its end is no downgrade until the processor has had TRIAL_SETTLE_DAYS to say so.
     */
    trialConverts: boolean('trial_converts').notNull().default(false),
    /** The paid plan ends then (a subscription cancelled at the end of its period); null: it renews. */
    planEndsAt: timestamp('plan_ends_at', { withTimezone: true }),
    downgradedAt: timestamp('downgraded_at', { withTimezone: true }),
    /** Plan before the last downgrade, for the record (and support). */
    downgradedFrom: text('downgraded_from'),
    emailAlerts: boolean('email_alerts').notNull().default(false),
    /** Free-form user preferences (alert filters, UI settings); purged 30 days after a downgrade. */
    preferences: jsonb('preferences').notNull().default(sql`'{}'::jsonb`),
    /** Set when the post-downgrade purge removed watchlist and preferences. */
    purgedAt: timestamp('purged_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_idx').on(t.email),
    // The maintenance job scans only accounts with something pending.
    index('users_trial_idx').on(t.trialEndsAt).where(sql`trial_ends_at is not null`),
    index('users_payment_failed_idx')
      .on(t.paymentFailedAt)
      .where(sql`payment_failed_at is not null`),
    index('users_downgraded_idx')
      .on(t.downgradedAt)
      .where(sql`downgraded_at is not null and purged_at is null`),
    index('users_plan_ends_idx').on(t.planEndsAt).where(sql`plan_ends_at is not null`),
  ],
);

/**
 * An account's customer at the payment processor (Stripe) and the subscription state last applied
 * from its webhook events (docs/operations.md, billing). `subscriptionEventAt` and
 * `subscriptionEventRank` order subscription events, `paymentEventAt` / `paymentEventPaid` invoice
 * events: an event older than the one applied changes nothing (events arrive out of order).
 */
export const billingCustomers = pgTable(
  'billing_customers',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    customerId: text('customer_id').notNull(),
    subscriptionId: text('subscription_id'),
    /** Stripe's subscription status: trialing, active, past_due, canceled, unpaid, incomplete… */
    subscriptionStatus: text('subscription_status'),
    priceId: text('price_id'),
    /** The plan and period the price stands for (null: a price this installation does not sell). */
    plan: text('plan'),
    period: text('period'),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }),
    cancelAt: timestamp('cancel_at', { withTimezone: true }),
    /** Set once the account had a trial through the processor: a second checkout offers none. */
    trialUsedAt: timestamp('trial_used_at', { withTimezone: true }),
    subscriptionEventAt: timestamp('subscription_event_at', { withTimezone: true }),
    subscriptionEventRank: integer('subscription_event_rank').notNull().default(0),
    paymentEventAt: timestamp('payment_event_at', { withTimezone: true }),
    paymentEventPaid: boolean('payment_event_paid'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('billing_customers_customer_idx').on(t.customerId),
    index('billing_customers_subscription_idx').on(t.subscriptionId),
  ],
);

/** Webhook events already handled, by the processor's event id: a re-delivery or replay changes nothing. */
export const billingEvents = pgTable(
  'billing_events',
  {
    eventId: text('event_id').primaryKey(),
    type: text('type').notNull(),
    /** The event's own creation time at the processor. */
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** What it did: applied, or why not (stale, unknown customer, …). */
    outcome: text('outcome').notNull(),
  },
  (t) => [index('billing_events_received_idx').on(t.receivedAt)],
);

/**
 * Emails owed to account holders about their plan (a failed payment, a downgrade): written in the
 * transaction that changed the plan, sent by the worker role. `noticeKey` is unique, so the same
 * change never owes two emails; `claimedAt` is a short lease so two workers never both send one.
 */
export const accountNotices = pgTable(
  'account_notices',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    noticeKey: text('notice_key').notNull(),
    kind: text('kind').notNull(),
    details: jsonb('details').notNull().default(sql`'{}'::jsonb`),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('account_notices_key_idx').on(t.noticeKey),
    index('account_notices_pending_idx').on(t.id).where(sql`sent_at is null`),
  ],
);
