import { describe, expect, it } from 'vitest';
import {
  INITIAL_RUN,
  type Pass,
  type PassTrigger,
  passFor,
  RESIMULATE_BUCKET_MS,
  RUN_KEY_PATTERN,
} from './run-key.ts';

const AT = Date.UTC(2026, 0, 1, 12, 34, 56, 789);

describe('passFor', () => {
  it('mints each trigger’s run key and reason', () => {
    const cases: [PassTrigger, Pass][] = [
      [{ kind: 'detected' }, { reason: 'pipeline', run: INITIAL_RUN }],
      [
        { kind: 'reanalysis', atMs: AT },
        { reason: 'manual', run: `manual-${AT}` },
      ],
      [
        { kind: 'pool-created', blockNumber: 1234 },
        { reason: 'liquidity', run: 'p1234', atBlock: 1234 },
      ],
      [
        { kind: 'scheduled-refresh', bucketMs: Date.UTC(2026, 0, 1, 12, 34) },
        {
          reason: 'refresh',
          run: `r${Date.UTC(2026, 0, 1, 12, 34) / 1000}`,
          bucketMs: Date.UTC(2026, 0, 1, 12, 34),
        },
      ],
      [{ kind: 'first-liquidity' }, { reason: 'liquidity', run: 'liquidity' }],
      [
        { kind: 'resimulation', reason: 'refresh', atMs: AT },
        { reason: 'refresh', run: `refresh-${Math.floor(AT / RESIMULATE_BUCKET_MS)}` },
      ],
    ];
    for (const [trigger, pass] of cases) {
      expect(passFor(trigger)).toEqual(pass);
      expect(passFor(trigger).run).toMatch(RUN_KEY_PATTERN);
    }
  });

  it('mints the same key for a repeated trigger and a new one for a later trigger', () => {
    expect(passFor({ kind: 'resimulation', reason: 'liquidity', atMs: AT })).toEqual(
      passFor({ kind: 'resimulation', reason: 'liquidity', atMs: AT + 1 }),
    );
    expect(
      passFor({ kind: 'resimulation', reason: 'liquidity', atMs: AT + RESIMULATE_BUCKET_MS }).run,
    ).not.toBe(passFor({ kind: 'resimulation', reason: 'liquidity', atMs: AT }).run);
    expect(passFor({ kind: 'pool-created', blockNumber: 7 }).run).not.toBe(
      passFor({ kind: 'pool-created', blockNumber: 8 }).run,
    );
    expect(passFor({ kind: 'reanalysis', atMs: AT }).run).not.toBe(
      passFor({ kind: 'reanalysis', atMs: AT + 1 }).run,
    );
  });

  it('keeps the longest key (a millisecond timestamp) within the pattern', () => {
    expect(passFor({ kind: 'reanalysis', atMs: 8_640_000_000_000_000 }).run).toMatch(
      RUN_KEY_PATTERN,
    );
  });
});
