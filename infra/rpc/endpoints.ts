/**
 * Per-endpoint adaptive rate limiting with failover. Each RPC URL has a concurrency limit that
 * grows additively while it answers and halves when it says 429 (AIMD, as TCP does), and a
 * cooldown after failures that doubles with each consecutive one. Requests go to the first URL
 * (in configured order: the primary) that has room, so traffic fails over and comes back.
 *
 * Two priorities share the room: a 'high' request (detection: the scanner and the detect stage)
 * takes a free slot before any waiting 'normal' one (analysis), so that a backlog of analysis
 * cannot delay the blocks and the token announcements behind it. While any 'high' request is in
 * flight or waiting, 'normal' ones hold at most a share of each endpoint's slots: the node's own
 * capacity (CPU, on a local node) then goes mostly to detection too, not only the order of the queue.
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

export type RpcPriority = 'high' | 'normal';

export interface EndpointPool {
  acquire(priority?: RpcPriority): Promise<EndpointLease>;
  stats(): EndpointStats[];
  /** `othersDetecting` changed to false: the normal requests waiting get the room it held back. */
  recheck(): void;
}

export interface EndpointPoolOptions {
  maxConcurrency?: number;
  minConcurrency?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
  /**
   * Detection runs elsewhere (another process, infra/detection-signal.ts) on this node: 'normal'
   * requests then keep to their share as they do beside this pool's own 'high' ones.
   */
  othersDetecting?: () => boolean;
}

const DEFAULT_MAX_CONCURRENCY = 32;
const DEFAULT_BASE_COOLDOWN_MS = 250;
const DEFAULT_MAX_COOLDOWN_MS = 10_000;
const WAIT_STEP_MS = 10;
/**
 * The share of an endpoint's slots 'normal' requests may hold while detection is busy (at least
 * one, so analysis never stops). A 4,800-block catch-up on a local Anvil shared its two cores with
 * the analysis of the tokens already found, every stage's requests taking slots as they came.
 */
const NORMAL_SHARE_WHILE_DETECTING = 0.25;

interface EndpointState {
  url: string;
  limit: number;
  inFlight: number;
  /** Of `inFlight`, the 'normal' requests. */
  normalInFlight: number;
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
    normalInFlight: 0,
    cooldownUntil: 0,
    rateLimited: false,
    strikes: 0,
  }));

  /**
   * Requests waiting for room on an endpoint that is full but not cooling down. A release hands
   * its slot straight to the oldest waiter (high first), so that no newcomer takes it in between
   * and no slot idles. (Polling every few milliseconds instead left freed slots idle until a
   * waiter's timer fired, and with a hundred waiters cost thousands of timers a second.) A waiter
   * is given null when it should look again: its endpoint failed or was rate limited.
   */
  type Waiter = (lease: EndpointLease | null) => void;
  const waiters: Record<RpcPriority, Waiter[]> = { high: [], normal: [] };
  /** 'high' requests in flight, every endpoint's. */
  let highInFlight = 0;
  const othersDetecting = options.othersDetecting ?? (() => false);
  const detecting = () => highInFlight > 0 || waiters.high.length > 0 || othersDetecting();

  const hasRoom = (s: EndpointState, priority: RpcPriority) =>
    s.inFlight < Math.floor(s.limit) &&
    (priority === 'high' ||
      !detecting() ||
      s.normalInFlight < Math.max(1, Math.floor(s.limit * NORMAL_SHARE_WHILE_DETECTING)));
  const available = (s: EndpointState, t: number, priority: RpcPriority) =>
    t >= s.cooldownUntil && hasRoom(s, priority);
  /** Every endpoint failed lately: the one cooling down for the shortest time still beats waiting. */
  const lastResort = (t: number, priority: RpcPriority) =>
    states
      .filter((s) => !s.rateLimited && hasRoom(s, priority))
      .sort((a, b) => a.cooldownUntil - b.cooldownUntil)
      .find((s) => s.cooldownUntil > t);

  /** The room `state` has now goes to the waiters, oldest first (high before normal). */
  function handOff(state: EndpointState): void {
    for (;;) {
      const t = now();
      const priority: RpcPriority | undefined =
        waiters.high.length > 0 && available(state, t, 'high')
          ? 'high'
          : waiters.high.length === 0 && waiters.normal.length > 0 && available(state, t, 'normal')
            ? 'normal'
            : undefined;
      if (!priority) return;
      waiters[priority].shift()!(lease(state, priority));
    }
  }

  function lease(state: EndpointState, priority: RpcPriority): EndpointLease {
    state.inFlight++;
    if (priority === 'high') highInFlight++;
    else state.normalInFlight++;
    let released = false;
    return {
      url: state.url,
      release(outcome) {
        if (released) return;
        released = true;
        state.inFlight--;
        if (priority === 'high') highInFlight--;
        else state.normalInFlight--;
        if (outcome === 'ok') {
          state.strikes = 0;
          state.rateLimited = false;
          state.cooldownUntil = 0;
          state.limit = Math.min(max, state.limit + 1 / Math.max(1, state.limit));
          handOff(state);
          // The last detection request done: the normal ones' share is lifted on every endpoint.
          if (priority === 'high' && !detecting()) for (const s of states) handOff(s);
          return;
        }
        state.strikes++;
        state.rateLimited = outcome === 'rate-limited';
        if (outcome === 'rate-limited') state.limit = Math.max(min, Math.floor(state.limit / 2));
        state.cooldownUntil = now() + Math.min(maxCooldown, base * 2 ** (state.strikes - 1));
        // What the waiters waited for changed: each looks again (another endpoint, a last resort,
        // or a pause while everything cools down).
        for (const waiter of [...waiters.high.splice(0), ...waiters.normal.splice(0)]) waiter(null);
      },
    };
  }

  return {
    async acquire(priority = 'normal') {
      for (;;) {
        const t = now();
        // Those already waiting (at this priority or above) are served first: queue behind them.
        const ahead = waiters.high.length + (priority === 'normal' ? waiters.normal.length : 0);
        if (ahead === 0) {
          const free = states.find((s) => available(s, t, priority)) ?? lastResort(t, priority);
          if (free) return lease(free, priority);
        }
        // An endpoint that is only full frees room with its next release. Every one cooling
        // down: wait a moment rather than hammer a struggling node.
        if (ahead > 0 || states.some((s) => t >= s.cooldownUntil)) {
          const handed = await new Promise<EndpointLease | null>((resolve) =>
            waiters[priority].push(resolve),
          );
          if (handed) return handed;
        } else await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
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
    recheck() {
      for (const s of states) handOff(s);
    },
  };
}
