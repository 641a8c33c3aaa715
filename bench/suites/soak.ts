import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startService } from '../../app/service.ts';
import { createDb } from '../../db/client.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { STREAM_MAX_LENGTH } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { keySpace } from '../../infra/redis.ts';
import { findFreePort } from '../../scripts/dev/anvil.ts';
import { findOnPath, redisAnswers, stopChild } from '../../scripts/dev/stack.ts';
import { LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { startTestChain } from '../../test/support/chain.ts';
import { createTestDatabase } from '../../test/support/services.ts';
import { createProducer } from '../../workers/queues.ts';
import { replayRange } from '../../workers/replay.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * Redis memory over a long run: rounds of replayed blocks through the real pipeline, plus a
 * burst of events per round, on a redis-server of its own. Job retention and the event stream
 * are bounded, so used memory must level off instead of growing with the work done.
 */

const SUITE = 'soak';
const EVENTS_PER_ROUND = 40_000;

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

export async function redisSoak(options: {
  rounds: number;
  blocksPerRound: number;
}): Promise<BenchRow[]> {
  const binary = findOnPath('redis-server');
  if (!binary) throw new Error('redis-server not found on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'token-monitor-soak-'));
  const port = await findFreePort();
  const redisProcess: ChildProcess = spawn(
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
  const [chain, database] = await Promise.all([startTestChain(), createTestDatabase()]);
  const prefix = 'soak';
  const service = await startService({
    roles: new Set(['worker']),
    databaseUrl: database.url,
    redisUrl: url,
    redisPrefix: prefix,
    chains: [chain.chainConfig({ finalityDepth: 1 })],
    knownChainIds: new Set([LOCAL_CHAIN_ID]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 8,
  });
  const redis = new Redis(url);
  const db = createDb(database.url, { max: 2 });
  const samples: number[] = [];
  let replayed = 0;
  try {
    const producer = createProducer(redis, prefix);
    const [runtime] = service.chains.values();
    for (let round = 0; round < options.rounds; round++) {
      const from = Number(await chain.provider.send('eth_blockNumber', [])) + 1;
      await chain.provider.send('anvil_mine', [`0x${options.blocksPerRound.toString(16)}`]);
      await chain.provider.send('evm_mine', []);
      const to = from + options.blocksPerRound - 1;
      const result = await replayRange(
        {
          chain: runtime!,
          producer,
          ranges: createReplayRepository(db.db),
          logger: silentLogger,
          chunkSize: 500,
        },
        from,
        to,
      );
      if (result.status !== 'finished') throw new Error(`soak replay ${result.status}`);
      replayed += result.blocks;
      for (let i = 0; i < EVENTS_PER_ROUND; i += 500) {
        // The same bounded append as the event publisher, batched to make the burst quick.
        const pipeline = redis.pipeline();
        for (let j = 0; j < 500; j++)
          pipeline.xadd(
            keySpace(prefix).events,
            'MAXLEN',
            '~',
            STREAM_MAX_LENGTH,
            '*',
            'type',
            'token.updated',
            'ts',
            new Date().toISOString(),
            'data',
            JSON.stringify({
              chain_id: 31337,
              contract_address: `0x${'0'.repeat(40)}`,
              round,
              i,
              j,
            }),
          );
        await pipeline.exec();
      }
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
    await stopChild(redisProcess);
    rmSync(dir, { recursive: true, force: true });
  }
  const mib = (n: number) => round(n / 2 ** 20, 1);
  const half = Math.floor(samples.length / 2);
  const growthSecondHalf = samples.at(-1)! - samples[half]!;
  return [
    {
      suite: SUITE,
      metric: 'Redis used_memory after the first round',
      value: mib(samples[0]!),
      unit: 'MiB',
      note: `${options.blocksPerRound} blocks + ${EVENTS_PER_ROUND} events per round`,
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
