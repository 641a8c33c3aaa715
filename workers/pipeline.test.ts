import { Queue } from 'bullmq';
import { eq } from 'drizzle-orm';
import { type Contract, keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Service, startService } from '../app/service.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { createScanRepository } from '../db/repositories/scan.ts';
import { creators, pairs, tokens } from '../db/schema.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import {
  addLiquidity,
  encodeBytes32String,
  parseEther,
  startTestChain,
  type TestChain,
} from '../test/support/chain.ts';
import { type RpcProxy, startRpcProxy } from '../test/support/protocol/rpc-proxy.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';

/**
 * The foundation path on real parts: Anvil with real compiled contracts and Uniswap V2, the
 * scanner, the detect and bytecode stages on BullMQ, Postgres and the Redis event stream.
 */

const SUPPLY = parseEther('1000000');

interface Expected {
  address: string;
  txHash: string;
  blockNumber: number;
  creator: string;
  creatorIsContract: boolean;
  source: string;
  name: string;
  symbol: string;
}

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
const expected: Expected[] = [];
let notToken: string;
/** totalSupply and balanceOf without transfer: answers like a token, is none. */
let stakingPool: string;
let factoryAddress: string;
let pairAddress: string;

async function createdByFactory(
  tx: Promise<{ wait(): Promise<unknown> }>,
  factory: Contract,
): Promise<{ address: string; txHash: string; blockNumber: number }> {
  const receipt = (await (await tx).wait()) as {
    hash: string;
    blockNumber: number;
    logs: { topics: string[]; data: string }[];
  };
  const event = receipt.logs
    .map((l) => factory.interface.parseLog(l))
    .find((l) => l?.name === 'TokenCreated');
  return {
    address: String(event!.args.getValue('token')).toLowerCase(),
    txHash: receipt.hash,
    blockNumber: receipt.blockNumber,
  };
}

