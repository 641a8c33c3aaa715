import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { accountNotices, users } from '../schema.ts';
import type { NoticeKind } from './account-plans.ts';

/** The emails owed to account holders about their plan (account_notices), as the sender sees them. */

export interface PendingNotice {
  id: number;
  userId: number;
  email: string;
  kind: NoticeKind;
  details: Record<string, unknown>;
  createdAt: Date;
}

export function noticeQueries(db: Database) {
  return {
    /**
     * Claims up to `limit` unsent notices for `leaseMs`: another sender skips them meanwhile, and
     * takes them over once the lease has run out (a sender that died mid-way).
     */
    async claimPendingNotices(now: Date, leaseMs: number, limit: number): Promise<PendingNotice[]> {
      const staleClaim = new Date(now.getTime() - leaseMs);
      const due = db
        .select({ id: accountNotices.id })
        .from(accountNotices)
        .where(
          and(
            isNull(accountNotices.sentAt),
            or(isNull(accountNotices.claimedAt), lt(accountNotices.claimedAt, staleClaim)),
          ),
        )
        .orderBy(asc(accountNotices.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      const claimed = await db
        .update(accountNotices)
        .set({ claimedAt: now })
        .where(inArray(accountNotices.id, due))
        .returning();
      if (claimed.length === 0) return [];
      const emails = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(inArray(users.id, [...new Set(claimed.map((c) => c.userId))]));
      const emailOf = new Map(emails.map((u) => [u.id, u.email]));
      return claimed
        .filter((c) => emailOf.has(c.userId))
        .sort((a, b) => a.id - b.id)
        .map((c) => ({
          id: c.id,
          userId: c.userId,
          email: emailOf.get(c.userId)!,
          kind: c.kind as NoticeKind,
          details: c.details as Record<string, unknown>,
          createdAt: c.createdAt,
        }));
    },

    async markNoticeSent(id: number, now: Date): Promise<void> {
      await db.update(accountNotices).set({ sentAt: now }).where(eq(accountNotices.id, id));
    },

    async releaseNotice(id: number): Promise<void> {
      await db
        .update(accountNotices)
        .set({ claimedAt: null })
        .where(and(eq(accountNotices.id, id), isNull(accountNotices.sentAt)));
    },

    /** Every notice of an account, oldest first (support and tests). */
    async noticesOf(userId: number) {
      return db
        .select()
        .from(accountNotices)
        .where(eq(accountNotices.userId, userId))
        .orderBy(asc(accountNotices.id));
    },
  };
}
