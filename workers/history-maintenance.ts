import type { Logger } from 'pino';
import type { HistoryRepository } from '../db/repositories/history.ts';

/**
 * The history maintenance loop of the scheduler role (docs/scale.md): at start and then every
 * HISTORY_MAINTENANCE_INTERVAL_MS it creates the coming partitions, rolls finished days up and
 * drops expired partitions. Several schedulers may run it: an advisory lock lets one work.
 */

export const HISTORY_MAINTENANCE_INTERVAL_MS = 10 * 60_000;

export interface HistoryMaintenance {
  /** One pass now (also what the timer runs); resolves when it is done. */
  runOnce(): Promise<void>;
  close(): Promise<void>;
}

export function startHistoryMaintenance(deps: {
  history: HistoryRepository;
  logger: Logger;
  intervalMs?: number;
  clock?: () => Date;
}): HistoryMaintenance {
  const clock = deps.clock ?? (() => new Date());
  let running: Promise<void> | undefined;
  let closed = false;

  async function pass(): Promise<void> {
    const started = performance.now();
    try {
      const result = await deps.history.maintain(clock());
      if (!result) return; // another scheduler holds the lock
      const changed =
        result.created.length +
        result.rolledUpDays.length +
        result.dropped.length +
        result.deletedFromDefault;
      if (changed > 0) {
        deps.logger.info(
          {
            created: result.created,
            rolled_up_days: result.rolledUpDays,
            dropped: result.dropped,
            deleted_from_default: result.deletedFromDefault,
            ms: Math.round(performance.now() - started),
          },
          'history maintenance',
        );
      }
    } catch (error) {
      // The next pass retries: every step is idempotent.
      deps.logger.error({ err: error }, 'history maintenance failed');
    }
  }

  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (!closed) void runOnce();
  }, deps.intervalMs ?? HISTORY_MAINTENANCE_INTERVAL_MS);
  timer.unref();
  void runOnce();
  return {
    runOnce,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
