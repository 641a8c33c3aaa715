import { autoAnalysisThreads } from '../../infra/analysis-threads/index.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import {
  type BurstRun,
  detectionLatencies,
  type Phase,
  type RunningService,
  runBurst,
  type ServiceSetup,
} from '../../test/support/burst.ts';
import { BENCH_POOL_MAX } from '../../test/support/service.ts';
import { type CpuPriority, startServiceProcesses } from '../chains/index.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Back-pressure: the scenario of test/e2e/burst.test.ts (one chain at a block a
 * second, a trickle of one token a block, a burst of `tokens` tokens over `blocks` blocks, every
 * role in one process), with its timings: block → token.created for the trickle's tokens before
 * the burst and while its backlog lasts, how deep and how old the analysis backlog got, and how
 * long it took to drain.
 */

const SUITE = 'burst';

/** The queues of a worker process that does detection only, and of one that does the rest. */
export const DETECTION_QUEUES = 'detect,replay';
export const ANALYSIS_QUEUES = 'bytecode,selectors,simulate,risk,dex,accounts';

export const BURST_MODES = [
  'one process',
  'one process, analysis threads',
  'detection apart',
  'detection apart, analysis niced',
  'detection apart, analysis idle',
] as const;
export type BurstMode = (typeof BURST_MODES)[number];

/** The analysis worker's niceness in the niced mode: the CPU goes to detection first. */
const ANALYSIS_NICE = 10;
/** The analysis worker's CPU priority in the modes with detection apart. */
const ANALYSIS_CPU: Partial<Record<BurstMode, CpuPriority>> = {
  'detection apart, analysis niced': { nice: ANALYSIS_NICE },
  'detection apart, analysis idle': 'idle',
};

const FOUR_PROCESSES = `the API, the scanner, a detection worker (WORKER_QUEUES=${DETECTION_QUEUES}) and an analysis worker (${ANALYSIS_QUEUES}`;
/** Each mode as its rows' notes describe it. */
const HOW_IT_RUNS: Record<BurstMode, string> = {
  'one process': 'every role in one process',
  'one process, analysis threads': `every role in one process, the static analysis in ${autoAnalysisThreads()} worker thread(s) at nice 10 (ANALYSIS_THREADS)`,
  'detection apart': `${FOUR_PROCESSES}) in four processes`,
  'detection apart, analysis niced': `${FOUR_PROCESSES}, at nice ${ANALYSIS_NICE}) in four processes`,
  'detection apart, analysis idle': `${FOUR_PROCESSES}, in Linux's idle scheduling class: chrt --idle 0) in four processes`,
};

/** The CHAINS_FILE entry of the scenario's chain. */
const chainsFileEntry = (c: ChainConfig) => ({
  chain_id: c.chainId,
  name: c.name,
  rpc_urls: c.rpcUrls,
  ws_url: c.wsUrl,
  confirmations: c.confirmations,
  start_block: c.startBlock,
  finality_depth: c.finalityDepth,
  poll_interval_ms: c.pollIntervalMs,
  wrapped_native: c.wrappedNative,
  stablecoins: c.stablecoins,
  dexes: c.dexes,
  multicall3: c.multicall3,
  known_tokens: [],
});

/**
 * `token-monitor start` processes: the API, the scanner, a worker that takes only the detect and
 * replay queues, and one that takes the analysis queues (WORKER_QUEUES).
 */
const detectionApart =
  (analysisCpu?: CpuPriority) =>
  async (setup: ServiceSetup): Promise<RunningService> => {
    const processes = await startServiceProcesses({
      roles: [
        'api',
        'scanner',
        { role: 'worker', env: { WORKER_QUEUES: DETECTION_QUEUES } },
        { role: 'worker', env: { WORKER_QUEUES: ANALYSIS_QUEUES }, cpu: analysisCpu },
      ],
      databaseUrl: setup.database.url,
      redisUrl: setup.redis.url,
      redisPrefix: setup.redis.prefix,
      chains: [chainsFileEntry(setup.chain)],
    });
    const metrics = processes.metrics;
    if (!metrics) {
      await processes.stop();
      throw new Error('no process serves /metrics');
    }
    return { base: metrics.replace(/\/metrics$/, ''), stop: processes.stop };
  };

const phaseNote = (run: BurstRun, phase: Phase) =>
  `${detectionLatencies(run, phase).length} trickle tokens, one a block; block first seen on newHeads → token.created appended to the event stream`;

export async function burstBackPressure(options: {
  tokens: number;
  blocks: number;
  beforeSeconds: number;
  modes: readonly BurstMode[];
}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const mode of options.modes) rows.push(...(await burstRun(options, mode)));
  return rows;
}

