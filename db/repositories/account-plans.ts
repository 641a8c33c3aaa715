import { and, eq, inArray, isNotNull, isNull, lte, ne, or, sql } from 'drizzle-orm';
import { DAY_MS, PAYMENT_GRACE_DAYS, type Plan, PURGE_AFTER_DAYS } from '../../src/plans.ts';
import type { Database } from '../client.ts';
import { users, watchlist } from '../schema.ts';
import type { UserRow } from './rows.ts';

/** The plan half of the account repository (createAccountRepository spreads it in). */

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

interface MaintenanceResult {
  downgraded: { id: number; email: string; from: string; reason: string }[];
  purged: number[];
}

/**
 * The columns a plan change sets. A paid plan clears any failed payment and downgrade;
 * `trialEndsAt` makes it a trial (null: a paid plan without end). FREE records the downgrade.
 */
function planChange(plan: Plan, options: { trialEndsAt?: Date | null; now: Date }) {
  if (plan !== 'FREE') {
    return {
      plan,
      trialEndsAt: options.trialEndsAt ?? null,
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
    paymentFailedAt: null,
    updatedAt: options.now,
  };
}

/** Paid accounts whose trial ended or whose payment failed over the grace period ago go FREE. */
async function downgradeLapsedAccounts(
  tx: Tx,
  now: Date,
): Promise<MaintenanceResult['downgraded']> {
  const graceCutoff = new Date(now.getTime() - PAYMENT_GRACE_DAYS * DAY_MS);
  const downgraded = await tx
    .update(users)
    .set({
      plan: 'FREE',
      downgradedAt: now,
      // SET reads the row as it was: this is the plan being left.
      downgradedFrom: users.plan,
      purgedAt: null,
      updatedAt: now,
    })
    .where(
      and(
        ne(users.plan, 'FREE'),
        or(
          and(isNotNull(users.trialEndsAt), lte(users.trialEndsAt, now)),
          and(isNotNull(users.paymentFailedAt), lte(users.paymentFailedAt, graceCutoff)),
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
  return downgraded.map((d) => ({
    id: d.id,
    email: d.email,
    from: d.from ?? 'unknown',
    reason:
      d.trialEndsAt && d.trialEndsAt.getTime() <= now.getTime() ? 'trial_ended' : 'payment_failed',
  }));
}

/** Watchlist and preferences of accounts downgraded over the purge period ago; their ids. */
async function purgeDowngradedAccounts(tx: Tx, now: Date): Promise<number[]> {
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
    /** An operator's plan change (see planChange). */
    async setPlan(
      email: string,
      plan: Plan,
      options: { trialEndsAt?: Date | null; now: Date },
    ): Promise<UserRow | undefined> {
      const [row] = await db
        .update(users)
        .set(planChange(plan, options))
        .where(eq(users.email, email))
        .returning();
      return row;
    },

    /** Keeps the first failure's time: the grace period runs from it. */
    async recordPaymentFailed(email: string, now: Date): Promise<UserRow | undefined> {
      const [row] = await db
        .update(users)
        .set({
          paymentFailedAt: sql`coalesce(${users.paymentFailedAt}, ${now.toISOString()}::timestamptz)`,
          updatedAt: now,
        })
        .where(eq(users.email, email))
        .returning();
      return row;
    },

    /**
     * The scheduled account job: downgrade ended trials and accounts whose payment failed more than
     * the grace period ago; purge watchlist and preferences of accounts downgraded 30 days ago.
     * Idempotent: a second run at the same time changes nothing.
     */
    async runMaintenance(now: Date): Promise<MaintenanceResult> {
      return db.transaction(async (tx) => ({
        downgraded: await downgradeLapsedAccounts(tx, now),
        purged: await purgeDowngradedAccounts(tx, now),
      }));
    },
  };
}
