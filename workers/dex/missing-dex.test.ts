import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { and, eq } from 'drizzle-orm';
import { parseEther } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../app/service.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { tokens } from '../../db/schema.ts';
import type { TradingSimulation } from '../../src/analysis/types.ts';
import { addLiquidity, startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';

/**
 * A chain whose configured DEX factories are broken: one has no code, one answers garbage. The
 * simulate stage must call that "no liquidity" (not fail its attempts), the token must still be
 * scored, and start-up must warn once about the factory without code.
 */

const GHOST_FACTORY = '0x00000000000000000000000000000000000fac70';
const JUNK_FACTORY = '0x00000000000000000000000000000000000fac71';
const GHOST_ROUTER = '0x00000000000000000000000000000000000fac72';
/** Runtime code that answers any call with the single byte 0xff: no ABI word at all. */
const JUNK_CODE = '0x60ff60005360016000f3';
const PIPELINE_TIMEOUT_MS = 90_000;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let service: Service;
const warnings: Record<string, unknown>[] = [];

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  await chain.provider.send('anvil_setCode', [JUNK_FACTORY, JUNK_CODE]);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) warnings.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const router = chain.uniswap.router.toLowerCase();
  service = await startTestService({
    roles: ['worker', 'scanner'],
    database,
    redis,
    chain: chain.chainConfig({
      dexes: [
        { name: 'ghost-v2', kind: 'v2', factory: GHOST_FACTORY, router },
        { name: 'junk-v2', kind: 'v2', factory: JUNK_FACTORY, router },
        // A real factory whose configured router has no code: its pools cannot be traded.
        {
          name: 'routerless-v2',
          kind: 'v2',
          factory: chain.uniswap.factory.toLowerCase(),
          router: GHOST_ROUTER,
        },
      ],
    }),
    logger: pino({ level: 'warn' }, sink),
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('a chain whose configured DEX is missing or broken', () => {
  it(
    'scores its tokens without simulation: no liquidity, no failed simulate job',
    async () => {
      const { address } = await chain.deploy('SimpleToken', [
        'No Dex',
        'NODEX',
        parseEther('1000'),
      ]);
      const row = await eventually(
        async () => {
          const [t] = await handle.db
            .select()
            .from(tokens)
            .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.address, address)));
          return t?.stage === 'risk' && t.currentRiskScore !== null ? t : undefined;
        },
        PIPELINE_TIMEOUT_MS,
        'the token scored despite the broken DEX',
      );
      expect((row.tradingSimulation as TradingSimulation).error).toBe('no liquidity');
      expect(row.currentRiskLevel).toBe('low');

      // The selectors job runs simulate and risk in process (workers/pipeline.ts), so the
      // simulation's outcome is in the selectors queue's completed jobs.
      for (const name of ['selectors', 'simulate', 'dex']) {
        const queue = new Queue(name, { connection: { url: redis.url }, prefix: redis.prefix });
        try {
          expect((await queue.getJobCounts('failed')).failed, `${name} failed jobs`).toBe(0);
          const done = await queue.getJobs(['completed']);
          if (name === 'selectors') expect(done.length).toBeGreaterThan(0);
          // No attempt failed on the way: each job's error history is empty.
          for (const job of done)
            expect([name, job.id, job.stacktrace ?? []]).toEqual([name, job.id, []]);
        } finally {
          await queue.close();
        }
      }
    },
    PIPELINE_TIMEOUT_MS + 30_000,
  );

  it(
    'does not read a pool behind a router without code as "not buyable"',
    async () => {
      const { address } = await chain.deploy('SimpleToken', [
        'Routerless',
        'NORTR',
        parseEther('1000'),
      ]);
      await addLiquidity(chain, address, parseEther('100'));
      const row = await eventually(
        async () => {
          const [t] = await handle.db
            .select()
            .from(tokens)
            .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.address, address)));
          return t?.stage === 'risk' && t.currentRiskScore !== null ? t : undefined;
        },
        PIPELINE_TIMEOUT_MS,
        'the paired token scored',
      );
      expect(row.tradingSimulation).toMatchObject({ error: 'no liquidity', is_buyable: null });
      expect(row.currentRiskLevel).toBe('low');
    },
    PIPELINE_TIMEOUT_MS + 30_000,
  );

  it('warned once at start-up about the factory and the router without code, not about those with code', () => {
    const noCode = warnings.filter(
      (w) => typeof w.msg === 'string' && w.msg.startsWith('configured DEX factory has no code'),
    );
    expect(noCode).toEqual([
      expect.objectContaining({
        chain: chain.anvil.chainId,
        dex: 'ghost-v2',
        factory: GHOST_FACTORY,
      }),
    ]);
    const noRouter = warnings.filter(
      (w) => typeof w.msg === 'string' && w.msg.startsWith('configured DEX router has no code'),
    );
    expect(noRouter).toEqual([
      expect.objectContaining({
        chain: chain.anvil.chainId,
        dex: 'routerless-v2',
        router: GHOST_ROUTER,
      }),
    ]);
    // Nothing failed along the way either.
    expect(warnings.filter((w) => w.msg === 'job failed')).toEqual([]);
  });
});
