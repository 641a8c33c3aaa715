import { and, eq, inArray, isNotNull, isNull, lte, ne, or, sql } from 'drizzle-orm';
import {
  DAY_MS,
  PAYMENT_GRACE_DAYS,
  type Plan,
  PURGE_AFTER_DAYS,
  TRIAL_SETTLE_DAYS,
} from '../../src/plans.ts';
import type { Database, Executor } from '../client.ts';
import { accountNotices, users, watchlist } from '../schema.ts';
import type { UserRow } from './rows.ts';

/**
 * The plan half of the account repository (createAccountRepository spreads it in). Every plan
 * change, whoever asks for it (an operator, the payment processor's webhooks, the scheduled job),
 * goes through changePlanIn / recordPaymentFailedIn: the same columns, and the same emails owed
 * (account_notices) in the same transaction.
 */

export type NoticeKind = 'payment_failed' | 'downgraded';

export interface PlanChangeOptions {
  /** A trial ending then (null: a paid plan without end). */
  trialEndsAt?: Date | null;
  /** The trial converts by itself at its end (a processor's trial with a card on file). */
  trialConverts?: boolean;
  /** The paid plan ends then (cancelled at the end of its period). */
  planEndsAt?: Date | null;
  now: Date;
}

/** A plan change's row, and the notices (emails) it owes, by id. */
export interface PlanChangeResult {
  user: UserRow;
  notices: number[];
}

interface MaintenanceResult {
  downgraded: { id: number; email: string; from: string; reason: string }[];
  purged: number[];
  notices: number[];
}

export type AccountMatch = { email: string } | { userId: number };

const matchOf = (match: AccountMatch) =>
  'email' in match ? eq(users.email, match.email) : eq(users.id, match.userId);

/**
 * The columns a plan change sets. A paid plan clears any failed payment and downgrade;
 * `trialEndsAt` makes it a trial (null: a paid plan without end). FREE records the downgrade.
 */
function planChange(plan: Plan, options: PlanChangeOptions) {
  if (plan !== 'FREE') {
    return {
      plan,
      trialEndsAt: options.trialEndsAt ?? null,
      trialConverts: options.trialEndsAt ? (options.trialConverts ?? false) : false,
      planEndsAt: options.planEndsAt ?? null,
      paymentFailedAt: null,
      downgradedAt: null,
      downgradedFrom: null,
      purgedAt: null,
      updatedAt: options.now,
    };
  }
  return {
    plan,
    downgradedAt: sql`case when ${users.plan} <> 'FREE' then ${options.now.toISOString()}::timestamptz else ${users.downgradedAt} end`,
    downgradedFrom: sql`case when ${users.plan} <> 'FREE' then ${users.plan} else ${users.downgradedFrom} end`,
    trialEndsAt: null,
    trialConverts: false,
    planEndsAt: null,
    paymentFailedAt: null,
    updatedAt: options.now,
  };
}

/** Owes the account holder an email; the key makes it once per change, whoever records it again. */
export async function oweNotice(
  ex: Executor,
  userId: number,
  kind: NoticeKind,
  details: Record<string, unknown>,
  now: Date,
): Promise<number[]> {
  // The key names the change: the same change recorded twice owes one email.
  const key = `${kind}:${userId}:${now.toISOString()}`;
  const rows = await ex
    .insert(accountNotices)
    .values({ userId, kind, noticeKey: key, details, createdAt: now })
    .onConflictDoNothing({ target: accountNotices.noticeKey })
    .returning({ id: accountNotices.id });
  return rows.map((r) => r.id);
}

/** A plan change inside the caller's transaction; a paid plan becoming FREE owes a downgrade email. */
export async function changePlanIn(
  ex: Executor,
  match: AccountMatch,
  plan: Plan,
  options: PlanChangeOptions & { reason?: string },
): Promise<PlanChangeResult | undefined> {
  const [before] = await ex
    .select({ id: users.id, plan: users.plan })
    .from(users)
    .where(matchOf(match))
    .for('update');
  if (!before) return undefined;
  const [user] = await ex
    .update(users)
    .set(planChange(plan, options))
    .where(eq(users.id, before.id))
    .returning();
  if (!user) return undefined;
  const downgraded = before.plan !== 'FREE' && plan === 'FREE';
  const notices = downgraded
    ? await oweNotice(
        ex,
        user.id,
        'downgraded',
        { from: before.plan, reason: options.reason ?? 'plan_changed' },
        options.now,
      )
    : [];
  return { user, notices };
}

/**
 * A failed payment inside the caller's transaction. The first failure's time is kept (the grace
 * period runs from it) and owes the email; a repeated failure changes and owes nothing.
 */
