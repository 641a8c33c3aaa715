import { Interface, parseEther, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createHolderRepository } from '../../db/repositories/holders.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
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
 * Holders from a replay: batches run two at a time, yet each applies its Transfers only after the
 * batches before it (whose tokens must be known first), so every holder of tokens created in one
 * batch and traded in later ones matches balanceOf at the replay's last block.
 */

const FINALITY = 3;
const erc20 = new Interface(loadArtifact('SimpleToken').abi);

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
const deployed: string[] = [];

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  for (let i = 0; i < 3; i++) {
    const token = await chain.deploy('SimpleToken', [`Held ${i}`, `H${i}`, parseEther('1000')]);
    deployed.push(token.address);
    // Transfers in the blocks after the creation (one block each on Anvil), some sent on.
    for (let j = 0; j < 4; j++) {
      const to = Wallet.createRandom().address;
      await waitMined(
        chain.provider,
        token.contract.getFunction('transfer')(to, parseEther(String(j + 1))),
      );
    }
  }
  for (let i = 0; i < FINALITY; i++) await chain.provider.send('evm_mine', []);
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

async function call(token: string, data: string, block: number): Promise<bigint> {
  return BigInt(
    await chain.provider.send('eth_call', [{ to: token, data }, `0x${block.toString(16)}`]),
  );
}

describe('replay holders', () => {
  it('applies batches in order and matches balanceOf for every holder', async () => {
    const general = createRedis(redis.url, 'commands');
    const producerConnection = createRedis(redis.url, 'producer');
    const workerConnection = createRedis(redis.url, 'worker');
    const producer = createProducer(producerConnection, redis.prefix);
    const chains = createChainRuntimes(
      [chain.chainConfig({ finalityDepth: FINALITY })],
      silentLogger,
    );
    const holders = createHolderRepository(handle.db);
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
          replayHolders: holders,
        }),
      },
    });
    try {
      const head = Number(await chain.provider.send('eth_blockNumber', []));
      const result = await replayRange(
        {
          chain: chains.get(31337)!,
          producer,
          ranges: createReplayRepository(handle.db),
          logger: silentLogger,
          chunkSize: 3,
          batchesInFlight: 4,
          holders,
        },
        0,
        head,
      );
      expect(result.status).toBe('finished');
      const to = (result as { to: number }).to;
      expect((await holders.track(31337, 'replay'))?.blockNumber).toBe(to);
      let checked = 0;
      for (const token of deployed) {
        const rows = await holders.balances(31337, token);
        for (const { holder, balance } of rows) {
          const onChain = await call(token, erc20.encodeFunctionData('balanceOf', [holder]), to);
          expect({ token, holder, balance }).toEqual({ token, holder, balance: onChain });
          checked++;
        }
        const supply = await call(token, erc20.encodeFunctionData('totalSupply', []), to);
        expect(rows.reduce((s, r) => s + r.balance, 0n)).toBe(supply);
      }
      expect(checked).toBe(deployed.length * 5);
      // A batch applied before applies nothing again (a retried job).
      expect((await holders.applyReplay(31337, { from: 0, to: 2 }, [])).status).toBe('already');
    } finally {
      await pool.close();
      await producer.close();
      for (const c of [general, producerConnection, workerConnection]) c.disconnect();
    }
  }, 120_000);
});
