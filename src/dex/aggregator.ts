/**
 * Optional aggregator: a client for a DexScreener-compatible HTTP API
 * (`GET {base}/tokens/v1/{chainSlug}/{address}` → an array of pairs). Used only to fill a price or
 * a 24 h volume that chain state could not give. It keeps under the API's rate limit (a token
 * bucket per process), caches answers, and never throws: any failure answers null and the caller
 * keeps its chain data.
 */

/** DexScreener's published limit for its token endpoints. */
export const DEFAULT_REQUESTS_PER_MINUTE = 300;
/** Answers are reused this long: DexScreener itself refreshes about once a minute. */
const CACHE_TTL_MS = 60_000;
/** A cached answer still beats nothing for this long when the API is failing. */
const STALE_TTL_MS = 10 * 60_000;
const CACHE_MAX_ENTRIES = 10_000;
const REQUEST_TIMEOUT_MS = 5_000;
/**
 * How long a call may wait for a rate-limit slot before giving up (the caller falls back to chain
 * data).
 */
const MAX_WAIT_FOR_SLOT_MS = 2_000;
/** After a 429 without Retry-After, and after a 5xx, no request for this long. */
const COOLDOWN_AFTER_429_MS = 60_000;
const COOLDOWN_AFTER_ERROR_MS = 5_000;

/** DexScreener's chain ids; other chains are sent as their numeric id. */
const CHAIN_SLUGS: Record<number, string> = {
  1: 'ethereum',
  56: 'bsc',
  137: 'polygon',
  42161: 'arbitrum',
  8453: 'base',
};

export interface AggregatorQuote {
  priceUsd: number | null;
  volume24hUsd: number | null;
  liquidityUsd: number | null;
  pairs: number;
}

export interface AggregatorStats {
  requests: number;
  cacheHits: number;
  failures: number;
  rateLimited: number;
}

export interface AggregatorClient {
  token(chainId: number, address: string): Promise<AggregatorQuote | null>;
  stats(): AggregatorStats;
}

interface ApiPair {
  chainId?: string;
  pairAddress?: string;
  baseToken?: { address?: string };
  priceUsd?: string | number | null;
  volume?: { h24?: number | null } | null;
  liquidity?: { usd?: number | null } | null;
}

const finiteOrNull = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : Number.NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * Reads the pairs where `address` is the base token: price of the deepest, summed volume and
 * liquidity.
 */
export function summarizePairs(body: unknown, address: string): AggregatorQuote | null {
  const list = Array.isArray(body) ? body : (body as { pairs?: unknown } | null)?.pairs;
  if (!Array.isArray(list)) return null;
  const pairs = (list as ApiPair[]).filter((p) => p?.baseToken?.address?.toLowerCase() === address);
  if (pairs.length === 0)
    return { priceUsd: null, volume24hUsd: null, liquidityUsd: null, pairs: 0 };
  const deepest = [...pairs].sort(
    (a, b) => (finiteOrNull(b.liquidity?.usd) ?? -1) - (finiteOrNull(a.liquidity?.usd) ?? -1),
  )[0]!;
  const volumes = pairs
    .map((p) => finiteOrNull(p.volume?.h24))
    .filter((v): v is number => v !== null);
  const liquidity = pairs
    .map((p) => finiteOrNull(p.liquidity?.usd))
    .filter((v): v is number => v !== null);
  return {
    priceUsd: finiteOrNull(deepest.priceUsd),
    volume24hUsd: volumes.length > 0 ? volumes.reduce((a, b) => a + b, 0) : null,
    liquidityUsd: liquidity.length > 0 ? liquidity.reduce((a, b) => a + b, 0) : null,
    pairs: pairs.length,
  };
}

