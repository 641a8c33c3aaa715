import type { Redis } from 'ioredis';

/**
 * A Redis lease: one holder at a time, lost when the holder stops renewing it (it died or is
 * partitioned). Renew and release only succeed for the holder's own token.
 */

const RENEW_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface Lease {
  tryAcquire(): Promise<boolean>;
  renew(): Promise<boolean>;
  release(): Promise<void>;
  readonly holder: string;
}

export function createLease(redis: Redis, key: string, holder: string, ttlMs: number): Lease {
  return {
    holder,
    async tryAcquire() {
      return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async renew() {
      return (await redis.eval(RENEW_SCRIPT, 1, key, holder, String(ttlMs))) === 1;
    },
    async release() {
      await redis.eval(RELEASE_SCRIPT, 1, key, holder);
    },
  };
}
