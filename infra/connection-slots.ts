import type { Redis } from 'ioredis';

/**
 * Per-user WebSocket connection slots shared by every API instance: a Redis sorted set per user
 * whose members are connection ids scored by their expiry. An instance renews its connections'
 * scores on each heartbeat; a crashed instance's slots expire on their own.
 */

export const SLOT_TTL_MS = 90_000;

// Drops expired slots, then takes one if fewer than the limit are held. Atomic across instances.
const TAKE_SCRIPT = `
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[5])
return 1`;

export interface ConnectionSlots {
  take(userId: number, connectionId: string, limit: number): Promise<boolean>;
  renew(userId: number, connectionId: string): Promise<void>;
  release(userId: number, connectionId: string): Promise<void>;
}

export function createConnectionSlots(redis: Redis, prefix: string, now: () => number = Date.now): ConnectionSlots {
  const key = (userId: number) => `${prefix}:ws:slots:${userId}`;
  return {
    async take(userId, connectionId, limit) {
      if (limit <= 0) return false;
      const t = now();
      return (await redis.eval(TAKE_SCRIPT, 1, key(userId), String(t), String(limit), String(t + SLOT_TTL_MS), connectionId, String(SLOT_TTL_MS * 2))) === 1;
    },
    async renew(userId, connectionId) {
      await redis.zadd(key(userId), 'XX', now() + SLOT_TTL_MS, connectionId);
    },
    async release(userId, connectionId) {
      await redis.zrem(key(userId), connectionId);
    },
  };
}
