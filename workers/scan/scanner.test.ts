import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createScanRepository } from '../../db/repositories/scan.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startRpcProxy } from '../../test/support/protocol/rpc-proxy.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../chain-runtime.ts';
import { createProducer } from '../queues.ts';
import { createScanner, type Scanner } from './scanner.ts';

/** One scanner per chain: the Redis lease, takeover when the holder dies, and a persisted cursor. */

const LEASE_TTL_MS = 800;

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
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

function scannerFor(
  holderId: string,
  connection = createRedis(redis.url, 'commands'),
  chainOverrides: Partial<ChainConfig> = {},
): { scanner: Scanner; connection: ReturnType<typeof createRedis>; close(): Promise<void> } {
  const producerConnection = createRedis(redis.url, 'producer');
  const producer = createProducer(producerConnection, redis.prefix);
  const [runtime] = createChainRuntimes([chain.chainConfig(chainOverrides)], silentLogger).values();
  const scanner = createScanner({
    chain: runtime!,
    scan: createScanRepository(handle.db),
    producer,
    redis: connection,
    events: createEventPublisher(connection, keySpace(redis.prefix).events),
    leaseKey: keySpace(redis.prefix).lease('scanner:31337'),
    holderId,
    logger: silentLogger,
    leaseTtlMs: LEASE_TTL_MS,
  });
  return {
    scanner,
    connection,
    async close() {
      await scanner.stop();
      await producer.close();
      producerConnection.disconnect();
      connection.disconnect();
    },
  };
}

// Before the lease tests: the last of them records another chain's genesis.
/** Mines a block and waits until the scanner has handed it on (within 2 s). */
async function mineAndHandOn(scan: ReturnType<typeof createScanRepository>): Promise<void> {
  await chain.provider.send('evm_mine', []);
  const head = Number(await chain.provider.send('eth_blockNumber', []));
  await eventually(
    async () => ((await scan.getCursor(31337))!.nextBlock > head ? true : undefined),
    2_000,
    `block ${head} handed on`,
  );
}

describe('newHeads', () => {
  it('takes the head and its header from the notifications instead of asking the node for every block', async () => {
    const proxy = await startRpcProxy(chain.anvil.rpcUrl);
    const s = scannerFor('heads', undefined, {
      rpcUrls: [proxy.url],
      wsUrl: chain.anvil.wsUrl,
    });
    const scan = createScanRepository(handle.db);
    try {
      s.scanner.start();
      // Connected and caught up: the first tick may ask, before any notification arrived.
      await eventually(
        async () =>
          (await scan.getCursor(31337))!.nextBlock >
          Number(await chain.provider.send('eth_blockNumber', []))
            ? true
            : undefined,
        10_000,
        'caught up',
      );
      await new Promise((r) => setTimeout(r, 300));
      const asked = proxy.calls.get('eth_blockNumber') ?? 0;
      const read = proxy.calls.get('eth_getBlockByNumber') ?? 0;
      const BLOCKS = 8;
      // Each block is handed on within a few poll intervals of being mined: the notification
      // wakes the scanner, which does not wait for its slowed safety-net poll.
      for (let i = 0; i < BLOCKS; i++) await mineAndHandOn(scan);
      // Polling alone would have asked at least once per block, and read each block's header.
      expect((proxy.calls.get('eth_blockNumber') ?? 0) - asked).toBeLessThan(BLOCKS / 2);
      expect((proxy.calls.get('eth_getBlockByNumber') ?? 0) - read).toBeLessThan(BLOCKS / 2);
      // The notified headers are the node's blocks: the stored chain is the node's chain.
      const head = Number(await chain.provider.send('eth_blockNumber', []));
      for (let n = head - BLOCKS + 1; n <= head; n++) {
        const block = await chain.provider.send('eth_getBlockByNumber', [
          `0x${n.toString(16)}`,
          false,
        ]);
        expect(await scan.getBlockHash(31337, n)).toBe(block.hash.toLowerCase());
      }
    } finally {
      await s.close();
      await proxy.close();
    }
  });
});

