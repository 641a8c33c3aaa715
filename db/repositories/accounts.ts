import { and, desc, eq, sql } from 'drizzle-orm';
import type { GeneratedKey } from '../../src/accounts/credentials.ts';
import type { Plan } from '../../src/plans.ts';
import type { Database } from '../client.ts';
import { apiKeys, tokens, users, watchlist } from '../schema.ts';
import { planQueries } from './account-plans.ts';
import type { ApiKeyRow, UserRow } from './rows.ts';

/** Users, API keys and watchlists. Every query is parameterized through drizzle. */

export type { ApiKeyRow, UserRow } from './rows.ts';

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

/** Accounts: sign-up, login lookups, password and alert preferences. */
function userQueries(db: Database) {
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
  };
}

/** API keys: issuing, listing, revoking and the authentication lookup. */
function keyQueries(db: Database) {
  return {
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
  };
}

/** API keys as the operator and the usage flush see them: limits and request counts. */
function keyAdminQueries(db: Database) {
  return {
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
  };
}

/** Watchlists: the tokens a user follows. */
function watchlistQueries(db: Database) {
  return {
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

export function createAccountRepository(db: Database) {
  return {
    ...userQueries(db),
    ...planQueries(db),
    ...keyQueries(db),
    ...keyAdminQueries(db),
    ...watchlistQueries(db),
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;
