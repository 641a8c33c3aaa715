import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AccountRepository } from '../db/repositories/accounts.ts';
import { utcDate, type Clock } from './rate-limit.ts';

/**
 * Usage per API key, counted cheaply in three tiers: a request increments an in-process counter
 * (no I/O on the request path); every second each process adds its counts to Redis in one
 * pipeline (requests_today / requests_this_month are Redis counters keyed by the UTC date and
 * month, expiring on their own); every few seconds the running total and last-used time move
 * into Postgres. A pending delta is taken atomically (Lua), so several API processes flushing at
 * once never count a request twice. A crashed process loses at most its last second of counts.
 */

const LOCAL_FLUSH_INTERVAL_MS = 1_000;
const FLUSH_INTERVAL_MS = 5_000;
const FLUSH_BATCH = 500;
const DAY_TTL_SECONDS = 3 * 86_400;
const MONTH_TTL_SECONDS = 40 * 86_400;

/** Returns [pending, last] and zeroes pending, in one atomic step. */
const TAKE_PENDING = `
local pending = tonumber(redis.call('hget', KEYS[1], 'pending') or '0')
local last = redis.call('hget', KEYS[1], 'last') or '0'
if pending > 0 then redis.call('hincrby', KEYS[1], 'pending', -pending) end
return {pending, last}
`;

export interface KeyUsage {
  requestsToday: number;
  requestsThisMonth: number;
  /** Requests counted in Redis but not yet flushed to Postgres. */
  unflushed: number;
  lastUsed: Date | null;
}

export interface UsageCounter {
  record(keyId: number): void;
  read(keyIds: number[]): Promise<Map<number, KeyUsage>>;
  flush(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createUsageCounter(options: { redis: Redis; prefix: string; accounts: AccountRepository; clock: Clock; logger: Logger }): UsageCounter {
  const { redis, prefix, clock } = options;
  const dirtyKey = `${prefix}:usage:dirty`;
  const hashKey = (id: number) => `${prefix}:usage:${id}`;
  const dayKey = (id: number, now: Date) => `${prefix}:usage:${id}:d:${utcDate(now)}`;
  const monthKey = (id: number, now: Date) => `${prefix}:usage:${id}:m:${utcDate(now).slice(0, 7)}`;
  let timer: NodeJS.Timeout | undefined;
  let localTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<number> | undefined;
  /** keyId → requests since the last push, per UTC day (a push may straddle midnight). */
  let local = new Map<string, { keyId: number; day: Date; count: number; last: number }>();

  /** Adds the in-process counts to Redis in one pipeline. */
  async function pushLocal(): Promise<void> {
    if (local.size === 0) return;
    const batch = local;
    local = new Map();
    const pipeline = redis.pipeline();
    for (const { keyId, day, count, last } of batch.values()) {
      pipeline.incrby(dayKey(keyId, day), count).expire(dayKey(keyId, day), DAY_TTL_SECONDS)
        .incrby(monthKey(keyId, day), count).expire(monthKey(keyId, day), MONTH_TTL_SECONDS)
        .hincrby(hashKey(keyId), 'pending', count)
        .hset(hashKey(keyId), 'last', String(last))
        .sadd(dirtyKey, String(keyId));
    }
    try {
      await pipeline.exec();
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, 'usage not recorded');
    }
  }

  async function flushOnce(): Promise<number> {
    let moved = 0;
    for (;;) {
      const ids = await redis.spop(dirtyKey, FLUSH_BATCH);
      if (ids.length === 0) return moved;
      for (const id of ids.map(Number)) {
        const [pending, last] = (await redis.eval(TAKE_PENDING, 1, hashKey(id))) as [number, string];
        if (pending <= 0) continue;
        try {
          await options.accounts.addUsage(id, pending, new Date(Number(last)));
          moved += pending;
        } catch (error) {
          // Give the delta back: it is flushed next time.
          await redis.multi().hincrby(hashKey(id), 'pending', pending).sadd(dirtyKey, String(id)).exec();
          throw error;
        }
      }
    }
  }

  return {
    record(keyId) {
      const now = clock();
      const id = `${keyId}:${utcDate(now)}`;
      const entry = local.get(id);
      if (entry) {
        entry.count += 1;
        entry.last = Math.max(entry.last, now.getTime());
      } else {
        local.set(id, { keyId, day: now, count: 1, last: now.getTime() });
      }
      if (!localTimer) {
        localTimer = setTimeout(() => {
          localTimer = undefined;
          void pushLocal();
        }, LOCAL_FLUSH_INTERVAL_MS);
        localTimer.unref();
      }
    },

    async read(keyIds) {
      // This process's own counts first; other processes' arrive within a second.
      await pushLocal();
      const now = clock();
      const result = new Map<number, KeyUsage>();
      if (keyIds.length === 0) return result;
      const pipeline = redis.pipeline();
      for (const id of keyIds) pipeline.get(dayKey(id, now)).get(monthKey(id, now)).hmget(hashKey(id), 'pending', 'last');
      const replies = (await pipeline.exec()) ?? [];
      keyIds.forEach((id, i) => {
        const [day, month, hash] = replies.slice(i * 3, i * 3 + 3).map((r) => r?.[1]) as [string | null, string | null, (string | null)[]];
        const last = hash?.[1] ? new Date(Number(hash[1])) : null;
        result.set(id, { requestsToday: Number(day ?? 0), requestsThisMonth: Number(month ?? 0), unflushed: Number(hash?.[0] ?? 0), lastUsed: last });
      });
      return result;
    },

    async flush() {
      await pushLocal();
      // One flush at a time per process; concurrent processes are safe thanks to TAKE_PENDING.
      flushing ??= flushOnce().finally(() => {
        flushing = undefined;
      });
      return flushing;
    },

    start() {
      timer ??= setInterval(() => {
        this.flush().catch((error: Error) => options.logger.warn({ err: error.message }, 'usage flush failed'));
      }, FLUSH_INTERVAL_MS);
      timer.unref();
    },

    async stop() {
      if (timer) clearInterval(timer);
      if (localTimer) clearTimeout(localTimer);
      timer = undefined;
      localTimer = undefined;
      await this.flush().catch(() => 0);
    },
  };
}
