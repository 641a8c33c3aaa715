import { fileURLToPath } from 'node:url';
import { type BenchRow, printTable, progress, recordSuite } from './report.ts';
import { corpusRecognition, developmentSetAccuracy, modernSetAccuracy } from './suites/accuracy.ts';
import { accuracyTable, analysisThroughput } from './suites/analysis.ts';
import { apiThroughput } from './suites/api.ts';
import { BURST_MODES, type BurstMode, burstBackPressure } from './suites/burst.ts';
import { bytecodeStages } from './suites/bytecode-stages.ts';
import { chainsCatchUp, chainsLive } from './suites/chains.ts';
import { detectionLatency, detectionThroughput } from './suites/detection.ts';
import { dexRefresh } from './suites/dex.ts';
import { exportThroughput } from './suites/export.ts';
import { holdersThroughput } from './suites/holders.ts';
import { replayBesideLiveScanning } from './suites/replay.ts';
import { scaleGrowth } from './suites/scale.ts';
import { redisSoak } from './suites/soak.ts';
import { websocketFanout } from './suites/websocket/index.ts';

/**
 * `npm run bench`: every suite, a table on stdout, and bench/results.json.
 * `npm run bench -- --quick` for a short run; `-- --only detection,dex` for some suites;
 * `-- --results /tmp/r.json` to write elsewhere; `-- --only scale --reuse` keeps the seeded
 * million tokens between runs (bench/suites/scale-reuse.ts).
 * The `chains` suite takes `--chains-seconds N` (each live run's measured seconds, default 60:
 * bounded for a shared 2-core machine; the 10 minutes is `--chains-seconds 600`),
 * `--chains-scale F` (the fraction of each chain's transactions per block sent, default 1) and
 * `--catch-up-blocks N` (BSC blocks the service catches up on, default 400; an hour is 4800) and
 * `--chains-parts one-process,split-roles,catch-up` (which of its three runs). The `burst` suite
 * takes `--burst-modes` (some of its modes, separated by semicolons; BURST_MODES in bench/suites/burst.ts).
 */

const argument = (name: string) => process.argv.find((_, i) => process.argv[i - 1] === name);
/** `--results other.json` keeps development runs out of the committed results. */
const RESULTS_PATH =
  argument('--results') ?? fileURLToPath(new URL('./results.json', import.meta.url));
