import type { Logger } from 'pino';

/**
 * How `start` stops: the cleanups run in reverse order on the first SIGINT or SIGTERM; a later
 * signal exits at once. One Ctrl-C reaches every process of the terminal's foreground group (npm,
 * the tsx launcher, which also relays it, and node), so this process gets the same keypress two or
 * three times within milliseconds: signals that close to the first are that keypress, not a second
 * one.
 */

export const SAME_KEYPRESS_MS = 1_000;
export const FORCED_EXIT_CODE = 130;

export interface ShutdownDeps {
  exit(code: number): void;
  now(): number;
}

const processDeps: ShutdownDeps = { exit: (code) => process.exit(code), now: Date.now };

export function createShutdown(logger: Logger, deps: ShutdownDeps = processDeps) {
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.warn({ err: (error as Error).message }, 'shutdown step failed');
      }
    }
  };
  let firstSignalAt: number | undefined;
  const onSignal = (signal: string) => {
    if (firstSignalAt !== undefined) {
      if (deps.now() - firstSignalAt < SAME_KEYPRESS_MS) return;
      logger.warn('second signal: exiting now');
      deps.exit(FORCED_EXIT_CODE);
      return;
    }
    firstSignalAt = deps.now();
    logger.info({ signal }, 'shutting down');
    void stopAll().then(() => deps.exit(0));
  };
  return {
    onStop: (cleanup: () => Promise<void>) => cleanups.push(cleanup),
    stopAll,
    stopping: () => firstSignalAt !== undefined,
    onSignal,
    /** Hands this process's SIGINT and SIGTERM to `onSignal`. */
    listen() {
      process.on('SIGINT', () => onSignal('SIGINT'));
      process.on('SIGTERM', () => onSignal('SIGTERM'));
    },
  };
}
