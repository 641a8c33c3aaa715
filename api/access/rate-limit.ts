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

/** One window's share of a request: which counter, under which limit. */
interface WindowCharge {
  window: WindowName;
  key: string;
  limit: number;
  /** The day window's key lifetime (seconds); the others use their window's duration. */
  customDuration?: number;
}

type Outcome =
  | { ok: true; state: WindowState; lease: Lease; giveBack: () => Promise<void> }
  | { ok: false; state: WindowState };

const WINDOW_SECONDS: Record<WindowName, number> = {
  minute: MINUTE_SECONDS,
  hour: HOUR_SECONDS,
  day: DAY_SECONDS,
};

/**
 * One limiter per (window, points): a key's limits can differ and change (keys set-limits);
 * the counters live under the window's prefix, so a change of limit keeps the count.
 */
function createLimiterPool(redis: Redis, prefix: string) {
  const limiters = new Map<string, RateLimiterRedis>();
  return (window: WindowName, points: number): RateLimiterRedis => {
    const id = `${window}:${points}`;
    let l = limiters.get(id);
    if (!l) {
      l = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:rl:${window}`,
        points,
        duration: WINDOW_SECONDS[window],
      });
      limiters.set(id, l);
    }
    return l;
  };
}

/** What a window shows after a point was taken from `lease`. */
function leaseState(window: WindowName, lease: Lease): WindowState {
  const remaining = Math.max(0, lease.limit - lease.consumedAtLease + lease.left);
  return { window, limit: lease.limit, remaining, resetAt: lease.resetAt };
}

/**
 * Takes `chunk` points from Redis. When that goes over the limit, part of the chunk may still fit:
 * that part is granted and the rest given back.
 */
async function leaseFromRedis(
  limiter: RateLimiterRedis,
  key: string,
  limit: number,
  chunk: number,
  opts: { customDuration?: number },
): Promise<{ granted: number; consumedAtLease: number; msBeforeNext: number }> {
  let res: RateLimiterRes;
  let granted = chunk;
  try {
    res = await limiter.consume(key, chunk, opts);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    res = error;
    granted = Math.max(0, Math.min(chunk, limit - (res.consumedPoints - chunk)));
    if (chunk - granted > 0) await limiter.reward(key, chunk - granted, opts);
  }
  const consumedAtLease = res.consumedPoints - (chunk - granted);
  return { granted, consumedAtLease, msBeforeNext: res.msBeforeNext };
}

/** A refused request: the window that frees up last decides when to come back. */
function refusal(refused: Outcome[], nowMs: number): RateDecision {
  const blocking = refused.reduce((a, b) => (b.state.resetAt > a.state.resetAt ? b : a)).state;
  const retryAfterSeconds = Math.max(1, Math.ceil((blocking.resetAt - nowMs) / 1000));
  return { allowed: false, tightest: blocking, retryAfterSeconds };
}

/** The tightest window: fewest requests left; on a tie, the one that resets first. */
function tightestOf(states: WindowState[]): WindowState {
  return states.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a,
  );
}

export function createRateLimiter(options: {
  redis: Redis;
  prefix: string;
  clock: Clock;
}): RateLimiter {
  const limiter = createLimiterPool(options.redis, options.prefix);
  const leases = new Map<string, Lease>();
  /**
   * In-flight lease requests: concurrent requests of one subject wait for one lease, not take one
   * each.
   */
  const inFlight = new Map<string, Promise<unknown>>();

  /** One point from the local lease, or a new lease from Redis. */
  async function take(charge: WindowCharge, nowMs: number): Promise<Outcome> {
    const { window, key, limit } = charge;
    const leaseKey = `${window}:${key}`;
    for (let waits = 0; inFlight.has(leaseKey) && waits < 3; waits++) await inFlight.get(leaseKey);
    const held = leases.get(leaseKey);
    if (held && held.limit === limit && held.left > 0 && nowMs < held.resetAt) {
      held.left -= 1;
      const giveBack = async () => {
        held.left += 1;
      };
      return { ok: true, lease: held, giveBack, state: leaseState(window, held) };
    }
    const chunk = Math.max(1, Math.floor(limit * LEASE_FRACTION));
    if (chunk === 1) return fetchLease(charge, leaseKey, chunk, nowMs);
    const fetching = fetchLease(charge, leaseKey, chunk, nowMs);
    inFlight.set(
      leaseKey,
      fetching.catch(() => undefined),
    );
    try {
      return await fetching;
    } finally {
      inFlight.delete(leaseKey);
    }
  }

  async function fetchLease(
    { window, key, limit, customDuration }: WindowCharge,
    leaseKey: string,
    chunk: number,
    nowMs: number,
  ): Promise<Outcome> {
    const l = limiter(window, limit);
    const opts = customDuration === undefined ? {} : { customDuration };
    const taken = await leaseFromRedis(l, key, limit, chunk, opts);
    const resetAt =
      customDuration === undefined ? nowMs + taken.msBeforeNext : nextUtcMidnight(options.clock());
    if (taken.granted === 0) return { ok: false, state: { window, limit, remaining: 0, resetAt } };
    const lease: Lease = {
      limit,
      left: taken.granted - 1,
      consumedAtLease: taken.consumedAtLease,
      resetAt,
    };
    if (leases.size >= MAX_LEASES) leases.clear();
    leases.set(leaseKey, lease);
    // A single point goes back to Redis at once (exact limits across processes); a larger lease
    // keeps it.
    const giveBack =
      taken.granted === 1
        ? async () => {
            leases.delete(leaseKey);
            await l.reward(key, 1, opts);
          }
        : async () => {
            lease.left += 1;
          };
    return { ok: true, lease, giveBack, state: leaseState(window, lease) };
  }

  return {
    async consume(subject, limits) {
      const now = options.clock();
      const nowMs = now.getTime();
      const dayKey = `${subject}:${utcDate(now)}`;
      const dayDuration = Math.ceil((nextUtcMidnight(now) - nowMs) / 1000) + DAY_KEY_GRACE_SECONDS;
      const outcomes = await Promise.all([
        take({ window: 'minute', key: subject, limit: limits.perMinute }, nowMs),
        take({ window: 'hour', key: subject, limit: limits.perHour }, nowMs),
        take(
          { window: 'day', key: dayKey, limit: limits.perDay, customDuration: dayDuration },
          nowMs,
        ),
      ]);
      const refused = outcomes.filter((o) => !o.ok);
      if (refused.length > 0) {
        // A refused request does not use up the other windows' quota: their point goes back to
        // the lease.
        await Promise.all(outcomes.map((o) => (o.ok ? o.giveBack() : undefined)));
        return refusal(refused, nowMs);
      }
      return { allowed: true, tightest: tightestOf(outcomes.map((o) => o.state)) };
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