export async function recordPaymentFailedIn(
  ex: Executor,
  match: AccountMatch,
  now: Date,
): Promise<PlanChangeResult | undefined> {
  const [before] = await ex
    .select({ id: users.id, paymentFailedAt: users.paymentFailedAt })
    .from(users)
    .where(matchOf(match))
    .for('update');
  if (!before) return undefined;
  if (before.paymentFailedAt) {
    const [user] = await ex.select().from(users).where(eq(users.id, before.id));
    return user ? { user, notices: [] } : undefined;
  }
  const [user] = await ex
    .update(users)
    .set({ paymentFailedAt: now, updatedAt: now })
    .where(eq(users.id, before.id))
    .returning();
  if (!user) return undefined;
  const downgradeAt = new Date(now.getTime() + PAYMENT_GRACE_DAYS * DAY_MS);
  const notices = await oweNotice(
    ex,
    user.id,
    'payment_failed',
    { plan: user.plan, downgrade_at: downgradeAt.toISOString() },
    now,
  );
  return { user, notices };
}

/**
 * Paid accounts whose trial ended, whose payment failed over the grace period ago, or whose
 * cancelled plan reached its end go FREE, each owing a downgrade email.
 */
async function downgradeLapsedAccounts(
  tx: Executor,
  now: Date,
): Promise<Pick<MaintenanceResult, 'downgraded' | 'notices'>> {
  const graceCutoff = new Date(now.getTime() - PAYMENT_GRACE_DAYS * DAY_MS);
  const settleCutoff = new Date(now.getTime() - TRIAL_SETTLE_DAYS * DAY_MS);
  const downgraded = await tx
    .update(users)
    .set({
      plan: 'FREE',
      downgradedAt: now,
      // SET reads the row as it was: this is the plan being left.
      downgradedFrom: users.plan,
      trialConverts: false,
      purgedAt: null,
      updatedAt: now,
    })
    .where(
      and(
        ne(users.plan, 'FREE'),
        or(
          and(eq(users.trialConverts, false), lte(users.trialEndsAt, now)),
          and(eq(users.trialConverts, true), lte(users.trialEndsAt, settleCutoff)),
          lte(users.paymentFailedAt, graceCutoff),
          lte(users.planEndsAt, now),
        ),
      ),
    )
    .returning({
      id: users.id,
      email: users.email,
      from: users.downgradedFrom,
      trialEndsAt: users.trialEndsAt,
      paymentFailedAt: users.paymentFailedAt,
    });
  const result = downgraded.map((d) => ({
    id: d.id,
    email: d.email,
    from: d.from ?? 'unknown',
    reason:
      d.trialEndsAt && d.trialEndsAt.getTime() <= now.getTime()
        ? 'trial_ended'
        : d.paymentFailedAt
          ? 'payment_failed'
          : 'cancelled',
  }));
  const notices: number[] = [];
  for (const d of result)
    notices.push(
      ...(await oweNotice(tx, d.id, 'downgraded', { from: d.from, reason: d.reason }, now)),
    );
  return { downgraded: result, notices };
}

/** Watchlist and preferences of accounts downgraded over the purge period ago; their ids. */
async function purgeDowngradedAccounts(tx: Executor, now: Date): Promise<number[]> {
  const purgeCutoff = new Date(now.getTime() - PURGE_AFTER_DAYS * DAY_MS);
  const due = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.plan, 'FREE'),
        isNotNull(users.downgradedAt),
        lte(users.downgradedAt, purgeCutoff),
        isNull(users.purgedAt),
      ),
    );
  const ids = due.map((u) => u.id);
  if (ids.length > 0) {
    await tx.delete(watchlist).where(inArray(watchlist.userId, ids));
    await tx
      .update(users)
      .set({ preferences: {}, emailAlerts: false, purgedAt: now, updatedAt: now })
      .where(inArray(users.id, ids));
  }
  return ids;
}

/** Plans: operator changes, failed payments and the scheduled downgrade and purge. */
export function planQueries(db: Database) {
  return {
    /** A plan change (see planChange), with the downgrade email it owes. */
    async setPlan(
      email: string,
      plan: Plan,
      options: PlanChangeOptions,
    ): Promise<PlanChangeResult | undefined> {
      return db.transaction((tx) => changePlanIn(tx, { email }, plan, options));
    },

    /** Keeps the first failure's time: the grace period runs from it. */
    async recordPaymentFailed(email: string, now: Date): Promise<PlanChangeResult | undefined> {
      return db.transaction((tx) => recordPaymentFailedIn(tx, { email }, now));
    },

    /**
     * The scheduled account job: downgrade ended trials, cancelled plans at their end and accounts
     * whose payment failed more than the grace period ago; purge watchlist and preferences of
     * accounts downgraded 30 days ago. Idempotent: a second run at the same time changes nothing.
     */
    async runMaintenance(now: Date): Promise<MaintenanceResult> {
      return db.transaction(async (tx) => ({
        ...(await downgradeLapsedAccounts(tx, now)),
        purged: await purgeDowngradedAccounts(tx, now),
      }));
    },
  };
}
