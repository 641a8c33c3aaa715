import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Failed authentication per client address, in Redis so that it holds across API instances:
 * random `svc_pro_…` keys, bad JWTs, refused WebSocket upgrades and wrong Bull Board logins all
 * count here. Callers ask `blocked` before any database work, and `fail` after a refusal; an
 * address over the limit gets 429 until its window ends, whatever credential it sends next.
 */

/** Failed attempts an address may make per window: far above any honest client's typos. */
export const FAILED_AUTH_LIMIT = 30;
export const FAILED_AUTH_WINDOW_SECONDS = 300;

export type ThrottleState = { blocked: false } | { blocked: true; retryAfterSeconds: number };

export interface FailedAuthThrottle {
  /** Whether the address used up its failed attempts (one Redis read, no database). */
  blocked(address: string): Promise<ThrottleState>;
  /** Records a failed attempt: blocked once the address is past its limit (then 429, not 401). */
  fail(address: string): Promise<ThrottleState>;
}

export interface FailedAuthOptions {
  redis: Redis;
  prefix: string;
  /** Separate counters: `auth` (API and WebSocket credentials), `admin` (Bull Board logins). */
  scope?: string;
  limit?: number;
  windowSeconds?: number;
}

export function createFailedAuthThrottle(options: FailedAuthOptions): FailedAuthThrottle {
  const limit = options.limit ?? FAILED_AUTH_LIMIT;
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.prefix}:authfail:${options.scope ?? 'auth'}`,
    points: limit,
    duration: options.windowSeconds ?? FAILED_AUTH_WINDOW_SECONDS,
  });
  const refused = (res: RateLimiterRes): ThrottleState => ({
    blocked: true,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    async blocked(address) {
      const res = await limiter.get(address);
      return res && res.consumedPoints >= limit ? refused(res) : { blocked: false };
    },
    async fail(address) {
      try {
        await limiter.consume(address);
        return { blocked: false };
      } catch (error) {
        if (error instanceof RateLimiterRes) return refused(error);
        throw error;
      }
    },
  };
}
