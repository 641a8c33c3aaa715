import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { tokens } from '../../db/schema.ts';
import { createRedis } from '../../infra/redis.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createProducer } from '../queues.ts';
import { detectJobs, RUN_BLOCKS } from './scanner.ts';

/**
 * Catching up: a scanner far behind the head hands its blocks on in runs (one detect job per run
 * of blocks, read in one pipelined pass), and detection over a run finds what per-block jobs find,
 * leaving out a block whose hash is no longer the chain's.
 */

const LOCAL = 31337;
let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: 2 });
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

const record = (n: number) => ({
  chainId: LOCAL,
  blockNumber: n,
  blockHash: `0x${n.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}`,
  timestamp: new Date(0),
});

describe('detect jobs of a tick', () => {
  it('are one per block at the head, and runs of blocks named by their hashes when catching up', () => {
    const few = [100, 101, 102].map(record);
    expect(detectJobs(LOCAL, few).map((j) => [j.blockNumber, 'hashes' in j])).toEqual([
      [100, false],
      [101, false],
      [102, false],
    ]);
    const many = Array.from({ length: 4 * RUN_BLOCKS + 5 }, (_, i) => record(200 + i));
    const runs = detectJobs(LOCAL, many);
    expect(runs.map((j) => [j.blockNumber, j.hashes?.length])).toEqual([
      [200, RUN_BLOCKS],
      [200 + RUN_BLOCKS, RUN_BLOCKS],
      [200 + 2 * RUN_BLOCKS, RUN_BLOCKS],
      [200 + 3 * RUN_BLOCKS, RUN_BLOCKS],
      [200 + 4 * RUN_BLOCKS, 5],
    ]);
    // Every block once, in order, each run starting with its first block's hash.
    expect(runs.flatMap((j) => j.hashes)).toEqual(many.map((b) => b.blockHash));
    for (const j of runs) expect(j.hashes![0]).toBe(j.blockHash);
  });
});

describe('catching up', () => {
  it('detects every token of the blocks behind the head through runs, and skips a replaced block', async () => {
    const first = (await chain.provider.getBlockNumber()) + 1;
    const deployed: { address: string; block: number }[] = [];
    for (let i = 0; i < 12; i++) {
      const { address, blockNumber } = await chain.deploy('SimpleToken', [
        `Behind ${i}`,
        `BH${i}`,
        1000n,
      ]);
      deployed.push({ address: address.toLowerCase(), block: blockNumber });
    }
    const last = deployed.at(-1)!.block;
    expect(last - first + 1).toBeGreaterThanOrEqual(8);

    // A run whose third block's hash is not the chain's: that block is left out as orphaned.
    const producerConnection = createRedis(redis.url, 'producer');
    const producer = createProducer(producerConnection, redis.prefix);
    const hashes = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => (await chain.provider.getBlock(first + i))!.hash!),
    );
    hashes[2] = `0x${'ee'.repeat(32)}`;
    const [id] = await producer.enqueueBulk('detect', [
      { chainId: LOCAL, blockNumber: first, blockHash: hashes[0]!, source: 'live', hashes },
    ]);

    const service = await startTestService({
      roles: ['worker'],
      database,
      redis,
      chain: chain.chainConfig({ startBlock: first }),
    });
    try {
      const job = await eventually(
        async () => {
          const j = await producer.queue('detect').getJob(id!);
          return j?.finishedOn ? j : undefined;
        },
        30_000,
        'the run job',
      );
      expect(job.returnvalue).toMatchObject({ status: 'done', orphaned: 1 });
      expect((job.returnvalue as { tokens: string[] }).tokens.sort()).toEqual(
        deployed
          .filter((d) => d.block >= first && d.block < first + 4 && d.block !== first + 2)
          .map((d) => d.address)
          .sort(),
      );
    } finally {
      await service.stop();
    }

    // The scanner, from the first block, hands the rest on as runs; every token is detected.
    const scanning = await startTestService({
      roles: ['worker', 'scanner'],
      database,
      redis,
      chain: chain.chainConfig({ startBlock: first }),
    });
    try {
      const addresses = deployed.map((d) => d.address);
      await eventually(
        async () => {
          const rows = await handle.db
            .select({ address: tokens.address })
            .from(tokens)
            .where(and(eq(tokens.chainId, LOCAL), inArray(tokens.address, addresses)));
          return rows.length === addresses.length ? true : undefined;
        },
        60_000,
        'every token detected',
      );
      // The scanner's run may still be finishing (pools, holders) once its tokens are recorded.
      const jobs = await producer.queue('detect').getJobs(['completed', 'active', 'waiting']);
      expect(jobs.some((j) => (j.data.hashes?.length ?? 0) >= 8)).toBe(true);
    } finally {
      await scanning.stop();
      await producer.close();
      producerConnection.disconnect();
    }
  });
});
