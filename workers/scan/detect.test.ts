import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
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
import { createProducer } from '../queues.ts';
import { createDetectProcessor } from './detect.ts';

/**
 * A detect job whose block the node does not serve by hash: orphaned only when another block
 * stands at its height; when the node has no block at that height yet (a node behind a balancer,
 * or behind the one whose newHeads announced the block), the job fails and is retried, so the
 * block's tokens are not given up.
 */

const CHAIN_ID = 31337;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;

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
  handle = createDb(database.url, { max: database.embedded ? 1 : 2 });
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('detect: a block the node does not serve', () => {
  it('is orphaned when another block stands at its height, and retried when none does yet', async () => {
    const connection = createRedis(redis.url, 'commands');
    const producer = createProducer(connection, redis.prefix);
    const detect = createDetectProcessor({
      chains: createChainRuntimes([chain.chainConfig()], silentLogger),
      tokens: createTokenRepository(handle.db),
      producer,
      events: createEventPublisher(connection, keySpace(redis.prefix).events),
      logger: silentLogger,
    });
    try {
      await chain.provider.send('evm_mine', []);
      const head = await chain.provider.getBlockNumber();
      const job = (blockNumber: number) => ({
        chainId: CHAIN_ID,
        blockNumber,
        blockHash: UNKNOWN_HASH,
        source: 'live' as const,
      });
      await expect(detect(job(head))).resolves.toEqual({
        status: 'orphaned',
        blockHash: UNKNOWN_HASH,
      });
      await expect(detect(job(head + 5))).rejects.toThrow(/not served yet/);
    } finally {
      await producer.close();
      connection.disconnect();
    }
  });
});
