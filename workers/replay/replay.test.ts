import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../app/service.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { replayRanges, tokens } from '../../db/schema.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../chain-runtime.ts';
import { createProducer, startWorkers } from '../queues.ts';
import { createReplayProcessor } from './detect.ts';
import { replayRange } from './replay.ts';

/** Replay: same detect code, own queue, resumable by finished chunks, stops at the finalized head. */

const FINALITY = 5;
const TOKENS = 12;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
const deployed: string[] = [];
let lastDeployBlock = 0;

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  for (let i = 0; i < TOKENS; i++) {
    const token = await chain.deploy('SimpleToken', [`Replay ${i}`, `R${i}`, 1000n]);
    deployed.push(token.address);
    lastDeployBlock = token.blockNumber;
  }
  for (let i = 0; i < FINALITY; i++) await chain.provider.send('evm_mine', []);
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

function replayHarness() {
  const general = createRedis(redis.url, 'commands');
  const producerConnection = createRedis(redis.url, 'producer');
  const workerConnection = createRedis(redis.url, 'worker');
  const producer = createProducer(producerConnection, redis.prefix);
  const chains = createChainRuntimes(
    [chain.chainConfig({ finalityDepth: FINALITY })],
    silentLogger,
  );
  const pool = startWorkers({
    connection: workerConnection,
    prefix: redis.prefix,
    logger: silentLogger,
    processors: {
      replay: createReplayProcessor({
        chains,
        tokens: createTokenRepository(handle.db),
        producer,
        events: createEventPublisher(general, keySpace(redis.prefix).events),
        logger: silentLogger,
      }),
    },
  });
  return {
    deps: {
      chain: chains.get(31337)!,
      producer,
      ranges: createReplayRepository(handle.db),
      logger: silentLogger,
      chunkSize: 2,
      batchesInFlight: 2,
    },
    async close() {
      await pool.close();
      await producer.close();
      for (const c of [general, producerConnection, workerConnection]) c.disconnect();
    },
  };
}

async function announcedCounts(): Promise<Map<string, number>> {
  const client = createRedis(redis.url, 'commands');
  const entries = await client.xrange(keySpace(redis.prefix).events, '-', '+');
  client.disconnect();
  const counts = new Map<string, number>();
  for (const [, fields] of entries) {
    if (fields[fields.indexOf('type') + 1] !== 'token.created') continue;
    const address = JSON.parse(fields[fields.indexOf('data') + 1]!).contract_address as string;
    counts.set(address, (counts.get(address) ?? 0) + 1);
  }
  return counts;
}

describe('replay', () => {
  it('interrupted and resumed, finishes with every token exactly once', async () => {
    const first = replayHarness();
    let chunksDone = 0;
    const interrupted = await replayRange(
      { ...first.deps, onProgress: () => chunksDone++, shouldStop: () => chunksDone >= 1 },
      0,
      lastDeployBlock,
    );
    await first.close();
    expect(interrupted.status).toBe('interrupted');
    const partial = await handle.db.select().from(tokens);
    expect(partial.length).toBeLessThan(deployed.length + 1); // WETH9 is a token too

    const second = replayHarness();
    const resumed = await replayRange(second.deps, 0, lastDeployBlock);
    await second.close();
    expect(resumed).toMatchObject({ status: 'finished', to: lastDeployBlock });
    if (resumed.status !== 'finished') return;
    // The resumed run only did what the first had not finished.
    expect(resumed.skipped).toBeGreaterThan(0);
    expect(resumed.skipped + resumed.blocks).toBe(lastDeployBlock + 1);

    const rows = await handle.db.select().from(tokens).where(eq(tokens.chainId, 31337));
    const addresses = rows.map((r) => r.address);
    for (const a of deployed) expect(addresses).toContain(a);
    expect(new Set(addresses).size).toBe(addresses.length);
    for (const [address, count] of await announcedCounts()) expect(count, address).toBe(1);
    expect(rows.find((r) => r.address === deployed[0])!.detectionSource).toBe('receipt');
  });

  it('does nothing for a range already finished, and stops at the finalized head', async () => {
    const harness = replayHarness();
    try {
      expect((await replayRange(harness.deps, 0, lastDeployBlock)).status).toBe('nothing-to-do');
      const head = Number(await chain.provider.send('eth_blockNumber', []));
      const result = await replayRange(harness.deps, 0, head + 100);
      expect(result).toMatchObject({ clippedTo: head - FINALITY });
      // Every batch of both runs is finished: the record is merged into one range.
      const ranges = await handle.db.select().from(replayRanges);
      expect(ranges.map((r) => [r.chainId, r.fromBlock, r.toBlock])).toEqual([
        [31337, 0, head - FINALITY],
      ]);
    } finally {
      await harness.close();
    }
  });

  it('is safe beside live scanning: no duplicates when both see the same blocks', async () => {
    const before = await handle.db.select().from(tokens);
    const service = await startService({
      roles: new Set(['worker', 'scanner']),
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      chains: [chain.chainConfig({ finalityDepth: FINALITY })],
      knownChainIds: new Set([31337]),
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: database.embedded ? 1 : 4,
    });
    await createReplayRepository(handle.db).forget(31337);
    const harness = replayHarness();
    const result = await replayRange(harness.deps, 0, lastDeployBlock);
    await harness.close();
    await new Promise((r) => setTimeout(r, 1_000));
    await service.stop();
    expect(result.status).toBe('finished');
    const after = await handle.db.select().from(tokens);
    expect(after.map((r) => r.address).sort()).toEqual(before.map((r) => r.address).sort());
    for (const [address, count] of await announcedCounts()) expect(count, address).toBe(1);
  });
  it('told to stop, takes back the batches no worker has started instead of waiting for them', async () => {
    await createReplayRepository(handle.db).forget(31337);
    const connection = createRedis(redis.url, 'producer');
    // A key space of its own: the batches' job ids must not exist from the runs above.
    const producer = createProducer(connection, `${redis.prefix}stop`);
    const chains = createChainRuntimes(
      [chain.chainConfig({ finalityDepth: FINALITY })],
      silentLogger,
    );
    let asked = 0;
    try {
      // No worker runs: without the withdrawal this replay would wait for its batches for ever.
      const result = await replayRange(
        {
          chain: chains.get(31337)!,
          producer,
          ranges: createReplayRepository(handle.db),
          logger: silentLogger,
          chunkSize: 2,
          batchesInFlight: 4,
          shouldStop: () => asked++ > 0, // the first batches are queued, then Ctrl-C
        },
        0,
        lastDeployBlock,
      );
      expect(result).toMatchObject({ status: 'interrupted', done: 0 });
      const counts = await producer.queue('replay').getJobCounts('waiting', 'delayed', 'active');
      expect(counts).toEqual({ waiting: 0, delayed: 0, active: 0 });
      expect(await handle.db.select().from(replayRanges)).toEqual([]);
    } finally {
      await producer.close();
      connection.disconnect();
    }
  });
});
