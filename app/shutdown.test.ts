import { describe, expect, it } from 'vitest';
import { silentLogger } from '../infra/logger.ts';
import { createShutdown, FORCED_EXIT_CODE, SAME_KEYPRESS_MS } from './shutdown.ts';

function harness() {
  let now = 0;
  const exits: number[] = [];
  const shutdown = createShutdown(silentLogger, {
    exit: (code) => exits.push(code),
    now: () => now,
  });
  const steps: string[] = [];
  let finishStop: () => void = () => {};
  shutdown.onStop(async () => void steps.push('first started'));
  shutdown.onStop(
    () =>
      new Promise<void>((resolve) => {
        steps.push('last started');
        finishStop = resolve;
      }),
  );
  return {
    shutdown,
    exits,
    steps,
    advance: (ms: number) => (now += ms),
    finish: async () => {
      finishStop();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

describe('shutdown on signals', () => {
  it('treats the copies of one keypress (npm, tsx and node all get it) as one graceful stop', async () => {
    const h = harness();
    h.shutdown.onSignal('SIGINT');
    h.advance(5);
    h.shutdown.onSignal('SIGINT');
    h.advance(SAME_KEYPRESS_MS - 10);
    h.shutdown.onSignal('SIGINT');
    expect(h.exits).toEqual([]);
    expect(h.steps).toEqual(['last started']);
    await h.finish();
    expect(h.steps).toEqual(['last started', 'first started']);
    expect(h.exits).toEqual([0]);
  });

  it('exits at once on a signal that comes later than the first keypress', () => {
    const h = harness();
    h.shutdown.onSignal('SIGTERM');
    expect(h.shutdown.stopping()).toBe(true);
    h.advance(SAME_KEYPRESS_MS);
    h.shutdown.onSignal('SIGINT');
    expect(h.exits).toEqual([FORCED_EXIT_CODE]);
  });
});
