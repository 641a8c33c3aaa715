import { eq } from 'drizzle-orm';
import {
  type AccountChange,
  type BillingEvent,
  type BillingState,
  decide,
  type PriceIds,
} from '../../src/billing/index.ts';
import type { Plan } from '../../src/plans.ts';
import type { Database, Executor } from '../client.ts';
import { billingCustomers, billingEvents, users } from '../schema.ts';
import { changePlanIn, type PlanChangeResult, recordPaymentFailedIn } from './account-plans.ts';

/**
 * Billing records (docs/operations.md, billing): each account's customer at the payment processor,
 * the subscription state last applied, and the webhook events already handled. An event is handled
 * in one transaction: recorded by its id first (a second delivery finds it and changes nothing),
 * then the account's billing row is locked, the transition decided (src/billing/transitions.ts)
 * and applied through the same plan change as an operator's (account-plans.ts).
 */

export type BillingRow = typeof billingCustomers.$inferSelect;

export interface HandledEvent {
  /** The event id was handled before: nothing was done this time. */
  duplicate: boolean;
  outcome: string;
  userId?: number;
  /** The account's plan columns changed: running API instances must be told. */
  planChanged: boolean;
  /** Emails owed by the change, by notice id. */
  notices: number[];
}

const PENDING = 'pending';

async function lockedBillingRow(
  tx: Executor,
  event: BillingEvent,
): Promise<BillingRow | undefined> {
  if (event.kind === 'other') return undefined;
  const customerId =
    event.kind === 'subscription' ? event.subscription.customerId : event.customerId;
  const [row] = await tx
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.customerId, customerId))
    .for('update');
  if (row || event.kind !== 'checkout' || event.userId === null) return row;
  // A checkout names its account: a customer this service did not record (its write was lost
  // after the processor created it) is linked here, unless the account already has another.
  const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, event.userId));
  if (!user) return undefined;
  const [linked] = await tx
    .insert(billingCustomers)
    .values({ userId: user.id, customerId })
    .onConflictDoNothing()
    .returning();
  return linked;
}

async function applyAccountChange(
  tx: Executor,
  userId: number,
  change: AccountChange,
  account: typeof users.$inferSelect,
  now: Date,
): Promise<PlanChangeResult | undefined> {
  switch (change.kind) {
    case 'plan':
      return changePlanIn(tx, { userId }, change.plan, {
        trialEndsAt: change.trialEndsAt,
        trialConverts: change.trialConverts,
        planEndsAt: change.planEndsAt,
        reason: change.reason,
        now,
      });
    case 'payment_failed':
      return recordPaymentFailedIn(tx, { userId }, now);
    case 'payment_settled':
      // The plan as it stands, without the failure.
      return changePlanIn(tx, { userId }, account.plan as Plan, {
        trialEndsAt: account.trialEndsAt,
        trialConverts: account.trialConverts,
        planEndsAt: account.planEndsAt,
        now,
      });
    default:
      return undefined;
  }
}

async function handleInTransaction(
  tx: Executor,
  event: BillingEvent,
  prices: PriceIds,
  now: Date,
): Promise<HandledEvent> {
  const recorded = await tx
    .insert(billingEvents)
    .values({
      eventId: event.id,
      type: event.type,
      createdAt: event.created,
      receivedAt: now,
      outcome: PENDING,
    })
    .onConflictDoNothing()
    .returning({ eventId: billingEvents.eventId });
  if (recorded.length === 0)
    return { duplicate: true, outcome: 'duplicate', planChanged: false, notices: [] };
  const finish = async (result: Omit<HandledEvent, 'duplicate'>): Promise<HandledEvent> => {
    await tx
      .update(billingEvents)
      .set({ outcome: result.outcome, userId: result.userId ?? null })
      .where(eq(billingEvents.eventId, event.id));
    return { duplicate: false, ...result };
  };
  if (event.kind === 'other')
    return finish({
      outcome: `ignored: ${event.type} is not acted on`,
      planChanged: false,
      notices: [],
    });
  const billing = await lockedBillingRow(tx, event);
  if (!billing)
    return finish({ outcome: 'ignored: unknown customer', planChanged: false, notices: [] });
  const [account] = await tx.select().from(users).where(eq(users.id, billing.userId)).for('update');
  if (!account)
    return finish({ outcome: 'ignored: unknown customer', planChanged: false, notices: [] });
  const state: BillingState = billing;
  const decision = decide(state, account, event, prices);
  if (decision.kind === 'ignore')
    return finish({
      outcome: decision.outcome,
      userId: account.id,
      planChanged: false,
      notices: [],
    });
  await tx
    .update(billingCustomers)
    .set({ ...decision.billing, updatedAt: now })
    .where(eq(billingCustomers.userId, account.id));
  const changed = await applyAccountChange(tx, account.id, decision.account, account, now);
  return finish({
    outcome:
      decision.account.kind === 'none'
        ? decision.outcome
        : `${decision.outcome}: ${decision.account.kind === 'plan' ? `plan ${decision.account.plan}` : decision.account.kind}`,
    userId: account.id,
    planChanged: changed !== undefined,
    notices: changed?.notices ?? [],
  });
}

export function createBillingRepository(db: Database) {
  return {
    async billingOf(userId: number): Promise<BillingRow | undefined> {
      const [row] = await db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.userId, userId));
      return row;
    },

    /**
     * Records the account's processor customer; when the account has one already, that one is kept
     * and returned (two checkouts opened at once create one customer each; the first recorded wins).
     */
    async linkCustomer(userId: number, customerId: string): Promise<BillingRow> {
      const [inserted] = await db
        .insert(billingCustomers)
        .values({ userId, customerId })
        .onConflictDoNothing({ target: billingCustomers.userId })
        .returning();
      if (inserted) return inserted;
      const [existing] = await db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.userId, userId));
      if (!existing) throw new Error(`billing row of user ${userId} vanished`);
      return existing;
    },

    /** Handles one verified webhook event, once per event id (see HandledEvent). */
    async handleEvent(event: BillingEvent, prices: PriceIds, now: Date): Promise<HandledEvent> {
      return db.transaction((tx) => handleInTransaction(tx, event, prices, now));
    },

    /** What was recorded of an event (support and tests). */
    async eventRecord(eventId: string) {
      const [row] = await db.select().from(billingEvents).where(eq(billingEvents.eventId, eventId));
      return row;
    },
  };
}

export type BillingRepository = ReturnType<typeof createBillingRepository>;
