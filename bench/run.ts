import { fileURLToPath } from 'node:url';
import { developmentSetAccuracy } from './suites/accuracy.ts';
import { accuracyTable, analysisThroughput } from './suites/analysis.ts';
import { apiThroughput } from './suites/api.ts';
import { exportThroughput } from './suites/export.ts';
import { bytecodeStages } from './suites/bytecode-stages.ts';
import { detectionLatency, detectionThroughput } from './suites/detection.ts';
import { dexRefresh } from './suites/dex.ts';
import { redisSoak } from './suites/soak.ts';
import { websocketFanout } from './suites/websocket.ts';
import { replayBesideLiveScanning } from './suites/replay.ts';
import { printTable, progress, writeResults, type BenchRow } from './report.ts';

/**
 * `npm run bench`: every suite, a table on stdout, and bench/results.json.
 * `npm run bench -- --quick` for a short run; `-- --only detection,dex` for some suites.
 */

const RESULTS_PATH = fileURLToPath(new URL('./results.json', import.meta.url));
const quick = process.argv.includes('--quick');
const onlyArg = process.argv.find((_a, i) => process.argv[i - 1] === '--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : undefined;

const parameters = {
  detection: { tokens: quick ? 40 : 200, filler_blocks_per_token: 2, latency_deployments: quick ? 10 : 50 },
  bytecode: { contracts: quick ? 300 : 2_000 },
  analysis: { tokens: quick ? 110 : 1_012 },
  accuracy: { corpus_replicas: 1 },
  dex: { tokens: quick ? 50 : 200 },
  api: { seconds: quick ? 3 : 5 },
  export: { tokens: quick ? 100_000 : 200_000 },
  replay: { deployments: quick ? 30 : 150, empty_blocks: quick ? 300 : 1_500 },
  websocket: { clients: quick ? 200 : 1_000, events: quick ? 20 : 100 },
  soak: { rounds: quick ? 2 : 6, blocks_per_round: quick ? 500 : 2_000 },
};

const suites: [name: keyof typeof parameters, run: () => Promise<BenchRow[]>][] = [
  ['detection', async () => [
    ...(await detectionThroughput({ tokens: parameters.detection.tokens, fillerEvery: parameters.detection.filler_blocks_per_token })),
    ...(await detectionLatency({ deployments: parameters.detection.latency_deployments })),
  ]],
  ['bytecode', () => bytecodeStages({ limit: parameters.bytecode.contracts })],
  ['analysis', () => analysisThroughput({ tokens: parameters.analysis.tokens })],
  ['accuracy', async () => [
    ...(await developmentSetAccuracy()),
    ...(await accuracyTable({ replicas: parameters.accuracy.corpus_replicas })),
  ]],
  ['dex', () => dexRefresh({ tokens: parameters.dex.tokens })],
  ['api', () => apiThroughput({ seconds: parameters.api.seconds })],
  ['export', () => exportThroughput({ tokens: parameters.export.tokens })],
  ['websocket', () => websocketFanout({ clients: parameters.websocket.clients, events: parameters.websocket.events })],
  ['replay', () => replayBesideLiveScanning({ deployments: parameters.replay.deployments, emptyBlocks: parameters.replay.empty_blocks })],
  ['soak', () => redisSoak({ rounds: parameters.soak.rounds, blocksPerRound: parameters.soak.blocks_per_round })],
];

async function main() {
  const rows: BenchRow[] = [];
  for (const [name, run] of suites) {
    if (only && !only.has(name)) continue;
    progress(`suite ${name}`);
    rows.push(...(await run()));
  }
  printTable(rows);
  writeResults(RESULTS_PATH, rows, parameters);
  progress(`results written to ${RESULTS_PATH}`);
}

main().then(() => process.exit(0), (error: Error) => {
  console.error(error);
  process.exit(1);
});
