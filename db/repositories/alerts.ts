import { and, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { alertDeliveries, users, watchlist } from '../schema.ts';

/** Watchers of a token and the idempotent record of the alerts delivered to them. */

export interface Watcher {
  userId: number;
  email: string;
  emailAlerts: boolean;
  preferences: unknown;
}

export interface DeliveryInput {
  userId: number;
  alertKey: string;
  kind: string;
  chainId: number;
  address: string;
  streamId: string;
  message: string;
  emailWanted: boolean;
}

/** Who watches a token, and the deliveries recorded for them. */
function deliveryRecords(db: Database) {
  // Asked for every token.updated the alerts consumer reads: prepared, one round trip (an
  // unprepared statement with parameters costs a second one for its description).
  const watchersQuery = db
    .select({
      userId: users.id,
      email: users.email,
      emailAlerts: users.emailAlerts,
      preferences: users.preferences,
    })
    .from(watchlist)
    .innerJoin(users, eq(users.id, watchlist.userId))
    .where(
      and(
        eq(watchlist.chainId, sql.placeholder('chainId')),
        eq(watchlist.address, sql.placeholder('address')),
        ne(users.plan, 'FREE'),
      ),
    )
    .prepare('token_watchers');
  return {
    /** Users on a paid plan who watch the token (a downgraded account keeps its watchlist 30 days, without alerts). */
    async watchers(chainId: number, address: string): Promise<Watcher[]> {
      return watchersQuery.execute({ chainId, address });
    },

    /** Inserts what is new; returns the user ids that were new. A second insert of the same (user, key) is a no-op. */
    async record(rows: DeliveryInput[]): Promise<number[]> {
      if (rows.length === 0) return [];
      const inserted = await db
        .insert(alertDeliveries)
        .values(rows)
        .onConflictDoNothing()
        .returning({ userId: alertDeliveries.userId });
      return inserted.map((r) => r.userId);
    },

    async deliveries(userId: number) {
      return db
        .select()
        .from(alertDeliveries)
        .where(eq(alertDeliveries.userId, userId))
        .orderBy(sql`${alertDeliveries.createdAt}`);
    },
  };
}

/** The alert emails still owed: claimed under a lease, marked sent, or given back on failure. */
function emailClaims(db: Database) {
  return {
    /**
     * Claims the emails still owed for an alert (none sent yet, no live claim by another consumer),
     * with the recipient's address. A claim older than `leaseMs` is considered abandoned.
     */
    async claimPendingEmails(
      alertKey: string,
      now: Date,
      leaseMs: number,
    ): Promise<{ userId: number; email: string }[]> {
      const expired = new Date(now.getTime() - leaseMs);
      const claimed = await db
        .update(alertDeliveries)
        .set({ emailClaimedAt: now })
        .where(
          and(
            eq(alertDeliveries.alertKey, alertKey),
            eq(alertDeliveries.emailWanted, true),
            isNull(alertDeliveries.emailedAt),
            or(isNull(alertDeliveries.emailClaimedAt), lt(alertDeliveries.emailClaimedAt, expired)),
          ),
        )
        .returning({ userId: alertDeliveries.userId });
      if (claimed.length === 0) return [];
      return db
        .select({ userId: users.id, email: users.email })
        .from(users)
        .where(
          inArray(
            users.id,
            claimed.map((c) => c.userId),
          ),
        );
    },

    async markEmailed(userId: number, alertKey: string, now: Date): Promise<void> {
      await db
        .update(alertDeliveries)
        .set({ emailedAt: now })
        .where(and(eq(alertDeliveries.userId, userId), eq(alertDeliveries.alertKey, alertKey)));
    },

    /** A failed send gives its claim back, so that the retry need not wait for the lease. */
    async releaseClaim(userId: number, alertKey: string): Promise<void> {
      await db
        .update(alertDeliveries)
        .set({ emailClaimedAt: null })
        .where(
          and(
            eq(alertDeliveries.userId, userId),
            eq(alertDeliveries.alertKey, alertKey),
            isNull(alertDeliveries.emailedAt),
          ),
        );
    },
  };
}

export function createAlertRepository(db: Database) {
  return { ...deliveryRecords(db), ...emailClaims(db) };
}

export type AlertRepository = ReturnType<typeof createAlertRepository>;
