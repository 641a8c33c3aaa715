import { and, desc, eq, inArray, isNotNull, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { GeneratedKey } from '../../src/accounts/credentials.ts';
import { DAY_MS, PAYMENT_GRACE_DAYS, type Plan, PURGE_AFTER_DAYS } from '../../src/plans.ts';
import type { Database } from '../client.ts';
import { apiKeys, tokens, users, watchlist } from '../schema.ts';

/** Users, API keys and watchlists. Every query is parameterized through drizzle. */

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

const UNIQUE_VIOLATION = '23505';
const ONE_ACTIVE_INDEX = 'api_keys_one_active_idx';
const GENERATE_ATTEMPTS = 5;

export interface KeyLimits {
  requestsPerMinute: number;
  requestsPerHour: number;
  requestsPerDay: number;
}

/** What authentication needs about a key, in one indexed lookup. */
export interface KeyPrincipal {
  key: ApiKeyRow;
  user: UserRow;
}

function isUniqueViolation(error: unknown, constraint?: string): boolean {
  // drizzle wraps driver errors; the postgres.js error is the cause.
  for (
    let e = error as { code?: string; constraint_name?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (
      e.code === UNIQUE_VIOLATION &&
      (constraint === undefined || e.constraint_name === constraint)
    )
      return true;
    if (e.cause === e) break;
  }
  return false;
}

export function createAccountRepository(db: Database) {
  return {
    /** undefined when the email is taken. */
    async createUser(input: {
      email: string;
      passwordHash: string;
      plan: Plan;
      trialEndsAt?: Date | null;
    }): Promise<UserRow | undefined> {
      const [row] = await db
        .insert(users)
        .values({
          email: input.email,
          passwordHash: input.passwordHash,
          plan: input.plan,
          trialEndsAt: input.trialEndsAt ?? null,
        })
        .onConflictDoNothing({ target: users.email })
        .returning();
      return row;
    },

    async userByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.email, email));
      return row;
    },

    async setPasswordHash(email: string, passwordHash: string): Promise<void> {
      await db.update(users).set({ passwordHash }).where(eq(users.email, email));
    },

    async userById(id: number): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.id, id));
      return row;
    },

    /**
     * An operator's plan change. A paid plan clears any failed payment and downgrade; `trialEndsAt`
     * makes it a trial (null: a paid plan without end). FREE records the downgrade.
     */
    async setPlan(
      email: string,
      plan: Plan,
      options: { trialEndsAt?: Date | null; now: Date },
    ): Promise<UserRow | undefined> {
      const paid = plan !== 'FREE';
      const [row] = await db
        .update(users)
        .set(
          paid
            ? {
                plan,
                trialEndsAt: options.trialEndsAt ?? null,
                paymentFailedAt: null,
                downgradedAt: null,
                downgradedFrom: null,
                purgedAt: null,
                updatedAt: options.now,
              }
            : {
                plan,
                downgradedAt: sql`case when ${users.plan} <> 'FREE' then ${options.now.toISOString()}::timestamptz else ${users.downgradedAt} end`,
                downgradedFrom: sql`case when ${users.plan} <> 'FREE' then ${users.plan} else ${users.downgradedFrom} end`,
                trialEndsAt: null,
                paymentFailedAt: null,
                updatedAt: options.now,
              },
        )
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
    async runMaintenance(now: Date): Promise<{
      downgraded: { id: number; email: string; from: string; reason: string }[];
      purged: number[];
    }> {
      const graceCutoff = new Date(now.getTime() - PAYMENT_GRACE_DAYS * DAY_MS);
      const purgeCutoff = new Date(now.getTime() - PURGE_AFTER_DAYS * DAY_MS);
      return db.transaction(async (tx) => {
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
        return {
          downgraded: downgraded.map((d) => ({
            id: d.id,
            email: d.email,
            from: d.from ?? 'unknown',
            reason:
              d.trialEndsAt && d.trialEndsAt.getTime() <= now.getTime()
                ? 'trial_ended'
                : 'payment_failed',
          })),
          purged: ids,
        };
      });
    },

    /**
     * Revokes the user's active key and creates a new one, atomically. Two concurrent calls: the
     * partial unique index lets only one active key commit; the loser's transaction fails with a
     * unique violation and is retried, this time seeing (and revoking) the winner's key.
     */
    async generateKey(
      userId: number,
      key: GeneratedKey,
      meta: {
        name: string;
        description: string | null;
        plan: string;
        now: Date;
        expiresAt: Date | null;
      },
    ): Promise<ApiKeyRow> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction(async (tx) => {
            await tx
              .update(apiKeys)
              .set({ status: 'revoked', revokedAt: meta.now })
              .where(and(eq(apiKeys.userId, userId), eq(apiKeys.status, 'active')));
            const [row] = await tx
              .insert(apiKeys)
              .values({
                userId,
                keyHash: key.keyHash,
                secretHash: key.secretHash,
                maskedKey: key.maskedKey,
                name: meta.name,
                description: meta.description,
                plan: meta.plan,
                status: 'active',
                createdAt: meta.now,
                expiresAt: meta.expiresAt,
              })
              .returning();
            if (!row) throw new Error('insert returned no row');
            return row;
          });
        } catch (error) {
          if (attempt < GENERATE_ATTEMPTS && isUniqueViolation(error, ONE_ACTIVE_INDEX)) continue;
          throw error;
        }
      }
    },

    async activeKeys(userId: number): Promise<ApiKeyRow[]> {
      return db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), eq(apiKeys.status, 'active')))
        .orderBy(desc(apiKeys.createdAt));
    },

    /** Revokes the caller's active key named by its hash or its masked form; undefined when none matches. */
    async revokeKey(
      userId: number,
      by: { keyHash: string } | { maskedKey: string },
      now: Date,
    ): Promise<ApiKeyRow | undefined> {
      const match =
        'keyHash' in by ? eq(apiKeys.keyHash, by.keyHash) : eq(apiKeys.maskedKey, by.maskedKey);
      const [row] = await db
        .update(apiKeys)
        .set({ status: 'revoked', revokedAt: now })
        .where(and(eq(apiKeys.userId, userId), eq(apiKeys.status, 'active'), match))
        .returning();
      return row;
    },

    /** The key with this hash and its owner, whatever their state: the caller decides. */
    async principalByKeyHash(keyHash: string): Promise<KeyPrincipal | undefined> {
      const [row] = await db
        .select({ key: apiKeys, user: users })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(eq(apiKeys.keyHash, keyHash));
      return row;
    },

    /** Operator: raise or lower a key's limits. Named by hash, or by masked form when that is unambiguous. */
    async setKeyLimits(
      by: { keyHash: string } | { maskedKey: string },
      limits: KeyLimits,
    ): Promise<ApiKeyRow[]> {
      const match =
        'keyHash' in by
          ? eq(apiKeys.keyHash, by.keyHash)
          : and(eq(apiKeys.maskedKey, by.maskedKey), eq(apiKeys.status, 'active'));
      const found = await db.select({ id: apiKeys.id }).from(apiKeys).where(match);
      if (found.length !== 1) return found as ApiKeyRow[];
      return db.update(apiKeys).set(limits).where(eq(apiKeys.id, found[0]!.id)).returning();
    },

    /** Adds usage counted in Redis since the last flush. */
    async addUsage(keyId: number, requests: number, lastUsed: Date): Promise<void> {
      await db
        .update(apiKeys)
        .set({
          totalRequests: sql`${apiKeys.totalRequests} + ${requests}`,
          lastUsed: sql`greatest(${apiKeys.lastUsed}, ${lastUsed.toISOString()}::timestamptz)`,
        })
        .where(eq(apiKeys.id, keyId));
    },

    /** Email alerts on or off, and (when given) the alert kinds, kept in users.preferences.alert_kinds. */
    async setAlertPreferences(
      userId: number,
      input: { emailAlerts: boolean; alertKinds?: string[] },
      now: Date,
    ): Promise<UserRow | undefined> {
      const [row] = await db
        .update(users)
        .set({
          emailAlerts: input.emailAlerts,
          ...(input.alertKinds === undefined
            ? {}
            : {
                preferences: sql`${users.preferences} || ${JSON.stringify({ alert_kinds: input.alertKinds })}::jsonb`,
              }),
          updatedAt: now,
        })
        .where(eq(users.id, userId))
        .returning();
      return row;
    },

    async watchlist(userId: number) {
      return db
        .select({ entry: watchlist, token: tokens })
        .from(watchlist)
        .leftJoin(
          tokens,
          and(eq(tokens.chainId, watchlist.chainId), eq(tokens.address, watchlist.address)),
        )
        .where(eq(watchlist.userId, userId))
        .orderBy(desc(watchlist.createdAt), desc(watchlist.address));
    },

    async watchlistCount(userId: number): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(watchlist)
        .where(eq(watchlist.userId, userId));
      return row?.n ?? 0;
    },

    /** false when already tracked. */
    async addToWatchlist(
      userId: number,
      chainId: number,
      address: string,
    ): Promise<{ added: boolean; createdAt: Date }> {
      const [row] = await db
        .insert(watchlist)
        .values({ userId, chainId, address })
        .onConflictDoNothing()
        .returning();
      return row
        ? { added: true, createdAt: row.createdAt }
        : { added: false, createdAt: new Date(0) };
    },

    /** The removed entries (several when no chain_id was given and the address exists on several chains). */
    async removeFromWatchlist(
      userId: number,
      address: string,
      chainId?: number,
    ): Promise<{ chainId: number; address: string }[]> {
      const where =
        chainId === undefined
          ? and(eq(watchlist.userId, userId), eq(watchlist.address, address))
          : and(
              eq(watchlist.userId, userId),
              eq(watchlist.address, address),
              eq(watchlist.chainId, chainId),
            );
      return db
        .delete(watchlist)
        .where(where)
        .returning({ chainId: watchlist.chainId, address: watchlist.address });
    },
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;
