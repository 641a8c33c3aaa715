import { Redis, type RedisOptions } from 'ioredis';

/**
 * Redis connections by role, following BullMQ's production checklist: blocking worker
 * connections retry forever (maxRetriesPerRequest null); producers fail fast when Redis is down
 * (enableOfflineQueue false) so that callers can answer "not ready" instead of hanging;
 * `commands` connections (events, leases, cache versions, rate limits) keep ioredis's defaults:
 * commands issued while reconnecting are queued and sent once the connection is back.
 */
export type RedisRole = 'worker' | 'producer' | 'commands';

const MAX_RECONNECT_DELAY_MS = 2_000;

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    ...(role === 'worker' ? { maxRetriesPerRequest: null } : {}),
    ...(role === 'producer' ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 } : {}),
    ...extra,
  };
  const redis = new Redis(url, options);
  // An 'error' listener is mandatory: without one, a connection error crashes the process.
  redis.on('error', () => {});
  return redis;
}

/** Resolves when the connection is ready, or rejects after `timeoutMs`. */
export async function waitForRedis(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

export interface KeySpace {
  prefix: string;
  events: string;
  lease: (name: string) => string;
  key: (...parts: (string | number)[]) => string;
}

export function keySpace(prefix: string): KeySpace {
  return {
    prefix,
    events: `${prefix}:events`,
    lease: (name) => `${prefix}:lease:${name}`,
    key: (...parts) => [prefix, ...parts].join(':'),
  };
}
