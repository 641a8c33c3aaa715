import type { ChainableCommander, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import { type Clock, utcDate } from './rate-limit.ts';

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

interface UsageOptions {
  redis: Redis;
  prefix: string;
  accounts: AccountRepository;
  clock: Clock;
  logger: Logger;
}

/** Requests of one key on one UTC day not yet pushed to Redis. */
interface LocalCount {
  keyId: number;
  day: Date;
  count: number;
  last: number;
}

/** Where usage lives in Redis. */
function usageKeys(prefix: string) {
  return {
    /** The set of key ids with a pending delta for Postgres. */
    dirty: `${prefix}:usage:dirty`,
    /** Hash: `pending` (requests not yet in Postgres) and `last` (epoch ms of the last request). */
    hash: (id: number) => `${prefix}:usage:${id}`,
    day: (id: number, now: Date) => `${prefix}:usage:${id}:d:${utcDate(now)}`,
    month: (id: number, now: Date) => `${prefix}:usage:${id}:m:${utcDate(now).slice(0, 7)}`,
  };
}

type UsageKeys = ReturnType<typeof usageKeys>;

/** Queues one local count's Redis updates on `pipeline`. */
function queueCount(pipeline: ChainableCommander, keys: UsageKeys, entry: LocalCount): void {
  const { keyId, day, count, last } = entry;
  pipeline
    .incrby(keys.day(keyId, day), count)
    .expire(keys.day(keyId, day), DAY_TTL_SECONDS)
    .incrby(keys.month(keyId, day), count)
    .expire(keys.month(keyId, day), MONTH_TTL_SECONDS)
    .hincrby(keys.hash(keyId), 'pending', count)
    .hset(keys.hash(keyId), 'last', String(last))
    .sadd(keys.dirty, String(keyId));
}

/** Reads one key's replies to `get day`, `get month`, `hmget pending last`. */
function usageFromReplies(replies: [Error | null, unknown][]): KeyUsage {
  const [day, month, hash] = replies.map((r) => r?.[1]) as [
    string | null,
    string | null,
    (string | null)[],
  ];
  return {
    requestsToday: Number(day ?? 0),
    requestsThisMonth: Number(month ?? 0),
    unflushed: Number(hash?.[0] ?? 0),
    lastUsed: hash?.[1] ? new Date(Number(hash[1])) : null,
  };
}

/** Reads the counters of `keyIds` in one pipeline. */
async function readUsage(
  redis: Redis,
  keys: UsageKeys,
  keyIds: number[],
  now: Date,
): Promise<Map<number, KeyUsage>> {
  const result = new Map<number, KeyUsage>();
  if (keyIds.length === 0) return result;
  const pipeline = redis.pipeline();
  for (const id of keyIds) {
    pipeline
      .get(keys.day(id, now))
      .get(keys.month(id, now))
      .hmget(keys.hash(id), 'pending', 'last');
  }
  const replies = (await pipeline.exec()) ?? [];
  keyIds.forEach((id, i) => {
    result.set(id, usageFromReplies(replies.slice(i * 3, i * 3 + 3)));
  });
  return result;
}

/** Moves one key's pending delta into Postgres; on failure the delta goes back to Redis. */
async function flushKey(
  redis: Redis,
  keys: UsageKeys,
  accounts: AccountRepository,
  id: number,
): Promise<number> {
  const [pending, last] = (await redis.eval(TAKE_PENDING, 1, keys.hash(id))) as [number, string];
  if (pending <= 0) return 0;
  try {
    await accounts.addUsage(id, pending, new Date(Number(last)));
    return pending;
  } catch (error) {
    // Give the delta back: it is flushed next time.
    await redis
      .multi()
      .hincrby(keys.hash(id), 'pending', pending)
      .sadd(keys.dirty, String(id))
      .exec();
    throw error;
  }
}

/** Moves every pending delta into Postgres; answers how many requests moved. */
async function flushDirtyKeys(
  redis: Redis,
  keys: UsageKeys,
  accounts: AccountRepository,
): Promise<number> {
  let moved = 0;
  for (;;) {
    const ids = await redis.spop(keys.dirty, FLUSH_BATCH);
    if (ids.length === 0) return moved;
    for (const id of ids.map(Number)) moved += await flushKey(redis, keys, accounts, id);
  }
}

export function createUsageCounter(options: UsageOptions): UsageCounter {
  const { redis, clock } = options;
  const keys = usageKeys(options.prefix);
  let timer: NodeJS.Timeout | undefined;
  let localTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<number> | undefined;
  /** keyId → requests since the last push, per UTC day (a push may straddle midnight). */
  let local = new Map<string, LocalCount>();

  /** Adds the in-process counts to Redis in one pipeline. */
  async function pushLocal(): Promise<void> {
    if (local.size === 0) return;
    const batch = local;
    local = new Map();
    const pipeline = redis.pipeline();
    for (const entry of batch.values()) queueCount(pipeline, keys, entry);
    try {
      await pipeline.exec();
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, 'usage not recorded');
    }
  }

  function schedulePush(): void {
    if (localTimer) return;
    localTimer = setTimeout(() => {
      localTimer = undefined;
      void pushLocal();
    }, LOCAL_FLUSH_INTERVAL_MS);
    localTimer.unref();
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
      schedulePush();
    },

    async read(keyIds) {
      // This process's own counts first; other processes' arrive within a second.
      await pushLocal();
      return readUsage(redis, keys, keyIds, clock());
    },

    async flush() {
      await pushLocal();
      // One flush at a time per process; concurrent processes are safe thanks to TAKE_PENDING.
      flushing ??= flushDirtyKeys(redis, keys, options.accounts).finally(() => {
        flushing = undefined;
      });
      return flushing;
    },

    start() {
      timer ??= setInterval(() => {
        this.flush().catch((error: Error) =>
          options.logger.warn({ err: error.message }, 'usage flush failed'),
        );
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