async function runPipeline(rpcUrl: string, prefix: string): Promise<Service> {
  return startService({
    roles: new Set(['worker', 'scanner']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: prefix,
    chains: [chain.chainConfig({ rpcUrls: [rpcUrl] })],
    knownChainIds: new Set([chain.anvil.chainId]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 5,
  });
}

async function streamLength(): Promise<number> {
  const client = createRedis(redis.url, 'commands');
  try {
    return await client.xlen(keySpace(redis.prefix).events);
  } finally {
    client.disconnect();
  }
}

async function waitForAll(expectedCount: number) {
  return eventually(
    async () => {
      const rows = await handle.db
        .select()
        .from(tokens)
        .where(eq(tokens.chainId, chain.anvil.chainId));
      // The analysis stages (selectors → simulate → risk) chain from bytecode; risk is the last.
      return rows.length >= expectedCount && rows.every((r) => r.stage === 'risk')
        ? rows
        : undefined;
    },
    60_000,
    `${expectedCount} tokens through the risk stage`,
  );
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 5 });

  const weth = chain.uniswap.weth.toLowerCase();
  const wethTx = await chain.provider.getTransactionReceipt(
    (await chain.provider.getBlock(1, true))!.transactions[0]!,
  );
  expected.push({
    address: weth,
    txHash: wethTx!.hash,
    blockNumber: 1,
    creator: chain.account,
    creatorIsContract: false,
    source: 'receipt',
    name: 'Wrapped Ether',
    symbol: 'WETH',
  });

  const simple = await chain.deploy('SimpleToken', ['Honest Token', 'HON', SUPPLY]);
  expected.push({
    ...simple,
    creator: chain.account,
    creatorIsContract: false,
    source: 'receipt',
    name: 'Honest Token',
    symbol: 'HON',
  });

  const bytes32 = await chain.deploy('Bytes32Token', [
    encodeBytes32String('Maker'),
    encodeBytes32String('MKR'),
    SUPPLY,
  ]);
  expected.push({
    ...bytes32,
    creator: chain.account,
    creatorIsContract: false,
    source: 'receipt',
    name: 'Maker',
    symbol: 'MKR',
  });

  const factory = await chain.deploy('TokenFactory');
  factoryAddress = factory.address;
  const created = await createdByFactory(
    factory.contract.getFunction('createToken')('Factory One', 'FAC1', SUPPLY),
    factory.contract,
  );
  expected.push({
    ...created,
    creator: factory.address,
    creatorIsContract: true,
    source: 'trace',
    name: 'Factory One',
    symbol: 'FAC1',
  });
  const created2 = await createdByFactory(
    factory.contract.getFunction('createToken2')(
      'Factory Two',
      'FAC2',
      SUPPLY,
      encodeBytes32String('salt'),
    ),
    factory.contract,
  );
  expected.push({
    ...created2,
    creator: factory.address,
    creatorIsContract: true,
    source: 'trace',
    name: 'Factory Two',
    symbol: 'FAC2',
  });

  notToken = (await chain.deploy('NotAToken')).address;
  stakingPool = (await chain.deploy('StakingPool', [chain.uniswap.weth, chain.uniswap.weth]))
    .address;
  pairAddress = await addLiquidity(chain, simple.address, SUPPLY / 10n);
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('scanner → detect → bytecode', () => {
  let service: Service;

  it('stores exactly the tokens, with correct creation data', async () => {
    service = await runPipeline(chain.anvil.rpcUrl, redis.prefix);
    const rows = await waitForAll(expected.length);
    expect(rows.map((r) => r.address).sort()).toEqual(expected.map((e) => e.address).sort());

    for (const want of expected) {
      const row = rows.find((r) => r.address === want.address)!;
      const receipt = (await chain.provider.getTransactionReceipt(want.txHash))!;
      const block = (await chain.provider.getBlock(want.blockNumber))!;
      const code = await chain.provider.getCode(want.address);
      expect(row).toMatchObject({
        name: want.name,
        symbol: want.symbol,
        creationTxHash: want.txHash,
        creator: want.creator,
        creatorIsContract: want.creatorIsContract,
        txOrigin: chain.account,
        creationBlockNumber: want.blockNumber,
        creationBlockHash: block.hash,
        detectionSource: want.source,
        bytecodeHash: keccak256(code),
        codeLength: (code.length - 2) / 2,
        proxyLike: false,
      });
      expect(row.creationTimestamp?.getTime()).toBe(block.timestamp * 1000);
      // Top-level deployments use the receipt's gas; factory creations the frame's, which is less.
      if (want.source === 'receipt') expect(row.creationGasUsed).toBe(Number(receipt.gasUsed));
      else expect(row.creationGasUsed).toBeGreaterThan(0);
      if (want.source === 'trace')
        expect(row.creationGasUsed!).toBeLessThan(Number(receipt.gasUsed));
    }
    const simple = rows.find((r) => r.symbol === 'HON')!;
    expect(simple.totalSupply).toBe(SUPPLY.toString());
    expect(simple.decimals).toBe(18);
  });

  it('records the DEX pair as a pair, never as a token, and skips the non-tokens', async () => {
    const [pair] = await handle.db.select().from(pairs).where(eq(pairs.address, pairAddress));
    expect(pair).toMatchObject({ dex: 'uniswap-v2', factory: chain.uniswap.factory.toLowerCase() });
    expect([pair!.token0, pair!.token1].sort()).toEqual(
      [expected[1]!.address, chain.uniswap.weth.toLowerCase()].sort(),
    );
    const stray = await handle.db.select().from(tokens).where(eq(tokens.address, notToken));
    expect(stray).toEqual([]);
    expect(await handle.db.select().from(tokens).where(eq(tokens.address, stakingPool))).toEqual(
      [],
    );
    const fromFactory = await handle.db
      .select()
      .from(tokens)
      .where(eq(tokens.address, factoryAddress));
    expect(fromFactory).toEqual([]);
  });

  it('announces each token once on the event stream and counts creators', async () => {
    const client = createRedis(redis.url, 'commands');
    const entries = await client.xrange(keySpace(redis.prefix).events, '-', '+');
    client.disconnect();
    const created = entries.filter(
      ([, fields]) => fields[fields.indexOf('type') + 1] === 'token.created',
    );
    // The rest are the risk stage's token.updated (the score set for the first time), and the
    // holder_concentration alert of the pooled token, whose creator keeps 90 % of the supply.
    const field = (fields: string[], name: string) => fields[fields.indexOf(name) + 1]!;
    const others = entries.filter(
      ([, fields]) => !['token.created', 'token.updated'].includes(field(fields, 'type')),
    );
    expect(
      others.map(([, fields]) => {
        const data = JSON.parse(field(fields, 'data')) as {
          type: string;
          contract_address: string;
        };
        return [field(fields, 'type'), data.type, data.contract_address];
      }),
    ).toEqual(
      others.map(() => [
        'alert',
        'holder_concentration',
        expected.find((e) => e.symbol === 'HON')!.address,
      ]),
    );
    const announced = created.map(
      ([, fields]) => JSON.parse(fields[fields.indexOf('data') + 1]!).contract_address as string,
    );
    expect(announced.sort()).toEqual(expected.map((e) => e.address).sort());
    const [factoryCreator] = await handle.db
      .select()
      .from(creators)
      .where(eq(creators.address, factoryAddress));
    expect(factoryCreator?.totalTokens).toBe(2);
    const [deployer] = await handle.db
      .select()
      .from(creators)
      .where(eq(creators.address, chain.account));
    expect(deployer?.totalTokens).toBe(3);
  });

  it('changes nothing when the same blocks are scanned and processed again', async () => {
    // Settled first: a token at risk may still have its DEX pass (and first-liquidity pass) queued,
    // which would otherwise run after the snapshot, in the second service.
    const stages = ['selectors', 'simulate', 'risk', 'dex'].map(
      (name) => new Queue(name, { connection: { url: redis.url }, prefix: redis.prefix }),
    );
    await eventually(
      async () => {
        const counts = await Promise.all(
          stages.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
        );
        return counts.every((c) => Object.values(c).every((n) => n === 0)) ? true : undefined;
      },
      30_000,
      'analysis and DEX queues settled',
    );
    await Promise.all(stages.map((q) => q.close()));
    await service.stop();
    const before = await handle.db.select().from(tokens).orderBy(tokens.address);
    const creatorsBefore = await handle.db.select().from(creators).orderBy(creators.address);
    const eventsBefore = await streamLength();
    // Forget the finished jobs too, so that every block really runs through the stages again
    // (with them kept, BullMQ's deterministic ids would simply drop the duplicates).
    const queues = ['detect', 'bytecode'].map(
      (name) => new Queue(name, { connection: { url: redis.url }, prefix: redis.prefix }),
    );
    await Promise.all(queues.map((q) => q.obliterate({ force: true })));
    await createScanRepository(handle.db).advance(
      chain.anvil.chainId,
      [],
      0,
      (await chain.provider.getBlock(0))!.hash!,
    );

    const again = await runPipeline(chain.anvil.rpcUrl, redis.prefix);
    const head = Number(await chain.provider.send('eth_blockNumber', []));
    await eventually(
      async () =>
        (await createScanRepository(handle.db).getCursor(chain.anvil.chainId))!.nextBlock > head
          ? true
          : undefined,
      30_000,
      'rescan',
    );
    await eventually(
      async () => {
        const counts = await Promise.all(
          queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'completed')),
        );
        const idle = counts.every(
          (c) => (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0,
        );
        if (!idle) return undefined;
        // A rescan from block 0 is a catch-up: its detect jobs are runs of blocks.
        const detected = (await queues[0]!.getJobs(['completed'])).reduce(
          (sum, job) => sum + ((job.data as { hashes?: string[] }).hashes?.length ?? 1),
          0,
        );
        return detected > head ? true : undefined;
      },
      30_000,
      'queues drained',
    );
    await again.stop();
    await Promise.all(queues.map((q) => q.close()));

    const after = await handle.db.select().from(tokens).orderBy(tokens.address);
    // The times of the last write and of the last DEX refresh may move: a block's pool creation,
    // seen again, gives its known tokens a DEX pass (a refresh of the same pool state) unless the
    // first run's pass with the same id is still kept. Everything the chain decides is unchanged.
    const settled = (r: (typeof before)[number]) => ({ ...r, updatedAt: null, dexUpdatedAt: null });
    expect(after.map(settled)).toEqual(before.map(settled));
    expect(await handle.db.select().from(creators).orderBy(creators.address)).toEqual(
      creatorsBefore,
    );
    expect(await streamLength()).toBe(eventsBefore);
  });
});

