import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../infra/logger.ts';
import { queueBacklog } from '../infra/queue-backlog.ts';
import { createRedis } from '../infra/redis.ts';
import { createTestRedis, eventually, type TestRedis } from '../test/support/services.ts';
import { agePriority, cappedBackoff, MAX_BACKOFF_MS } from './jobs.ts';
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

describe('agePriority', () => {
  it('ranks older tokens first, one step per minute, within BullMQ’s range; no birth time, no priority', () => {
    const now = 1_795_505_282;
    expect(agePriority(now - 60)!).toBeLessThan(agePriority(now)!);
    expect(agePriority(now - 1)).toBe(agePriority(Math.floor(now / 60) * 60));
    for (const t of [0, now, 2 ** 31, 2 ** 40]) {
      expect(agePriority(t)!).toBeGreaterThanOrEqual(1);
      expect(agePriority(t)!).toBeLessThanOrEqual(2 ** 21);
    }
    expect(agePriority(undefined)).toBeUndefined();
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

  it('past the wait, completes a job whose wait says skip without running it, and fails one that says fail', async () => {
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const prefix = `${redis.prefix}-limit`;
    const producer = createProducer(producerConnection, prefix);
    const pool = startWorkers({
      connection: workerConnection,
      prefix,
      logger: silentLogger,
      // Every wait is already past its limit.
      notYetLimitMs: 0,
      processors: {
        bytecode: async (data) => {
          throw new NotYetError('never there', 20, data.run === 'skipping' ? 'skip' : 'fail');
        },
      },
    });
    try {
      const address = `0x${randomBytes(20).toString('hex')}`;
      const skipped = await producer.enqueue('bytecode', { chainId: 1, address, run: 'skipping' });
      const failing = await producer.enqueue('bytecode', { chainId: 1, address, run: 'failing' });
      const queue = producer.queue('bytecode');
      const done = await eventually(
        async () => {
          const j = await queue.getJob(skipped);
          return (await j?.getState()) === 'completed' ? j : undefined;
        },
        30_000,
        'the skipping job completed',
      );
      expect(done.returnvalue).toMatchObject({ status: 'skipped' });
      // The other one is an ordinary failure: retried with backoff, its attempts counted.
      const retried = await eventually(
        async () => {
          const j = await queue.getJob(failing);
          return (j?.attemptsMade ?? 0) >= 1 ? j : undefined;
        },
        30_000,
        'the failing job retried',
      );
      expect(await retried.getState()).not.toBe('completed');
    } finally {
      await pool.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });

  it('take only the queues they are given (WORKER_QUEUES)', async () => {
    const workerConnection = createRedis(redis.url, 'worker');
    const pool = startWorkers({
      connection: workerConnection,
      prefix: `${redis.prefix}-only`,
      logger: silentLogger,
      only: new Set(['detect', 'replay'] as const),
      processors: { detect: async () => {}, bytecode: async () => {}, selectors: async () => {} },
    });
    try {
      expect(pool.workers.map((w) => w.name)).toEqual(['detect']);
    } finally {
      await pool.close();
      workerConnection.disconnect();
    }
  });

  it('drain a backlog oldest token first, a retried job among its own age; a pass without a birth time first; the backlog shows it', async () => {
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const prefix = `${redis.prefix}-age`;
    const producer = createProducer(producerConnection, prefix);
    const base = 1_795_000_000;
    const JOBS = 40;
    const WORK_MS = 100;
    // Added in a scrambled order, one minute of age apart: the order they were added in is not
    // the order of their age.
    const ages = Array.from({ length: JOBS }, (_, i) => (i * 17) % JOBS);
    const address = (age: number) => `0x${(age + 1).toString(16).padStart(40, '0')}`;
    const manual = `0x${'f'.repeat(40)}`;
    let pool: ReturnType<typeof startWorkers> | undefined;
    try {
      for (const age of ages)
        await producer.enqueue('bytecode', {
          chainId: 1,
          address: address(age),
          bornAt: base + age * 60,
        });
      await new Promise((r) => setTimeout(r, 300));
      await producer.enqueue('bytecode', { chainId: 1, address: manual, run: 'manual-1' });
      const backlog = await queueBacklog(producer.queue('bytecode'));
      expect(backlog.waiting).toBe(JOBS + 1);
      // The oldest waiting job was added 300 ms before the last one, not at the same time.
      expect(backlog.oldestWaitingSeconds).toBeGreaterThanOrEqual(0.3);

      const oldest = address(0);
      const done: string[] = [];
      let failedOnce = false;
      pool = startWorkers({
        connection: workerConnection,
        prefix,
        logger: silentLogger,
        concurrency: { bytecode: 1 },
        processors: {
          bytecode: async (data) => {
            await new Promise((r) => setTimeout(r, WORK_MS));
            if (data.address === oldest && !failedOnce) {
              failedOnce = true;
              throw new Error('transient');
            }
            done.push(data.address);
          },
        },
      });
      await eventually(
        async () => (done.length === JOBS + 1 ? done : undefined),
        30_000,
        'every job done',
      );
      expect(done[0]).toBe(manual);
      const aged = done.slice(1);
      // Its retry (after at most a second of backoff) comes back before the younger jobs still
      // waiting: in a plain list it would come last, behind every one of them.
      const retriedAt = aged.indexOf(oldest);
      expect(retriedAt).toBeGreaterThan(0);
      expect(retriedAt).toBeLessThan(JOBS / 2);
      const others = aged.filter((a) => a !== oldest);
      expect(others).toEqual(Array.from({ length: JOBS - 1 }, (_, i) => address(i + 1)));
    } finally {
      await pool?.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });
});
