import { and, eq } from 'drizzle-orm';
import { ContractFactory, type InterfaceAbi, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS } from '../../app/embedded/index.ts';
import { type Service, startService } from '../../app/service.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createScanRepository } from '../../db/repositories/scan.ts';
import { creators, tokens } from '../../db/schema.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { createLogger, silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { ReorgTooDeepError } from '../../src/evm/reorg.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../chain-runtime.ts';
import { createProducer } from '../queues.ts';
import { createScanner } from './scanner.ts';

/**
 * Reorgs on a real chain: Anvil's evm_snapshot / evm_revert replaces the tip with another branch.
 * Tokens of orphaned blocks must disappear (with token.removed), the new branch must be scanned.
 */

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;

const rpc = <T>(method: string, params: unknown[] = []) =>
  chain.provider.send(method, params) as Promise<T>;
const headNumber = async () => Number(await rpc<string>('eth_blockNumber'));

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

async function removedEvents(): Promise<string[]> {
  const client = createRedis(redis.url, 'commands');
  try {
    const entries = await client.xrange(keySpace(redis.prefix).events, '-', '+');
    return entries
      .filter(([, fields]) => fields[fields.indexOf('type') + 1] === 'token.removed')
      .map(
        ([, fields]) => JSON.parse(fields[fields.indexOf('data') + 1]!).contract_address as string,
      );
  } finally {
    client.disconnect();
  }
}

describe('reorg handling', () => {
  let service: Service;

  it('removes the tokens of orphaned blocks, emits token.removed and scans the new branch', async () => {
    const kept = await chain.deploy('SimpleToken', ['Kept', 'KEEP', 1000n]);
    const snapshot = await rpc<string>('evm_snapshot');
    const orphan = await chain.deploy('SimpleToken', ['Orphan', 'ORPH', 1000n]);
    service = await startService({
      roles: new Set(['worker', 'scanner']),
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      chains: [chain.chainConfig({ finalityDepth: 10 })],
      knownChainIds: new Set([31337]),
      port: 0,
      host: '127.0.0.1',
      logger: process.env.DEBUG_REORG ? createLogger('debug') : silentLogger,
      poolMax: database.embedded ? 1 : 4,
    });
    await eventually(
      async () =>
        (await handle.db.select().from(tokens).where(eq(tokens.address, orphan.address))).length ===
        1
          ? true
          : undefined,
      30_000,
      'orphan detected',
    );

    // Another branch from the snapshot, longer than the old one.
    await rpc('evm_revert', [snapshot]);
    chain.signer.reset();
    // Another deployer: the same sender and nonce would recreate the orphan's very address.
    const other = new Wallet(ANVIL_PRIVATE_KEYS[2], chain.provider);
    const artifact = loadArtifact('SimpleToken');
    const deployed = await new ContractFactory(
      artifact.abi as InterfaceAbi,
      artifact.bytecode,
      other,
    ).deploy('Replacement', 'REPL', 2000n);
    const receipt = (await deployed.deploymentTransaction()!.wait())!;
    const replacement = {
      address: (await deployed.getAddress()).toLowerCase(),
      blockNumber: receipt.blockNumber,
    };
    await rpc('evm_mine');
    await rpc('evm_mine');
    expect(replacement.blockNumber).toBe(orphan.blockNumber);

    await eventually(
      async () => {
        const rows = await handle.db.select().from(tokens).where(eq(tokens.chainId, 31337));
        const addresses = rows.map((r) => r.address);
        return addresses.includes(replacement.address) && !addresses.includes(orphan.address)
          ? rows
          : undefined;
      },
      30_000,
      'the new branch scanned and the orphan gone',
    );
    expect(
      (await handle.db.select().from(tokens).where(eq(tokens.address, kept.address))).length,
    ).toBe(1);
    expect(await removedEvents()).toEqual([orphan.address]);
    const [replaced] = await handle.db
      .select()
      .from(tokens)
      .where(eq(tokens.address, replacement.address));
    expect(replaced!.creationBlockHash).toBe(
      (await chain.provider.getBlock(replacement.blockNumber))!.hash,
    );
    // The orphan no longer counts for its creator: the counter equals the creator's tokens left.
    // (Compared with the rows, not with a count read earlier: blocks before the orphan's may still
    // have been in flight then, and their tokens count too.)
    const creatorAfter = (
      await handle.db.select().from(creators).where(eq(creators.address, chain.account))
    )[0]!.totalTokens;
    const left = await handle.db
      .select()
      .from(tokens)
      .where(and(eq(tokens.chainId, 31337), eq(tokens.creator, chain.account)));
    expect(left.map((t) => t.address)).not.toContain(orphan.address);
    expect(creatorAfter).toBe(left.length);
    const [otherCreator] = await handle.db
      .select()
      .from(creators)
      .where(eq(creators.address, other.address.toLowerCase()));
    expect(otherCreator?.totalTokens).toBe(1);
    const scan = createScanRepository(handle.db);
    expect(await scan.getBlockHash(31337, orphan.blockNumber)).toBe(replaced!.creationBlockHash);
    await service.stop();
  });

  it('fails loudly when the reorg is deeper than the finality window', async () => {
    const snapshot = await rpc<string>('evm_snapshot');
    for (let i = 0; i < 4; i++) await rpc('evm_mine');
    const connection = createRedis(redis.url, 'commands');
    const producerConnection = createRedis(redis.url, 'producer');
    const producer = createProducer(producerConnection, redis.prefix);
    const [runtime] = createChainRuntimes(
      [chain.chainConfig({ finalityDepth: 2 })],
      silentLogger,
    ).values();
    const scanner = createScanner({
      chain: runtime!,
      scan: createScanRepository(handle.db),
      producer,
      redis: connection,
      events: createEventPublisher(connection, keySpace(redis.prefix).events),
      leaseKey: keySpace(redis.prefix).lease('scanner:31337:deep'),
      holderId: 'deep',
      logger: silentLogger,
    });
    try {
      while ((await scanner.tick()).status === 'scanned');
      const scannedTo = await headNumber();
      await rpc('evm_revert', [snapshot]);
      for (let i = 0; i < 6; i++) await rpc('evm_mine', [Math.floor(Date.now() / 1000) + 1000 + i]);
      expect(await headNumber()).toBeGreaterThan(scannedTo);
      await expect(scanner.tick()).rejects.toBeInstanceOf(ReorgTooDeepError);
    } finally {
      await scanner.stop();
      await producer.close();
      producerConnection.disconnect();
      connection.disconnect();
    }
  });
});