const quick = process.argv.includes('--quick');
const numberArgument = (name: string, fallback: number) => {
  const value = argument(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} wants a positive number`);
  return n;
};
/** `--burst-modes 'one process;detection apart'`: some of the burst suite's modes (their names hold commas). */
function burstModes(value: string | undefined): readonly BurstMode[] {
  if (value === undefined) return BURST_MODES;
  const modes = value.split(';').map((m) => m.trim());
  const unknown = modes.filter((m) => !(BURST_MODES as readonly string[]).includes(m));
  if (unknown.length > 0)
    throw new Error(
      `--burst-modes: unknown ${unknown.join(', ')} (modes: ${BURST_MODES.join(', ')})`,
    );
  return modes as BurstMode[];
}
const onlyArg = argument('--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : undefined;

const parameters = {
  detection: {
    tokens: quick ? 40 : 200,
    filler_blocks_per_token: 2,
    latency_deployments: quick ? 10 : 50,
  },
  bytecode: { contracts: quick ? 300 : 2_000 },
  analysis: { tokens: quick ? 110 : 1_012 },
  accuracy: { corpus_replicas: 1 },
  dex: { tokens: quick ? 50 : 200 },
  api: { seconds: quick ? 3 : 5 },
  export: { tokens: quick ? 100_000 : 200_000 },
  replay: { deployments: quick ? 30 : 150, empty_blocks: quick ? 300 : 1_500 },
  holders: { tokens: quick ? 4 : 10, sprays: quick ? 2 : 5, per_spray: 500, rounds: quick ? 1 : 3 },
  websocket: {
    clients: quick ? 1_000 : 10_000,
    steady_seconds: quick ? 10 : 60,
    events_per_second: 10,
    burst: quick ? 100 : 1_000,
  },
  scale: {
    tokens: quick ? 100_000 : 1_000_000,
    active_tokens: quick ? 1_000 : 10_000,
    history_days: 30,
    fanout_tokens: quick ? 10_000 : 100_000,
    samples: quick ? 60 : 200,
    reused_seed: process.argv.includes('--reuse'),
  },
  soak: { rounds: quick ? 2 : 6, blocks_per_round: quick ? 500 : 2_000 },
  burst: {
    tokens: quick ? 200 : 500,
    blocks: 10,
    before_seconds: quick ? 10 : 20,
    modes: burstModes(argument('--burst-modes')),
  },
  chains: {
    seconds: numberArgument('--chains-seconds', quick ? 30 : 60),
    tx_scale: numberArgument('--chains-scale', 1),
    token_floor_per_minute: 12,
    catch_up_blocks: numberArgument('--catch-up-blocks', quick ? 100 : 400),
    parts: (argument('--chains-parts') ?? 'one-process,split-roles,catch-up').split(','),
  },
};

const suites: [name: keyof typeof parameters, run: () => Promise<BenchRow[]>][] = [
  [
    'detection',
    async () => [
      ...(await detectionThroughput({
        tokens: parameters.detection.tokens,
        fillerEvery: parameters.detection.filler_blocks_per_token,
      })),
      ...(await detectionLatency({ deployments: parameters.detection.latency_deployments })),
    ],
  ],
  ['bytecode', () => bytecodeStages({ limit: parameters.bytecode.contracts })],
  ['analysis', () => analysisThroughput({ tokens: parameters.analysis.tokens })],
  [
    'accuracy',
    async () => [
      ...(await developmentSetAccuracy()),
      ...(await modernSetAccuracy()),
      ...(await corpusRecognition()),
      ...(await accuracyTable({ replicas: parameters.accuracy.corpus_replicas })),
    ],
  ],
  ['dex', () => dexRefresh({ tokens: parameters.dex.tokens })],
  ['api', () => apiThroughput({ seconds: parameters.api.seconds })],
  ['export', () => exportThroughput({ tokens: parameters.export.tokens })],
  [
    'websocket',
    () =>
      websocketFanout({
        clients: parameters.websocket.clients,
        steadySeconds: parameters.websocket.steady_seconds,
        eventsPerSecond: parameters.websocket.events_per_second,
        burst: parameters.websocket.burst,
      }),
  ],
  [
    'replay',
    () =>
      replayBesideLiveScanning({
        deployments: parameters.replay.deployments,
        emptyBlocks: parameters.replay.empty_blocks,
      }),
  ],
  [
    'holders',
    () =>
      holdersThroughput({
        tokens: parameters.holders.tokens,
        sprays: parameters.holders.sprays,
        perSpray: parameters.holders.per_spray,
        rounds: parameters.holders.rounds,
      }),
  ],
  [
    'scale',
    () =>
      scaleGrowth({
        tokens: parameters.scale.tokens,
        activeTokens: parameters.scale.active_tokens,
        historyDays: parameters.scale.history_days,
        fanoutTokens: parameters.scale.fanout_tokens,
        samples: parameters.scale.samples,
        reuse: parameters.scale.reused_seed,
      }),
  ],
  [
    'chains',
    async () => {
      const { seconds, tx_scale: txScale, token_floor_per_minute: floor } = parameters.chains;
      const scale = { txScale, tokenFloorPerMinute: floor };
      const parts = new Set(parameters.chains.parts);
      return [
        ...(parts.has('one-process')
          ? await chainsLive({ seconds, scale, mode: 'one process' })
          : []),
        ...(parts.has('split-roles')
          ? await chainsLive({ seconds, scale, mode: 'split roles' })
          : []),
        ...(parts.has('catch-up')
          ? await chainsCatchUp({ blocks: parameters.chains.catch_up_blocks, scale })
          : []),
      ];
    },
  ],
  [
    'burst',
    () =>
      burstBackPressure({
        tokens: parameters.burst.tokens,
        blocks: parameters.burst.blocks,
        beforeSeconds: parameters.burst.before_seconds,
        modes: parameters.burst.modes,
      }),
  ],
  [
    'soak',
    () =>
      redisSoak({
        rounds: parameters.soak.rounds,
        blocksPerRound: parameters.soak.blocks_per_round,
      }),
  ],
];

/**
 * Each suite's rows go to bench/results.json the moment the suite finishes; a suite that throws is
 * recorded as failed (with its error) and the run goes on with the next one.
 */
async function main(): Promise<number> {
  const rows: BenchRow[] = [];
  const failed: string[] = [];
  for (const [name, run] of suites) {
    if (only && !only.has(name)) continue;
    progress(`suite ${name}`);
    const started = performance.now();
    const seconds = () => Math.round((performance.now() - started) / 100) / 10;
    try {
      const suiteRows = await run();
      rows.push(...suiteRows);
      recordSuite(RESULTS_PATH, name, suiteRows, parameters[name], {
        status: 'ok',
        finished_at: new Date().toISOString(),
        seconds: seconds(),
      });
      progress(`suite ${name}: ${suiteRows.length} rows written to ${RESULTS_PATH}`);
    } catch (error) {
      failed.push(name);
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`[bench] suite ${name} failed:`, message);
      recordSuite(RESULTS_PATH, name, [], parameters[name], {
        status: 'failed',
        finished_at: new Date().toISOString(),
        seconds: seconds(),
        error: message.split('\n')[0]!,
      });
    }
  }
  printTable(rows);
  if (failed.length > 0)
    progress(`failed suites: ${failed.join(', ')} (the others' rows are in ${RESULTS_PATH})`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