async function burstRun(
  options: { tokens: number; blocks: number; beforeSeconds: number },
  mode: BurstMode,
): Promise<BenchRow[]> {
  progress(`burst (${mode})`);
  const run = await runBurst({
    start: mode.startsWith('one process') ? undefined : detectionApart(ANALYSIS_CPU[mode]),
    // Against 'one process', whose static analysis runs on the event loop detection needs.
    ...(mode === 'one process, analysis threads' ? { analysisThreads: autoAnalysisThreads() } : {}),
    burstTokens: options.tokens,
    burstBlocks: options.blocks,
    beforeSeconds: options.beforeSeconds,
    // The baseline of the burst's own blocks (they cost more to detect than one-token blocks
    // whatever the backlog): as many blocks of their size sent alone before it, each analysed
    // before the next, so that both p99s are taken over as many samples.
    bigBlocksBefore: options.blocks,
    drainTimeoutMs: 600_000,
    poolMax: BENCH_POOL_MAX,
    onProgress: progress,
  });
  const before = detectionLatencies(run, 'before');
  const during = detectionLatencies(run, 'during');
  // The burst's own blocks (50 tokens each to probe and record) apart from the blocks after them,
  // whose one token waits only if detection waits behind the analysis backlog.
  const lastBurstBlock = run.burstFromBlock + options.blocks - 1;
  const inBurst = detectionLatencies(run, 'during', (b) => b <= lastBurstBlock);
  const draining = detectionLatencies(run, 'during', (b) => b > lastBurstBlock);
  const alone = detectionLatencies(run, 'big-alone');
  const perBlock = Math.ceil(options.tokens / options.blocks);
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
  const shape = `${options.tokens} tokens over ${options.blocks} one-second blocks, beside a trickle of one token a block; ${HOW_IT_RUNS[mode]}`;
  const latencyRow = (p: number): BenchRow => ({
    suite: SUITE,
    metric: `${mode}: block → token.created p${p}, during the burst's backlog`,
    value: round(percentile(during, p), 0),
    unit: 'ms',
    baseline: {
      metric: `p${p} before the burst`,
      value: round(percentile(before, p), 0),
      ratio: percentile(during, p) / percentile(before, p),
    },
    note: `${phaseNote(run, 'during')} (until the backlog drained); before: ${phaseNote(run, 'before')}; ${shape}`,
  });
  const splitNote = `of which in the burst's ${options.blocks} blocks (${inBurst.length} tokens): p50 ${round(percentile(inBurst, 50), 0)} ms, p99 ${round(percentile(inBurst, 99), 0)} ms; in the blocks after them while the backlog drained (${draining.length} tokens): p50 ${round(percentile(draining, 50), 0)} ms, p99 ${round(percentile(draining, 99), 0)} ms`;
  return [
    { ...latencyRow(50), note: `${splitNote}; ${latencyRow(50).note}` },
    latencyRow(99),
    {
      suite: SUITE,
      metric: `${mode}: block → token.created p99, the blocks after the burst while its backlog drained`,
      value: round(percentile(draining, 99), 0),
      unit: 'ms',
      baseline: {
        metric: 'p99 before the burst',
        value: round(percentile(before, 99), 0),
        ratio: percentile(draining, 99) / percentile(before, 99),
      },
      note: `${draining.length} trickle tokens (p50 ${round(percentile(draining, 50), 0)} ms), one-token blocks like those before the burst (${before.length} tokens, p50 ${round(percentile(before, 50), 0)} ms): what the backlog does to detection; ${shape}`,
    },
    {
      suite: SUITE,
      metric: `${mode}: block → token.created p99, the burst's own blocks (${perBlock} tokens each)`,
      value: round(percentile(inBurst, 99), 0),
      unit: 'ms',
      baseline: {
        metric: `p99 of ${perBlock}-token blocks sent alone before the burst`,
        value: round(percentile(alone, 99), 0),
        ratio: percentile(inBurst, 99) / percentile(alone, 99),
      },
      note: `the trickle token of each of the burst's ${inBurst.length} blocks (p50 ${round(percentile(inBurst, 50), 0)} ms) against that of ${alone.length} blocks of the same size sent one at a time before it (after one more, not timed, to warm up), each analysed before the next (p50 ${round(percentile(alone, 50), 0)} ms); ${shape}`,
    },
    {
      suite: SUITE,
      metric: `${mode}: burst backlog drained (first burst block → every token through risk)`,
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
      metric: `${mode}: analysis backlog at its deepest (bytecode + selectors waiting, on /ready)`,
      value: maxWaiting,
      unit: 'jobs',
      note: `oldest waiting job at most ${round(maxOldest, 1)} s on /ready, ${round(maxMetricsOldest, 1)} s on /metrics (tm_queue_oldest_waiting_seconds); /ready answered 200 in ${run.samples.length - notReady} of ${run.samples.length} samples (every 250 ms)`,
    },
    {
      suite: SUITE,
      metric: `${mode}: tokens lost or announced twice / left unanalysed`,
      value: lost + unanalysed,
      unit: 'tokens',
      note: `${run.tokens.length} tokens (${options.tokens} of the burst, ${run.tokens.filter((t) => t.kind === 'alone').length} in the blocks sent alone before it): ${lost} not announced exactly once, ${unanalysed} not through risk`,
    },
  ];
}
