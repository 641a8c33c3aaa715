import type { Redis } from 'ioredis';

/**
 * Per-user WebSocket connection slots shared by every API instance: a Redis sorted set per user
 * whose members are connection ids scored by their expiry. An instance renews each of its
 * connections on every heartbeat, which pushes both the slot's expiry and the set's own TTL
 * forward, so the limit holds for as long as the connections live. A crashed instance renews
 * nothing: its slots are pruned at the next admission once their expiry (one TTL) has passed.
 */

/** Three heartbeats (api/ws/broadcaster.ts beats every 30 s): one missed beat never frees a live slot. */
export const SLOT_TTL_MS = 90_000;

// Drops expired slots, then takes one if fewer than the limit are held. Atomic across instances.
// The set lives as long as its latest-expiring slot.
const TAKE_SCRIPT = `
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
local held = redis.call('zscore', KEYS[1], ARGV[4])
if held == false and redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[5])
return 1`;

export interface ConnectionSlotOptions {
  /** How long a slot lives without renewal. */
  ttlMs?: number;
  now?: () => number;
}

export interface ConnectionSlots {
  take(userId: number, connectionId: string, limit: number): Promise<boolean>;
  /**
   * Pushes the slot's expiry forward. A slot that vanished (Redis lost its data) is taken again
   * if the user is still under the limit; false means the connection no longer holds a slot.
   */
  renew(userId: number, connectionId: string, limit: number): Promise<boolean>;
  release(userId: number, connectionId: string): Promise<void>;
}

export function createConnectionSlots(
  redis: Redis,
  prefix: string,
  options: ConnectionSlotOptions = {},
): ConnectionSlots {
  const ttlMs = options.ttlMs ?? SLOT_TTL_MS;
  const now = options.now ?? Date.now;
  const key = (userId: number) => `${prefix}:ws:slots:${userId}`;
  const take = async (userId: number, connectionId: string, limit: number) => {
    if (limit <= 0) return false;
    const t = now();
    // The set outlives its newest slot by a little, never less.
    const setTtl = String(ttlMs + 1_000);
    const args = [String(t), String(limit), String(t + ttlMs), connectionId, setTtl];
    return (await redis.eval(TAKE_SCRIPT, 1, key(userId), ...args)) === 1;
  };
  return {
    take,
    // Renewal is the same script: an existing slot is always kept, a missing one needs room.
    renew: take,
    async release(userId, connectionId) {
      await redis.zrem(key(userId), connectionId);
    },
  };
}
