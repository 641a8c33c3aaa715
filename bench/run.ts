import { fileURLToPath } from 'node:url';
import { detectionLatency, detectionThroughput } from './suites/detection.ts';
import { redisSoak } from './suites/soak.ts';
import { dexRefresh } from './suites/dex.ts';
import { printTable, progress, writeResults, type BenchRow } from './report.ts';

/** `npm run bench`: every suite, a table on stdout, and bench/results.json. */

const RESULTS_PATH = fileURLToPath(new URL('./results.json', import.meta.url));
const quick = process.argv.includes('--quick');
const parameters = {
  detection: { tokens: quick ? 40 : 200, filler_blocks_per_token: 2, latency_deployments: quick ? 10 : 50 },
  dex: { tokens: quick ? 50 : 200 },
  soak: { rounds: quick ? 2 : 6, blocks_per_round: quick ? 500 : 2_000 },
};

async function main() {
  const rows: BenchRow[] = [];
  progress('detection throughput');
  rows.push(...(await detectionThroughput({ tokens: parameters.detection.tokens, fillerEvery: parameters.detection.filler_blocks_per_token })));
  progress('detection latency');
  rows.push(...(await detectionLatency({ deployments: parameters.detection.latency_deployments })));
  progress('DEX refresh');
  rows.push(...(await dexRefresh({ tokens: parameters.dex.tokens })));
  progress('Redis memory soak');
  rows.push(...(await redisSoak({ rounds: parameters.soak.rounds, blocksPerRound: parameters.soak.blocks_per_round })));
  printTable(rows);
  writeResults(RESULTS_PATH, rows, parameters);
  progress(`results written to ${RESULTS_PATH}`);
}

main().then(() => process.exit(0), (error: Error) => {
  console.error(error);
  process.exit(1);
});
