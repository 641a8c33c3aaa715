import type { Redis } from 'ioredis';

/**
 * A Redis cache of hot tokens' complete objects, for the PRO detail and bulk operations.
 *
 * Invalidation by version: every writer of a token's data (the pipeline stages, the refresh
 * scheduler, the API when it records a submitted token) calls `bump`, which increments the
 * token's version key. A cached entry carries the version it was built from, and counts only
 * while that is still the current version. Reading the version before querying Postgres closes
 * the race in which a reader would store data older than a concurrent write. Entries also expire
 * after a short TTL: a writer that forgot to bump is stale for at most that long, and cold tokens
 * leave the cache on their own.
 */

export const TOKEN_CACHE_TTL_SECONDS = 60;
const VERSION_TTL_SECONDS = 86_400;
/** Entries also kept parsed in the process (checked against the Redis version on every read). */
const LOCAL_MAX_ENTRIES = 5_000;
/** Bounds a list page's staleness should some writer not bump the version. */
const LIST_CACHE_TTL_MS = 10_000;

export interface CacheKey {
  chainId: number;
  address: string;
}

export interface TokenCache<T> {
  /** Cached values (hits) and the versions to store misses under. */
  get(keys: readonly CacheKey[]): Promise<{ hits: Map<string, T>; versions: Map<string, string> }>;
  /**
   * Held in this process at once; the Redis write settles later (callers need not wait for it,
   * but must handle its rejection).
   */
  set(entries: { key: CacheKey; version: string; value: T }[]): Promise<void>;
}

const id = (k: CacheKey) => `${k.chainId}:${k.address}`;

export function tokenVersionKey(prefix: string, k: CacheKey): string {
  return `${prefix}:tokver:${id(k)}`;
}

/** Moves whenever any token changes or appears: cached list pages are valid only under one value. */
export function allTokensVersionKey(prefix: string): string {
  return `${prefix}:tokver:all`;
}

/** Called by every writer after it changed a token's data (or recorded a new token). */
export async function bumpTokenVersion(redis: Redis, prefix: string, k: CacheKey): Promise<void> {
  await redis
    .multi()
    .incr(tokenVersionKey(prefix, k))
    .expire(tokenVersionKey(prefix, k), VERSION_TTL_SECONDS)
    .incr(allTokensVersionKey(prefix))
    .exec();
}

/**
 * Serialized list pages held in the process, valid while the all-tokens version is unchanged:
 * the first page of a feed is asked for far more often than tokens change.
 */
export function createListCache(redis: Redis, prefix: string, maxEntries = 1_000) {
  const entries = new Map<string, { v: string; body: string; at: number }>();
  const versionKey = allTokensVersionKey(prefix);
  return {
    async get(key: string): Promise<{ body?: string; version: string }> {
      const version = (await redis.get(versionKey)) ?? '0';
      const hit = entries.get(key);
      const fresh = hit && hit.v === version && Date.now() - hit.at < LIST_CACHE_TTL_MS;
      return { body: fresh ? hit.body : undefined, version };
    },
    set(key: string, version: string, body: string) {
      if (entries.size >= maxEntries) entries.clear();
      entries.set(key, { v: version, body, at: Date.now() });
    },
  };
}

export function createTokenCache<T>(redis: Redis, prefix: string): TokenCache<T> {
  const dataKey = (k: CacheKey) => `${prefix}:tokcache:${id(k)}`;
  const local = new Map<string, { v: string; d: T; at: number }>();
  const remember = (key: string, v: string, d: T) => {
    if (local.size >= LOCAL_MAX_ENTRIES) local.clear();
    local.set(key, { v, d, at: Date.now() });
  };
  /** Keeps the entries whose stored version is the current one. */
  const accept = (
    keys: readonly CacheKey[],
    replies: (string | null)[],
    versions: Map<string, string>,
    hits: Map<string, T>,
  ) => {
    keys.forEach((k, i) => {
      const raw = replies[i];
      if (!raw) return;
      const entry = JSON.parse(raw) as { v: string; d: T };
      if (entry.v !== versions.get(id(k))) return;
      hits.set(id(k), entry.d);
      remember(id(k), entry.v, entry.d);
    });
  };
  return {
    async get(keys) {
      const hits = new Map<string, T>();
      const versions = new Map<string, string>();
      if (keys.length === 0) return { hits, versions };
      // One round trip: the versions, and the data of the tokens this process holds nothing of
      // (whatever their version, it has to come from Redis). A token held locally costs its data
      // only when its version moved (a second round trip, for those alone).
      const cold = keys.filter((k) => !local.has(id(k)));
      const pipeline = redis.pipeline().mget(...keys.map((k) => tokenVersionKey(prefix, k)));
      if (cold.length > 0) pipeline.mget(...cold.map(dataKey));
      const replies = (await pipeline.exec()) ?? [];
      for (const [error] of replies) if (error) throw error;
      const current = replies[0]![1] as (string | null)[];
      const stale: CacheKey[] = [];
      keys.forEach((k, i) => {
        const version = current[i] ?? '0';
        versions.set(id(k), version);
        const held = local.get(id(k));
        if (held && held.v === version && Date.now() - held.at < TOKEN_CACHE_TTL_SECONDS * 1000)
          hits.set(id(k), held.d);
        else if (held) stale.push(k);
      });
      if (cold.length > 0) accept(cold, replies[1]![1] as (string | null)[], versions, hits);
      if (stale.length > 0) accept(stale, await redis.mget(...stale.map(dataKey)), versions, hits);
      return { hits, versions };
    },
    set(entries) {
      if (entries.length === 0) return Promise.resolve();
      // Held in the process at once (the next request here sees it); serialized and written to
      // Redis after the current turn of the event loop, so the answer is not kept waiting for it.
      for (const e of entries) remember(id(e.key), e.version, e.value);
      return new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          try {
            const pipeline = redis.pipeline();
            for (const e of entries)
              pipeline.set(
                dataKey(e.key),
                JSON.stringify({ v: e.version, d: e.value }),
                'EX',
                TOKEN_CACHE_TTL_SECONDS,
              );
            pipeline.exec().then((replies) => {
              const failed = replies?.find(([error]) => error);
              if (failed) reject(failed[0]);
              else resolve();
            }, reject);
          } catch (error) {
            reject(error);
          }
        });
      });
    },
  };
}
