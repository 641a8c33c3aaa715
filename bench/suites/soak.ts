import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePort, findOnPath, redisAnswers, stopChild } from '../../app/embedded/index.ts';
import { startService } from '../../app/service.ts';
import { createDb } from '../../db/client.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { STREAM_MAX_LENGTH } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { keySpace } from '../../infra/redis.ts';
import { LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { createTestDatabase } from '../../test/support/services.ts';
import { createProducer } from '../../workers/queues.ts';
import { type ReplayDeps, replayRange } from '../../workers/replay/index.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * Redis memory over a long run: rounds of replayed blocks through the real pipeline, plus a
 * burst of events per round, on a redis-server of its own. Job retention and the event stream
 * are bounded, so used memory must level off instead of growing with the work done.
 */

const SUITE = 'soak';
const EVENTS_PER_ROUND = 40_000;
const PREFIX = 'soak';

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

/** A redis-server of the suite's own (the shared one's memory would mix in other work). */
async function startOwnRedis(dir: string): Promise<{ process: ChildProcess; url: string }> {
  const binary = findOnPath('redis-server');
  if (!binary) throw new Error('redis-server not found on PATH');
  const port = await findFreePort();
  const redisProcess = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  while (!(await redisAnswers(url))) await new Promise((r) => setTimeout(r, 50));
  return { process: redisProcess, url };
}

/** EVENTS_PER_ROUND events, appended as the event publisher does, in pipelines of 500. */
async function appendEvents(redis: Redis, round: number) {
  for (let i = 0; i < EVENTS_PER_ROUND; i += 500) {
    const pipeline = redis.pipeline();
    for (let j = 0; j < 500; j++)
      pipeline.xadd(
        keySpace(PREFIX).events,
        'MAXLEN',
        '~',
        STREAM_MAX_LENGTH,
        '*',
        'type',
        'token.updated',
        'ts',
        new Date().toISOString(),
        'data',
        JSON.stringify({ chain_id: 31337, contract_address: `0x${'0'.repeat(40)}`, round, i, j }),
      );
    await pipeline.exec();
  }
}

/** One round: mine and replay `blocks` blocks through the pipeline; returns the blocks replayed. */
async function replayRound(
  chain: TestChain,
  deps: Pick<ReplayDeps, 'chain' | 'producer' | 'ranges'>,
  blocks: number,
): Promise<number> {
  const from = Number(await chain.provider.send('eth_blockNumber', [])) + 1;
  await chain.provider.send('anvil_mine', [`0x${blocks.toString(16)}`]);
  await chain.provider.send('evm_mine', []);
  const result = await replayRange(
    { ...deps, logger: silentLogger, chunkSize: 500 },
    from,
    from + blocks - 1,
  );
  if (result.status !== 'finished') throw new Error(`soak replay ${result.status}`);
  return result.blocks;
}

function soakRows(samples: number[], replayed: number, blocksPerRound: number): BenchRow[] {
  const mib = (n: number) => round(n / 2 ** 20, 1);
  const half = Math.floor(samples.length / 2);
  const growthSecondHalf = samples.at(-1)! - samples[half]!;
  return [
    {
      suite: SUITE,
      metric: 'Redis used_memory after the first round',
      value: mib(samples[0]!),
      unit: 'MiB',
      note: `${blocksPerRound} blocks + ${EVENTS_PER_ROUND} events per round`,
    },
    {
      suite: SUITE,
      metric: `Redis used_memory after ${samples.length} rounds`,
      value: mib(samples.at(-1)!),
      unit: 'MiB',
      note: `${replayed} blocks replayed, ${samples.length * EVENTS_PER_ROUND} events`,
    },
    {
      suite: SUITE,
      metric: 'growth over the second half of the run',
      value: mib(growthSecondHalf),
      unit: 'MiB',
    },
  ];
}

export async function redisSoak(options: {
  rounds: number;
  blocksPerRound: number;
}): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'token-monitor-soak-'));
  const own = await startOwnRedis(dir);
  const [chain, database] = await Promise.all([startTestChain(), createTestDatabase()]);
  const service = await startService({
    roles: new Set(['worker']),
    databaseUrl: database.url,
    redisUrl: own.url,
    redisPrefix: PREFIX,
    chains: [chain.chainConfig({ finalityDepth: 1 })],
    knownChainIds: new Set([LOCAL_CHAIN_ID]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 8,
  });
  const redis = new Redis(own.url);
  const db = createDb(database.url, { max: 2 });
  const samples: number[] = [];
  let replayed = 0;
  try {
    const producer = createProducer(redis, PREFIX);
    const [runtime] = service.chains.values();
    const deps = { chain: runtime!, producer, ranges: createReplayRepository(db.db) };
    for (let round = 0; round < options.rounds; round++) {
      replayed += await replayRound(chain, deps, options.blocksPerRound);
      await appendEvents(redis, round);
      samples.push(await usedMemory(redis));
      progress(
        `soak round ${round + 1}/${options.rounds}: ${replayed} blocks, used_memory ${(samples.at(-1)! / 2 ** 20).toFixed(1)} MiB`,
      );
    }
    await producer.close();
  } finally {
    redis.disconnect();
    await service.stop();
    await db.close();
    await Promise.all([chain.stop(), database.drop()]);
    await stopChild(own.process);
    rmSync(dir, { recursive: true, force: true });
  }
  return soakRows(samples, replayed, options.blocksPerRound);
}
