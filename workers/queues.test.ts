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
    let calls = 0;
    let delayedSeen = false;
    const pool = startWorkers({
      connection: workerConnection,
      prefix: redis.prefix,
      logger: silentLogger,
      processors: {
        bytecode: async () => {
          calls++;
          // More "not yet" answers than the job has attempts (the catalog gives bytecode fewer).
          if (calls <= 12) throw new NotYetError('what it needs is not written yet', 20);
          return 'ok';
        },
      },
    });
    try {
      const id = await producer.enqueue('bytecode', { chainId: 1, address: `0x${'2'.repeat(40)}` });
      const job = await eventually(
        async () => {
          const j = await producer.queue('bytecode').getJob(id);
          const state = await j?.getState();
          if (state === 'delayed') delayedSeen = true;
          return state === 'completed' ? j : undefined;
        },
        20_000,
        'the job to complete after waiting',
      );
      expect(calls).toBe(13);
      expect(delayedSeen).toBe(true);
      // Waiting spent none of its attempts: only the run that completed counts.
      expect(job.attemptsMade).toBeLessThanOrEqual(1);
      expect(await producer.queue('bytecode').getFailedCount()).toBe(0);
    } finally {
      await pool.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });
});
