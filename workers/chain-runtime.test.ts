import { UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { createTestRedis, eventually, type TestRedis } from '../test/support/services.ts';
import { createBytecodeProcessor } from './bytecode.ts';
import { ChainNotConfiguredError, chainOf } from './chain-runtime.ts';
import { createProducer, startWorkers } from './queues.ts';

describe('a job for a chain this worker does not serve', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await redis.cleanup();
  });

  it('is one unrecoverable error', () => {
    const error = (() => {
      try {
        chainOf(new Map(), 424242);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ChainNotConfiguredError);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toBe('chain 424242 is not configured in this worker');
  });

  it('fails at its first attempt instead of being retried', async () => {
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const producer = createProducer(producerConnection, redis.prefix);
    // The processor fails before it touches the repository.
    const tokens = {} as TokenRepository;
    const pool = startWorkers({
      connection: workerConnection,
      prefix: redis.prefix,
      logger: silentLogger,
      processors: {
        bytecode: createBytecodeProcessor({
          chains: new Map(),
          tokens,
          producer,
          logger: silentLogger,
        }),
      },
    });
    try {
      const id = await producer.enqueue('bytecode', {
        chainId: 424242,
        address: `0x${'2'.repeat(40)}`,
      });
      const job = await eventually(
        async () => {
          const j = await producer.queue('bytecode').getJob(id);
          return (await j?.getState()) === 'failed' ? j : undefined;
        },
        20_000,
        'the job to fail',
      );
      expect(job.attemptsMade).toBe(1);
      expect(job.opts.attempts).toBeGreaterThan(1);
      expect(job.failedReason).toBe('chain 424242 is not configured in this worker');
    } finally {
      await pool.close();
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  });
});
