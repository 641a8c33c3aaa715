import { beforeAll, describe, expect, it } from 'vitest';
import { type BurstRun, runBurst } from '../support/burst.ts';

/**
 * Back-pressure: a burst of 500 tokens in ten seconds on one chain, with a trickle
 * of one token a block before and during it, through the real scanner, workers and API (one
 * process) on Anvil, Redis and Postgres. Analysis cannot keep up, so a backlog builds: nothing may
 * be lost, every token must be analysed afterwards, oldest first, and `/ready` and `/metrics` must
 * show the backlog while it lasts. How fast detection stays is measured by `npm run bench -- --only
 * burst`, not here.
 */

const BURST_TOKENS = 500;
const BURST_BLOCKS = 10;
const QUARTERS = 4;

let run: BurstRun;

beforeAll(async () => {
  run = await runBurst({
    burstTokens: BURST_TOKENS,
    burstBlocks: BURST_BLOCKS,
    beforeSeconds: 12,
    drainTimeoutMs: 120_000,
  });
}, 240_000);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

describe('a burst of 500 tokens', () => {
  it('loses no token: each is announced exactly once and analysed through risk afterwards', () => {
    const burst = run.tokens.filter((t) => t.kind === 'burst');
    expect(burst).toHaveLength(BURST_TOKENS);
    expect(
      run.tokens.filter((t) => t.kind === 'steady' && t.phase === 'before').length,
    ).toBeGreaterThan(3);
    expect(
      run.tokens.filter((t) => t.kind === 'steady' && t.phase === 'during').length,
    ).toBeGreaterThan(3);
    const unannounced = run.tokens.filter((t) => run.created.get(t.address)?.count !== 1);
    expect(unannounced).toEqual([]);
    const unanalysed = run.tokens.filter((t) => !run.riskAt.has(t.address));
    expect(unanalysed).toEqual([]);
    expect(Number.isFinite(run.drainedAt)).toBe(true);
  });

  it('builds a backlog that /ready and /metrics show, and stays ready through it', () => {
    expect(run.samples.length).toBeGreaterThan(0);
    expect(Math.max(...run.samples.map((s) => s.readyWaiting))).toBeGreaterThan(0);
    expect(Math.max(...run.samples.map((s) => s.readyOldestSeconds))).toBeGreaterThan(0);
    expect(Math.max(...run.samples.map((s) => s.metricsWaiting))).toBeGreaterThan(0);
    expect(Math.max(...run.samples.map((s) => s.metricsOldestSeconds))).toBeGreaterThan(0);
    // A backlog is work kept, not a failure: the API stays in service.
    expect(run.samples.filter((s) => s.readyStatus !== 200 || s.ready !== 'ready')).toEqual([]);
  });

  it('announces new tokens while older ones still wait for analysis', () => {
    // A trickle token in a burst block was announced before the analysis of burst tokens from
    // earlier blocks finished: token.created does not queue behind the analysis backlog.
    const burst = run.tokens.filter((t) => t.kind === 'burst');
    const overtaking = run.tokens.filter((t) => {
      if (t.kind !== 'steady' || t.phase !== 'during') return false;
      const announced = run.created.get(t.address)!.at;
      return burst.some((b) => b.block < t.block && run.riskAt.get(b.address)! > announced);
    });
    const steadyInBurst = run.tokens.filter(
      (t) =>
        t.kind === 'steady' &&
        t.block > run.burstFromBlock &&
        t.block < run.burstFromBlock + BURST_BLOCKS,
    );
    expect(steadyInBurst.length).toBeGreaterThan(3);
    expect(overtaking.length).toBeGreaterThanOrEqual(Math.ceil(steadyInBurst.length / 2));
  });

  it('drains the backlog in the order of the tokens’ age', () => {
    // By block, in quarters: each quarter's median analysis time is later than the one before.
    // Stage concurrency lets neighbours finish out of order, never a whole quarter.
    const burst = run.tokens.filter((t) => t.kind === 'burst').sort((a, b) => a.block - b.block);
    const size = Math.ceil(burst.length / QUARTERS);
    const medians = Array.from({ length: QUARTERS }, (_, q) =>
      median(burst.slice(q * size, (q + 1) * size).map((t) => run.riskAt.get(t.address)!)),
    );
    for (let q = 1; q < QUARTERS; q++) expect(medians[q]!).toBeGreaterThan(medians[q - 1]!);
    // And the oldest quarter is done, all of it, before the youngest quarter's median.
    const firstDone = Math.max(...burst.slice(0, size).map((t) => run.riskAt.get(t.address)!));
    expect(firstDone).toBeLessThan(medians[QUARTERS - 1]!);
  });
});
