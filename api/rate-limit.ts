import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Rate limits per subject (an API key, or a user behind a JWT) in three windows, on Redis, so they
 * hold across any number of API processes. The minute and hour windows are fixed windows that start
 * at a subject's first request (rate-limiter-flexible); the day window is keyed by the UTC date of
 * the injected clock, so it resets at midnight UTC whatever the time of the first request.
 *
 * Leases: a process takes points from Redis in chunks of 1% of the window's limit (at least 1) and
 * spends them locally. Limits up to 100 per window are therefore enforced point by point, exactly
 * as without leases; raised limits cost one Redis call per chunk instead of per request. A lease is
 * only granted from the global count, so no window ever admits more than its limit; the price is
 * that unused leased points of one process can make another refuse up to 1% early per process.
 */

export interface Limits {
  perMinute: number;
  perHour: number;
  perDay: number;
}

export type WindowName = 'minute' | 'hour' | 'day';

export interface WindowState {
  window: WindowName;
  limit: number;
  remaining: number;
  /** When this window resets (epoch ms). */
  resetAt: number;
}

export type RateDecision =
  | { allowed: true; tightest: WindowState }
  | { allowed: false; tightest: WindowState; retryAfterSeconds: number };

export type Clock = () => Date;

const MINUTE_SECONDS = 60;
const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 86_400;
/** The day key lives a little past midnight; a new date is a new key anyway. */
const DAY_KEY_GRACE_SECONDS = 300;
/** Share of a window's limit leased at once. */
const LEASE_FRACTION = 0.01;
const MAX_LEASES = 100_000;

export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function nextUtcMidnight(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

export interface RateLimiter {
  consume(subject: string, limits: Limits): Promise<RateDecision>;
}

interface Lease {
  limit: number;
  /** Points taken from Redis and not spent yet. */
  left: number;
  /** The global count right after this lease was taken. */
  consumedAtLease: number;
  resetAt: number;
}

type Outcome = { ok: true; state: WindowState; lease: Lease; giveBack: () => Promise<void> } | { ok: false; state: WindowState };

export function createRateLimiter(options: { redis: Redis; prefix: string; clock: Clock }): RateLimiter {
  // One limiter per (window, points): a key's limits can differ and change (keys set-limits);
  // the counters live under the window's prefix, so a change of limit keeps the count.
  const limiters = new Map<string, RateLimiterRedis>();
  const leases = new Map<string, Lease>();
  const limiter = (window: WindowName, points: number) => {
    const id = `${window}:${points}`;
    let l = limiters.get(id);
    if (!l) {
      l = new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `${options.prefix}:rl:${window}`,
        points,
        duration: window === 'minute' ? MINUTE_SECONDS : window === 'hour' ? HOUR_SECONDS : DAY_SECONDS,
      });
      limiters.set(id, l);
    }
    return l;
  };

  /** In-flight lease requests: concurrent requests of one subject wait for one lease, not take one each. */
  const inFlight = new Map<string, Promise<unknown>>();

  /** One point from the local lease, or a new lease from Redis. */
  async function take(window: WindowName, key: string, limit: number, nowMs: number, customDuration?: number): Promise<Outcome> {
    const leaseKey = `${window}:${key}`;
    for (let waits = 0; inFlight.has(leaseKey) && waits < 3; waits++) await inFlight.get(leaseKey);
    const held = leases.get(leaseKey);
    if (held && held.limit === limit && held.left > 0 && nowMs < held.resetAt) {
      held.left -= 1;
      return { ok: true, lease: held, giveBack: async () => {
        held.left += 1;
      }, state: { window, limit, remaining: Math.max(0, limit - held.consumedAtLease + held.left), resetAt: held.resetAt } };
    }
    const chunk = Math.max(1, Math.floor(limit * LEASE_FRACTION));
    if (chunk === 1) return fetchLease(window, key, leaseKey, limit, chunk, nowMs, customDuration);
    const fetching = fetchLease(window, key, leaseKey, limit, chunk, nowMs, customDuration);
    inFlight.set(leaseKey, fetching.catch(() => undefined));
    try {
      return await fetching;
    } finally {
      inFlight.delete(leaseKey);
    }
  }

  async function fetchLease(window: WindowName, key: string, leaseKey: string, limit: number, chunk: number, nowMs: number, customDuration?: number): Promise<Outcome> {
    const l = limiter(window, limit);
    const opts = customDuration === undefined ? {} : { customDuration };
    let res: RateLimiterRes;
    let refused = false;
    try {
      res = await l.consume(key, chunk, opts);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      res = error;
      refused = true;
    }
    const resetAt = customDuration === undefined ? nowMs + res.msBeforeNext : nextUtcMidnight(options.clock());
    let granted = chunk;
    if (refused) {
      // Part of the chunk may still fit under the limit; give back the rest.
      granted = Math.max(0, Math.min(chunk, limit - (res.consumedPoints - chunk)));
      if (chunk - granted > 0) await l.reward(key, chunk - granted, opts);
      if (granted === 0) return { ok: false, state: { window, limit, remaining: 0, resetAt } };
    }
    const consumedAtLease = res.consumedPoints - (chunk - granted);
    const lease: Lease = { limit, left: granted - 1, consumedAtLease, resetAt };
    if (leases.size >= MAX_LEASES) leases.clear();
    leases.set(leaseKey, lease);
    // A single point goes back to Redis at once (exact limits across processes); a larger lease keeps it.
    const giveBack = granted === 1
      ? async () => {
        leases.delete(leaseKey);
        await l.reward(key, 1, opts);
      }
      : async () => {
          lease.left += 1;
        };
    return { ok: true, lease, giveBack, state: { window, limit, remaining: Math.max(0, limit - consumedAtLease + lease.left), resetAt } };
  }

  return {
    async consume(subject, limits) {
      const now = options.clock();
      const nowMs = now.getTime();
      const dayKey = `${subject}:${utcDate(now)}`;
      const dayDuration = Math.ceil((nextUtcMidnight(now) - nowMs) / 1000) + DAY_KEY_GRACE_SECONDS;
      const outcomes = await Promise.all([
        take('minute', subject, limits.perMinute, nowMs),
        take('hour', subject, limits.perHour, nowMs),
        take('day', dayKey, limits.perDay, nowMs, dayDuration),
      ]);
      const refused = outcomes.filter((o) => !o.ok);
      if (refused.length > 0) {
        // A refused request does not use up the other windows' quota: their point goes back to the lease.
        await Promise.all(outcomes.map((o) => (o.ok ? o.giveBack() : undefined)));
        const blocking = refused.reduce((a, b) => (b.state.resetAt > a.state.resetAt ? b : a)).state;
        return { allowed: false, tightest: blocking, retryAfterSeconds: Math.max(1, Math.ceil((blocking.resetAt - nowMs) / 1000)) };
      }
      // The tightest window: fewest requests left; on a tie, the one that resets first.
      const states = outcomes.map((o) => o.state);
      const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a));
      return { allowed: true, tightest };
    },
  };
}

export function rateLimitHeaders(state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    // Epoch seconds at which the tightest window resets (as GitHub and others do).
    'X-RateLimit-Reset': String(Math.ceil(state.resetAt / 1000)),
  };
}
