/**
 * Per-endpoint adaptive rate limiting with failover. Each RPC URL has a concurrency limit that
 * grows additively while it answers and halves when it says 429 (AIMD, as TCP does), and a
 * cooldown after failures that doubles with each consecutive one. Requests go to the first URL
 * (in configured order: the primary) that has room, so traffic fails over and comes back.
 */

export type EndpointOutcome = 'ok' | 'rate-limited' | 'failed';

export interface EndpointLease {
  url: string;
  release(outcome: EndpointOutcome): void;
}

export interface EndpointStats {
  url: string;
  limit: number;
  inFlight: number;
  coolingForMs: number;
  strikes: number;
}

export interface EndpointPool {
  acquire(): Promise<EndpointLease>;
  stats(): EndpointStats[];
}

export interface EndpointPoolOptions {
  maxConcurrency?: number;
  minConcurrency?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

const DEFAULT_MAX_CONCURRENCY = 32;
const DEFAULT_BASE_COOLDOWN_MS = 250;
const DEFAULT_MAX_COOLDOWN_MS = 10_000;
const WAIT_STEP_MS = 10;

interface EndpointState {
  url: string;
  limit: number;
  inFlight: number;
  cooldownUntil: number;
  /** Why it is cooling down: a rate limit is honoured; after plain failures it remains a last resort. */
  rateLimited: boolean;
  strikes: number;
}

export function createEndpointPool(
  urls: readonly string[],
  options: EndpointPoolOptions = {},
): EndpointPool {
  const max = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const min = options.minConcurrency ?? 1;
  const base = options.baseCooldownMs ?? DEFAULT_BASE_COOLDOWN_MS;
  const maxCooldown = options.maxCooldownMs ?? DEFAULT_MAX_COOLDOWN_MS;
  const now = options.now ?? Date.now;
  const states: EndpointState[] = urls.map((url) => ({
    url,
    limit: max,
    inFlight: 0,
    cooldownUntil: 0,
    rateLimited: false,
    strikes: 0,
  }));

  /**
   * Requests waiting for room on an endpoint that is full but not cooling down, woken in arrival
   * order as leases are released. (Polling every few milliseconds instead left freed slots idle
   * until a waiter's timer fired, and with a hundred waiters cost thousands of timers a second.)
   */
  const waiters: (() => void)[] = [];
  const wakeOne = () => waiters.shift()?.();

  const hasRoom = (s: EndpointState) => s.inFlight < Math.floor(s.limit);
  const available = (s: EndpointState, t: number) => t >= s.cooldownUntil && hasRoom(s);
  /** Every endpoint failed lately: the one cooling down for the shortest time still beats waiting. */
  const lastResort = (t: number) =>
    states
      .filter((s) => !s.rateLimited && hasRoom(s))
      .sort((a, b) => a.cooldownUntil - b.cooldownUntil)
      .find((s) => s.cooldownUntil > t);

  function lease(state: EndpointState): EndpointLease {
    state.inFlight++;
    let released = false;
    return {
      url: state.url,
      release(outcome) {
        if (released) return;
        released = true;
        state.inFlight--;
        wakeOne();
        if (outcome === 'ok') {
          state.strikes = 0;
          state.rateLimited = false;
          state.cooldownUntil = 0;
          const room = Math.floor(state.limit);
          state.limit = Math.min(max, state.limit + 1 / Math.max(1, state.limit));
          // The limit grew past a whole request: one more waiter fits.
          if (Math.floor(state.limit) > room) wakeOne();
          return;
        }
        state.strikes++;
        state.rateLimited = outcome === 'rate-limited';
        if (outcome === 'rate-limited') state.limit = Math.max(min, Math.floor(state.limit / 2));
        state.cooldownUntil = now() + Math.min(maxCooldown, base * 2 ** (state.strikes - 1));
      },
    };
  }

  return {
    async acquire() {
      for (;;) {
        const t = now();
        const free = states.find((s) => available(s, t)) ?? lastResort(t);
        if (free) return lease(free);
        // An endpoint that is only full frees room with its next release, which wakes the oldest
        // waiter. Every one cooling down: wait a moment rather than hammer a struggling node.
        const full = states.some((s) => t >= s.cooldownUntil);
        await new Promise<void>((resolve) => {
          if (full) waiters.push(resolve);
          else setTimeout(resolve, WAIT_STEP_MS);
        });
      }
    },
    stats: () =>
      states.map((s) => ({
        url: s.url,
        limit: Math.floor(s.limit),
        inFlight: s.inFlight,
        coolingForMs: Math.max(0, s.cooldownUntil - now()),
        strikes: s.strikes,
      })),
  };
}