describe('newHeads on a slow chain', () => {
  it("trusts the notified head for a few of the chain's block gaps, not only the slowed poll", async () => {
    const POLL_MS = 40;
    const BLOCK_GAP_MS = 700;
    const proxy = await startRpcProxy(chain.anvil.rpcUrl);
    const s = scannerFor('slow-heads', undefined, {
      rpcUrls: [proxy.url],
      wsUrl: chain.anvil.wsUrl,
      pollIntervalMs: POLL_MS,
    });
    const scan = createScanRepository(handle.db);
    try {
      s.scanner.start();
      const BLOCKS = 6;
      let asked = 0;
      for (let i = 0; i < BLOCKS; i++) {
        await mineAndHandOn(scan);
        // From the second gap on, the scanner knows the chain's pace (counted from the third: an
        // ask of the first gap may still be on its way).
        if (i === 2) asked = proxy.calls.get('eth_blockNumber') ?? 0;
        await new Promise((r) => setTimeout(r, BLOCK_GAP_MS));
      }
      // Trusting only the slowed poll (5 × 40 ms), every safety-net tick of a 700 ms gap asks:
      // about three a gap, a dozen over these four.
      expect((proxy.calls.get('eth_blockNumber') ?? 0) - asked).toBeLessThan(2);
    } finally {
      await s.close();
      await proxy.close();
    }
  });
});

describe('scanner lease', () => {
  it('lets one instance scan; another takes over when the holder dies', async () => {
    const a = scannerFor('a');
    const b = scannerFor('b');
    expect((await a.scanner.tick()).status).not.toBe('not-leader');
    expect(await b.scanner.tick()).toEqual({ status: 'not-leader' });
    expect(a.scanner.isLeader()).toBe(true);
    expect(b.scanner.isLeader()).toBe(false);

    // "Kill" a: its connection drops, so it can neither renew nor release the lease.
    a.connection.disconnect();
    b.scanner.start();
    await eventually(
      async () => (b.scanner.isLeader() ? true : undefined),
      LEASE_TTL_MS * 10,
      'takeover',
    );

    // The new leader carries on from the persisted cursor.
    const { blockNumber: head } = await chain.deploy('SimpleToken', [
      'After Takeover',
      'AFT',
      1000n,
    ]);
    await eventually(
      async () =>
        (await createScanRepository(handle.db).getCursor(31337))!.nextBlock > head
          ? true
          : undefined,
      10_000,
      'cursor past head',
    );
    await b.close();
    await a.close();
  });

  it('resumes from the stored cursor after a restart, without rescanning', async () => {
    const scan = createScanRepository(handle.db);
    const before = (await scan.getCursor(31337))!.nextBlock;
    const first = scannerFor('c');
    expect((await first.scanner.tick()).status).toBe('idle');
    await first.close();

    const { blockNumber: head } = await chain.deploy('SimpleToken', ['Later', 'LTR', 1000n]);
    const second = scannerFor('d');
    const result = await second.scanner.tick();
    expect(result).toEqual({ status: 'scanned', from: before, to: head, head });
    expect((await scan.getCursor(31337))!.nextBlock).toBe(head + 1);
    // The scanned blocks' hashes are kept for reorg detection.
    const block = await chain.provider.getBlock(head);
    expect(await scan.getBlockHash(31337, head)).toBe(block!.hash);
    await second.close();
  });

  it('refuses an RPC that serves another chain than the one recorded', async () => {
    const scan = createScanRepository(handle.db);
    const cursor = (await scan.getCursor(31337))!;
    await scan.advance(31337, [], cursor.nextBlock, `0x${'ab'.repeat(32)}`);
    const s = scannerFor('e');
    await expect(s.scanner.tick()).rejects.toThrow(/serves another chain/);
    await s.close();
  });
});
