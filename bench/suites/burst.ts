import {
  type BurstRun,
  detectionLatencies,
  type Phase,
  runBurst,
} from '../../test/support/burst.ts';
import { BENCH_POOL_MAX } from '../../test/support/service.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Back-pressure (issue 26): the scenario of test/e2e/burst.test.ts (one chain at a block a
 * second, a trickle of one token a block, a burst of `tokens` tokens over `blocks` blocks, every
 * role in one process), with its timings: block → token.created for the trickle's tokens before
 * the burst and while its backlog lasts, how deep and how old the analysis backlog got, and how
 * long it took to drain.
 */

const SUITE = 'burst';

const phaseNote = (run: BurstRun, phase: Phase) =>
  `${detectionLatencies(run, phase).length} trickle tokens, one a block; block first seen on newHeads → token.created appended to the event stream`;

export async function burstBackPressure(options: {
  tokens: number;
  blocks: number;
  beforeSeconds: number;
}): Promise<BenchRow[]> {
  const run = await runBurst({
    burstTokens: options.tokens,
    burstBlocks: options.blocks,
    beforeSeconds: options.beforeSeconds,
    drainTimeoutMs: 600_000,
    poolMax: BENCH_POOL_MAX,
    onProgress: progress,
  });
  const before = detectionLatencies(run, 'before');
  const during = detectionLatencies(run, 'during');
  const lost = run.tokens.filter((t) => run.created.get(t.address)?.count !== 1).length;
  const unanalysed = run.tokens.filter((t) => !run.riskAt.has(t.address)).length;
  const drainSeconds = (run.drainedAt - run.burstStartedAt) / 1000;
  const analysed = run.tokens.filter((t) => {
    const at = run.riskAt.get(t.address);
    return at !== undefined && at >= run.burstStartedAt && at <= run.drainedAt;
  }).length;
  const maxWaiting = Math.max(0, ...run.samples.map((s) => s.readyWaiting));
  const maxOldest = Math.max(0, ...run.samples.map((s) => s.readyOldestSeconds));
  const maxMetricsOldest = Math.max(0, ...run.samples.map((s) => s.metricsOldestSeconds));
  const notReady = run.samples.filter((s) => s.readyStatus !== 200).length;
  const shape = `${options.tokens} tokens over ${options.blocks} one-second blocks, beside a trickle of one token a block; every role in one process`;
  const latencyRow = (p: number): BenchRow => ({
    suite: SUITE,
    metric: `block → token.created p${p}, during the burst's backlog`,
    value: round(percentile(during, p), 0),
    unit: 'ms',
    baseline: {
      metric: `p${p} before the burst`,
      value: round(percentile(before, p), 0),
      ratio: percentile(during, p) / percentile(before, p),
    },
    note: `${phaseNote(run, 'during')} (until the backlog drained); before: ${phaseNote(run, 'before')}; ${shape}`,
  });
  return [
    latencyRow(50),
    latencyRow(99),
    {
      suite: SUITE,
      metric: 'burst backlog drained (first burst block → every token through risk)',
      value: round(drainSeconds, 1),
      unit: 's',
      baseline: {
        metric: 'the burst’s own length',
        value: options.blocks,
        ratio: drainSeconds / options.blocks,
      },
      note: `${analysed} tokens analysed meanwhile (${round(analysed / drainSeconds, 1)} tokens/s); ${shape}`,
    },
    {
      suite: SUITE,
      metric: 'analysis backlog at its deepest (bytecode + selectors waiting, on /ready)',
      value: maxWaiting,
      unit: 'jobs',
      note: `oldest waiting job at most ${round(maxOldest, 1)} s on /ready, ${round(maxMetricsOldest, 1)} s on /metrics (tm_queue_oldest_waiting_seconds); /ready answered 200 in ${run.samples.length - notReady} of ${run.samples.length} samples (every 250 ms)`,
    },
    {
      suite: SUITE,
      metric: 'tokens lost or announced twice / left unanalysed',
      value: lost + unanalysed,
      unit: 'tokens',
      note: `${run.tokens.length} tokens (${options.tokens} of the burst): ${lost} not announced exactly once, ${unanalysed} not through risk`,
    },
  ];
}
