import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { createTestRedis, eventually, type TestRedis } from '../test/support/services.ts';
import { cappedBackoff, MAX_BACKOFF_MS } from './jobs.ts';
import { NotYetError } from './not-yet.ts';
import { createProducer, startWorkers } from './queues.ts';

describe('cappedBackoff', () => {
  it('doubles from the base, with jitter in [ceiling/2, ceiling], and never exceeds the cap', () => {
    expect(cappedBackoff(1, 1_000, () => 0)).toBe(500);
    expect(cappedBackoff(1, 1_000, () => 1)).toBe(1_000);
    expect(cappedBackoff(3, 1_000, () => 1)).toBe(4_000);
    expect(cappedBackoff(30, 1_000, () => 1)).toBe(MAX_BACKOFF_MS);
    expect(cappedBackoff(30, 1_000, () => 0)).toBe(MAX_BACKOFF_MS / 2);
  });
});

describe('workers with the catalog options', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await redis.cleanup();
  });

  it('retry a failing job with the capped strategy until it succeeds; malformed data fails at once', async () => {
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const producer = createProducer(producerConnection, redis.prefix);
    let calls = 0;
    const pool = startWorkers({
      connection: workerConnection,
      prefix: redis.prefix,
      logger: silentLogger,
      processors: {
        bytecode: async () => {
          calls++;
          if (calls < 3) throw new Error('transient');
          return 'ok';
        },
      },
    });
    try {
      const id = await producer.enqueue('bytecode', { chainId: 1, address: `0x${'1'.repeat(40)}` });
      const job = await eventually(
        async () => {
          const j = await producer.queue('bytecode').getJob(id);
          return (await j?.getState()) === 'completed' ? j : undefined;
        },
        20_000,
        'the job to complete after retries',
      );
      expect(job.attemptsMade).toBe(3);
      expect(calls).toBe(3);
      // The producer validates against the catalog schema before anything reaches Redis.
      await expect(
        producer.enqueue('bytecode', { chainId: 1, address: 'not an address' }),
      ).rejects.toThrow();
    } finally {
      await pool.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });

  it('moves a job that cannot run yet back to the delayed set without spending an attempt', async () => {
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const producer = createProducer(producerConnection, redis.prefix);
    // What each run of the job saw: its attempts made so far (a retry would have counted them).
    const attemptsSeen: number[] = [];
    const pool = startWorkers({
      connection: workerConnection,
      prefix: redis.prefix,
      logger: silentLogger,
      processors: {
        bytecode: async (_data, job) => {
          attemptsSeen.push(job?.attemptsMade ?? -1);
          // More "not yet" answers than the job has attempts (the catalog gives bytecode 8).
          if (attemptsSeen.length <= 12)
            throw new NotYetError('what it needs is not written yet', 20);
          return 'ok';
        },
      },
    });
    try {
      // An address of this run only: a retry of the test must not find the job completed.
      const address = `0x${randomBytes(20).toString('hex')}`;
      const id = await producer.enqueue('bytecode', { chainId: 1, address });
      await eventually(
        async () => {
          const j = await producer.queue('bytecode').getJob(id);
          return (await j?.getState()) === 'completed' ? true : undefined;
        },
        30_000,
        'the job to complete after waiting',
      );
      expect(attemptsSeen).toEqual(Array.from({ length: 13 }, () => 0));
      expect(await producer.queue('bytecode').getFailedCount()).toBe(0);
    } finally {
      await pool.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });
});