describe('a node without traces or block receipts', () => {
  let proxy: RpcProxy;

  it('falls back to per-transaction receipts and first-seen Transfer logs', async () => {
    proxy = await startRpcProxy(chain.anvil.rpcUrl, {
      refuse: ['debug_traceBlockByNumber', 'trace_block', 'eth_getBlockReceipts'],
    });
    const prefix = `${redis.prefix}-fallback`;
    const fresh = await createTestDatabase();
    const original = database;
    database = fresh;
    try {
      const service = await runPipeline(proxy.url, prefix);
      const check = createDb(fresh.url, { max: 1 });
      const rows = await eventually(
        async () => {
          const r = await check.db.select().from(tokens);
          return r.length >= expected.length && r.every((t) => t.stage === 'risk') ? r : undefined;
        },
        60_000,
        'fallback detection',
      );
      await service.stop();
      await check.close();
      expect(rows.map((r) => r.address).sort()).toEqual(expected.map((e) => e.address).sort());
      const factoryMade = rows.filter((r) => r.detectionSource === 'transfer-log');
      expect(factoryMade.map((r) => r.address).sort()).toEqual(
        expected
          .filter((e) => e.source === 'trace')
          .map((e) => e.address)
          .sort(),
      );
      // A mint inside a factory call names the called contract as the likely creator.
      for (const row of factoryMade) expect(row.creator).toBe(factoryAddress);
      expect(proxy.calls.get('eth_getTransactionReceipt')).toBeGreaterThan(0);
    } finally {
      database = original;
      await fresh.drop();
      await proxy.close();
    }
  });
});
