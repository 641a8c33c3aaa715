import { Queue } from 'bullmq';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Service, startService } from '../app/service.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { analysisInputHash } from '../db/repositories/analyses.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { analyses, tokens } from '../db/schema.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import type { RiskFactor } from '../src/analysis/types.ts';
import { INITIAL_RUN, passFor } from '../src/run-key.ts';
import { startTestChain, type TestChain } from '../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import { type CorpusToken, deployCorpusToken } from '../test/support/token-corpus.ts';
import { createProducer } from './queues.ts';

/**
 * A first-liquidity pass starts at simulate, reusing the token's static analysis, and supersedes
 * the token's first pass. When the pool's block is detected before that pass is through risk, it
 * waits for it (workers/not-yet.ts): scoring earlier would miss every admin power, or be
 * overwritten by the first pass's older verdict.
 */

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let service: Service;
let token: CorpusToken;

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: 2 });
  token = await deployCorpusToken(chain, 'pausable', 7);
  // No scanner: the test decides when each pass starts.
  service = await startService({
    roles: new Set(['worker']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [chain.chainConfig()],
    knownChainIds: new Set([chain.anvil.chainId]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: 2,
  });
}, 180_000);

afterAll(async () => {
  await service?.stop();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

async function passFactors(run: string): Promise<RiskFactor[] | null> {
  const key = { chainId: chain.anvil.chainId, address: token.address, run };
  const [row] = await handle.db
    .select({ factors: analyses.riskFactors, score: analyses.riskScore })
    .from(analyses)
    .where(
      and(eq(analyses.address, token.address), eq(analyses.inputHash, analysisInputHash(key))),
    );
  return row?.score == null ? null : (row.factors as RiskFactor[]);
}

describe('a first-liquidity pass ahead of the first pass', () => {
  it('waits for the first pass, then scores last, with the admin powers it found', async () => {
    const chainId = chain.anvil.chainId;
    await createTokenRepository(handle.db).upsertDetected({
      chainId,
      address: token.address,
      name: 'pausable',
      symbol: 'PAUSE',
      decimals: 18,
      totalSupply: '1000000000000000000000000',
      creationTxHash: null,
      creator: chain.account,
      creatorIsContract: false,
      txOrigin: chain.account,
      creationBlockNumber: 1,
      creationBlockHash: null,
      creationTimestamp: new Date(),
      creationGasUsed: null,
      detectionSource: 'receipt',
    });
    const connection = createRedis(redis.url, 'producer');
    const producer = createProducer(connection, redis.prefix);
    const simulate = new Queue('simulate', {
      connection: { url: redis.url },
      prefix: redis.prefix,
    });
    try {
      const liquidity = passFor({ kind: 'first-liquidity' });
      const jobId = await producer.enqueue('simulate', {
        chainId,
        address: token.address,
        reason: liquidity.reason,
        run: liquidity.run,
      });
      // The token is detected but its first pass has not run: the pass waits, unscored.
      await eventually(
        async () =>
          (await (await simulate.getJob(jobId))?.getState()) === 'delayed' ? true : undefined,
        30_000,
        'the first-liquidity pass to wait',
      );
      expect(await passFactors(liquidity.run)).toBeNull();

      await producer.enqueue('bytecode', {
        chainId,
        address: token.address,
        reason: 'pipeline',
        run: INITIAL_RUN,
      });
      const factors = await eventually(
        async () => (await passFactors(liquidity.run)) ?? undefined,
        60_000,
        'the first-liquidity pass scored',
      );
      expect(factors.map((f) => f.code)).toContain('admin:pause');
      // It wrote last: the token row carries its simulation, against the pool.
      const [row] = await handle.db
        .select({ sim: tokens.tradingSimulation })
        .from(tokens)
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, token.address)));
      expect((row?.sim as { pool?: unknown } | null)?.pool).toBeTruthy();
      const job = await simulate.getJob(jobId);
      expect(await job?.getState()).toBe('completed');
      expect(await simulate.getFailedCount()).toBe(0);
    } finally {
      await simulate.close();
      await producer.close();
      connection.disconnect();
    }
  });
});
