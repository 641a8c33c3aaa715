/**
 * Liveness (docs/websocket.md): every client is visited once per interval, but not all at once.
 * A sweep every tick takes the next slice of clients, so that 10,000 pings and slot renewals are
 * spread over the interval instead of stalling the event loop (and Redis, where each renewal is a
 * script call) for a moment every 30 s, which every event in flight would wait behind.
 */

export const HEARTBEAT_INTERVAL_MS = 30_000;
const HEARTBEAT_TICK_MS = 1_000;

export interface Sweep {
  stop(): void;
}

/**
 * Calls `visit` for every member of `items` about once per `intervalMs`, a slice every `tickMs`.
 * The set may change meanwhile: a Set iterator visits members added before it reaches them and
 * skips deleted ones, and each pass starts a new iterator.
 */
export function staggeredSweep<T>(
  items: ReadonlySet<T>,
  visit: (item: T) => void,
  intervalMs = HEARTBEAT_INTERVAL_MS,
  tickMs = Math.min(HEARTBEAT_TICK_MS, intervalMs),
): Sweep {
  const ticksPerPass = Math.max(1, Math.round(intervalMs / tickMs));
  let pass: Iterator<T> = items.values();
  let slice = 0;
  let tick = 0;
  const timer = setInterval(() => {
    // The slice size is fixed for a whole pass, from the size when the pass began.
    if (tick === 0) slice = Math.ceil(items.size / ticksPerPass);
    for (let visited = 0; visited < slice; visited++) {
      const next = pass.next();
      if (next.done) break;
      visit(next.value);
    }
    tick += 1;
    if (tick >= ticksPerPass) {
      // Whatever the slices did not reach (members added during the pass) waits for the next one.
      tick = 0;
      pass = items.values();
    }
  }, tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