interface AggregatorOptions {
  baseUrl: string;
  requestsPerMinute?: number;
  fetchImpl?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The per-process rate limit: a token bucket of `rpm` slots, plus a pause the API can impose. */
interface SlotLimiter {
  /** Takes a slot, waiting up to MAX_WAIT_FOR_SLOT_MS; false when none comes in time. */
  take(): Promise<boolean>;
  /** No slot is given before `until` (epoch ms). */
  blockUntil(until: number): void;
}

function createSlotLimiter(
  rpm: number,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
): SlotLimiter {
  // Token bucket: `rpm` tokens, refilled continuously; starts full.
  let tokens = rpm;
  let refilledAt = now();
  let blockedUntil = 0;

  function refill() {
    const t = now();
    tokens = Math.min(rpm, tokens + ((t - refilledAt) * rpm) / 60_000);
    refilledAt = t;
  }

  async function take(): Promise<boolean> {
    const deadline = now() + MAX_WAIT_FOR_SLOT_MS;
    for (;;) {
      if (now() < blockedUntil) return false;
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      const wait = Math.ceil(((1 - tokens) * 60_000) / rpm);
      if (now() + wait > deadline) return false;
      await sleep(wait);
    }
  }

  return {
    take,
    blockUntil: (until) => {
      blockedUntil = until;
    },
  };
}

/** Answers by `chainId:address`, bounded; fresh for CACHE_TTL_MS, usable stale for STALE_TTL_MS. */
interface QuoteCache {
  fresh(key: string): AggregatorQuote | null;
  stale(key: string): AggregatorQuote | null;
  remember(key: string, value: AggregatorQuote): void;
}

function createQuoteCache(now: () => number): QuoteCache {
  const entries = new Map<string, { at: number; value: AggregatorQuote }>();
  const within = (key: string, ttl: number) => {
    const hit = entries.get(key);
    return hit && now() - hit.at < ttl ? hit.value : null;
  };
  return {
    fresh: (key) => within(key, CACHE_TTL_MS),
    stale: (key) => within(key, STALE_TTL_MS),
    remember(key, value) {
      if (entries.size >= CACHE_MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { at: now(), value });
    },
  };
}

/** How long to send nothing after a 429: its Retry-After (seconds) when given, else the default. */
function cooldownAfter429(response: Response): number {
  const retryAfter = Number(response.headers.get('retry-after'));
  return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : COOLDOWN_AFTER_429_MS;
}

export function createAggregatorClient(options: AggregatorOptions): AggregatorClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetchImpl ?? fetch;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const slots = createSlotLimiter(
    options.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
    now,
    sleep,
  );
  const cache = createQuoteCache(now);
  const inFlight = new Map<string, Promise<AggregatorQuote | null>>();
  const stats: AggregatorStats = { requests: 0, cacheHits: 0, failures: 0, rateLimited: 0 };

  /** One request; any answer but a usable quote falls back to the stale cache entry. */
  async function request(chainId: number, address: string, key: string) {
    const slug = CHAIN_SLUGS[chainId] ?? String(chainId);
    const response = await doFetch(`${base}/tokens/v1/${slug}/${address}`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.status === 429) {
      stats.rateLimited++;
      slots.blockUntil(now() + cooldownAfter429(response));
      await response.body?.cancel();
      return cache.stale(key);
    }
    if (!response.ok) {
      stats.failures++;
      if (response.status >= 500) slots.blockUntil(now() + COOLDOWN_AFTER_ERROR_MS);
      await response.body?.cancel();
      return cache.stale(key);
    }
    const quote = summarizePairs(await response.json(), address);
    if (!quote) {
      stats.failures++;
      return cache.stale(key);
    }
    cache.remember(key, quote);
    return quote;
  }

  async function fetchQuote(chainId: number, address: string, key: string) {
    if (!(await slots.take())) {
      stats.rateLimited++;
      return cache.stale(key);
    }
    stats.requests++;
    try {
      return await request(chainId, address, key);
    } catch {
      stats.failures++;
      return cache.stale(key);
    }
  }

  return {
    async token(chainId, rawAddress) {
      const address = rawAddress.toLowerCase();
      const key = `${chainId}:${address}`;
      const hit = cache.fresh(key);
      if (hit) {
        stats.cacheHits++;
        return hit;
      }
      const pending = inFlight.get(key);
      if (pending) return pending;
      const promise = fetchQuote(chainId, address, key).finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
    stats: () => ({ ...stats }),
  };
}
