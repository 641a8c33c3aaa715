import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Rate limits per subject (an API key, or a user behind a JWT) in three windows, on Redis, so they
 * hold across any number of API processes. The minute and hour windows are fixed windows that start
 * at a subject's first request (rate-limiter-flexible); the day window is keyed by the UTC date of
 * the injected clock, so it resets at midnight UTC whatever the time of the first request.
 */

export interface Limits {
  perMinute: number;
  perHour: number;
  perDay: number;
}

export interface WindowState {
  window: 'minute' | 'hour' | 'day';
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
/** The day key lives a little past midnight; a new date is a new key anyway. */
const DAY_KEY_GRACE_SECONDS = 300;

export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function nextUtcMidnight(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

export interface RateLimiter {
  consume(subject: string, limits: Limits): Promise<RateDecision>;
}

export function createRateLimiter(options: { redis: Redis; prefix: string; clock: Clock }): RateLimiter {
  // One limiter per (window, points): a key's limits can differ and change (keys set-limits);
  // the counters live under the window's prefix, so a change of limit keeps the count.
  const limiters = new Map<string, RateLimiterRedis>();
  const limiter = (window: WindowState['window'], points: number) => {
    const id = `${window}:${points}`;
    let l = limiters.get(id);
    if (!l) {
      l = new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `${options.prefix}:rl:${window}`,
        points,
        duration: window === 'minute' ? MINUTE_SECONDS : window === 'hour' ? HOUR_SECONDS : 86_400,
      });
      limiters.set(id, l);
    }
    return l;
  };

  return {
    async consume(subject, limits) {
      const now = options.clock();
      const nowMs = now.getTime();
      const dayKey = `${subject}:${utcDate(now)}`;
      const dayDuration = Math.ceil((nextUtcMidnight(now) - nowMs) / 1000) + DAY_KEY_GRACE_SECONDS;
      const windows = [
        { window: 'minute' as const, limit: limits.perMinute, key: subject, run: (l: RateLimiterRedis) => l.consume(subject, 1) },
        { window: 'hour' as const, limit: limits.perHour, key: subject, run: (l: RateLimiterRedis) => l.consume(subject, 1) },
        { window: 'day' as const, limit: limits.perDay, key: dayKey, run: (l: RateLimiterRedis) => l.consume(dayKey, 1, { customDuration: dayDuration }) },
      ];
      const settled = await Promise.allSettled(windows.map((w) => w.run(limiter(w.window, w.limit))));
      const states: (WindowState & { rejected: boolean })[] = settled.map((s, i) => {
        const w = windows[i]!;
        if (s.status === 'rejected' && !(s.reason instanceof RateLimiterRes)) throw s.reason;
        const res = s.status === 'fulfilled' ? s.value : (s.reason as RateLimiterRes);
        const resetAt = w.window === 'day' ? nextUtcMidnight(now) : nowMs + res.msBeforeNext;
        return { window: w.window, limit: w.limit, remaining: res.remainingPoints, resetAt, rejected: s.status === 'rejected' };
      });
      const rejected = states.filter((s) => s.rejected);
      if (rejected.length > 0) {
        // A refused request does not use up the other windows' quota.
        await Promise.all(states.map((s, i) => (s.rejected ? undefined : limiter(s.window, s.limit).reward(windows[i]!.key, 1, i === 2 ? { customDuration: dayDuration } : {}))));
        const blocking = rejected.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
        const { rejected: _r, ...tightest } = blocking;
        return { allowed: false, tightest: { ...tightest, remaining: 0 }, retryAfterSeconds: Math.max(1, Math.ceil((blocking.resetAt - nowMs) / 1000)) };
      }
      // The tightest window: fewest requests left; on a tie, the one that resets first.
      const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a));
      const { rejected: _r, ...state } = tightest;
      return { allowed: true, tightest: state };
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
