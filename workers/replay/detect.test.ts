import { UnrecoverableError } from 'bullmq';
import { eq } from 'drizzle-orm';
import { parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { createTokenRepository, type TokenRepository } from '../../db/repositories/tokens.ts';
import { tokens } from '../../db/schema.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { startTestChain, type TestChain, waitMined } from '../../test/support/chain.ts';
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

/**
 * Batch-mode replay on Anvil with compiled contracts: a range holding top-level and factory
 * deployments (the latter only visible in traces) between tokens outside the range. A batch
 * that fails for good mid-way (recorded and announced, not marked announced) and a replay stopped
 * early must both resume to exactly the range's tokens, each recorded, announced and handed to
 * analysis once.
 */

const FINALITY = 3;
const BATCH_BLOCKS = 3;
const CHAIN_ID = 31337;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
const inside: string[] = [];
const outside: string[] = [];
let from = 0;
let to = 0;

async function factoryToken(factory: Awaited<ReturnType<TestChain['deploy']>>, i: number) {
  const receipt = await waitMined(
    chain.provider,
    factory.contract.getFunction('createToken')(`Made ${i}`, `MD${i}`, parseEther('1')),
  );
  const log = receipt.logs
    .map((l) => factory.contract.interface.parseLog(l))
    .find((l) => l?.name === 'TokenCreated');
  return String(log!.args.getValue('token')).toLowerCase();
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  const factory = await chain.deploy('TokenFactory');
  outside.push((await chain.deploy('SimpleToken', ['Before', 'BF', 1000n])).address);
  from = (await chain.provider.getBlockNumber()) + 1;
  for (let i = 0; i < 8; i++) {
    if (i % 2 === 0)
      inside.push((await chain.deploy('SimpleToken', [`In ${i}`, `IN${i}`, 1000n])).address);
    else inside.push(await factoryToken(factory, i));
    // A block without deployments between some of them.
    if (i % 3 === 0) await chain.provider.send('evm_mine', []);
  }
  to = await chain.provider.getBlockNumber();
  outside.push((await chain.deploy('SimpleToken', ['After', 'AF', 1000n])).address);
  outside.push(await factoryToken(factory, 99));
  for (let i = 0; i < FINALITY; i++) await chain.provider.send('evm_mine', []);
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

/** A replay process: the replay worker and the driver, writing tokens through `tokenRepository`. */
function replayProcess(tokenRepository: TokenRepository) {
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
        tokens: tokenRepository,
        producer,
        events: createEventPublisher(general, keySpace(redis.prefix).events),
        logger: silentLogger,
      }),
    },
  });
  const deps = {
    chain: chains.get(CHAIN_ID)!,
    producer,
    ranges: createReplayRepository(handle.db),
    logger: silentLogger,
    chunkSize: BATCH_BLOCKS,
  };
  return {
    deps,
    producer,
    async close() {
      await pool.close();
      await producer.close();
      for (const c of [general, producerConnection, workerConnection]) c.disconnect();
    },
  };
}

/**
 * Batch writes whose first "mark announced" fails for good: a batch that died half-way, its
 * tokens recorded and announced but not marked so.
 */
function crashingAfterAnnouncing(): TokenRepository {
  const real = createTokenRepository(handle.db);
  let crashed = false;
  return {
    ...real,
    markAnnounced: async (chainId, addresses) => {
      if (!crashed && addresses.length > 0) {
        crashed = true;
        throw new UnrecoverableError('simulated crash mid-batch');
      }
      return real.markAnnounced(chainId, addresses);
    },
  };
}

async function announced(): Promise<string[]> {
  const client = createRedis(redis.url, 'commands');
  const entries = await client.xrange(keySpace(redis.prefix).events, '-', '+');
  client.disconnect();
  return entries
    .filter(([, f]) => f[f.indexOf('type') + 1] === 'token.created')
    .map(([, f]) => JSON.parse(f[f.indexOf('data') + 1]!).contract_address as string);
}

describe('batch-mode replay', () => {
  it('finds exactly the tokens of the range and resumes without loss or duplicates', async () => {
    const crashing = replayProcess(crashingAfterAnnouncing());
    const failed = await replayRange(crashing.deps, from, to);
    await crashing.close();
    expect(failed.status).toBe('failed');
    const afterCrash = await handle.db.select().from(tokens);
    expect(afterCrash.some((t) => t.announcedAt === null)).toBe(true);

    const stopped = replayProcess(createTokenRepository(handle.db));
    let batches = 0;
    const interrupted = await replayRange(
      {
        ...stopped.deps,
        batchesInFlight: 1,
        onProgress: () => batches++,
        shouldStop: () => batches >= 1,
      },
      from,
      to,
    );
    await stopped.close();
    expect(interrupted.status).toBe('interrupted');

    const resumed = replayProcess(createTokenRepository(handle.db));
    const result = await replayRange(resumed.deps, from, to);
    const bytecodeJobs = await resumed.producer.queue('bytecode').getJobs(['waiting']);
    await resumed.close();
    expect(result.status).toBe('finished');

    const rows = await handle.db.select().from(tokens).where(eq(tokens.chainId, CHAIN_ID));
    expect(rows.map((r) => r.address).sort()).toEqual([...inside].sort());
    for (const a of outside) expect(rows.map((r) => r.address)).not.toContain(a);
    expect(new Set(rows.map((r) => r.detectionSource))).toEqual(new Set(['receipt', 'trace']));
    expect((await announced()).sort()).toEqual([...inside].sort());
    expect(rows.every((r) => r.announcedAt !== null)).toBe(true);
    // Every token handed to analysis once: the initial pass of each, nothing else.
    expect(bytecodeJobs.map((j) => j.data.address).sort()).toEqual([...inside].sort());
    expect(
      (await createReplayRepository(handle.db).finishedRanges(CHAIN_ID)).reduce(
        (n, r) => n + r.to - r.from + 1,
        0,
      ),
    ).toBe(to - from + 1);
  }, 120_000);
});
