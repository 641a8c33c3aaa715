import { and, desc, eq } from 'drizzle-orm';
import { Contract, type InterfaceAbi, parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addLiquidityV4,
  deployHook,
  fullRangeLiquidity,
  initializePool,
  poolKeyOf,
  seedStablecoinPool,
  sqrtPriceX96Of,
  swapV4,
} from '../../app/embedded/index.ts';
import { type Service, startService } from '../../app/service.ts';
import { loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import {
  createDexRepository,
  type DexRepository,
  VolumeCursorConflict,
} from '../../db/repositories/dex.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { analyses, pairs, tokens } from '../../db/schema.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import type { DexHints } from '../../src/dex/dex-hints.ts';
import { bucketStart } from '../../src/dex/refresh.ts';
import { HOOK_FLAGS, NO_HOOK, poolId, type V4PoolKey } from '../../src/dex/v4/index.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { passFor } from '../../src/run-key.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import type { ChainRuntime } from '../chain-runtime.ts';
import { createProducer, type Producer } from '../queues.ts';
import { recordPoolCreations } from '../scan/index.ts';
import { createDexProcessor, type DexResult } from './processor.ts';

/**
 * Uniswap V4 in the pipeline, on the real PoolManager from @uniswap/v4-core: pools found from its
 * Initialize events by the running scanner and detect stage, priced from its storage (extsload,
 * in the Multicall3 round), their swaps counted from its Swap events, and a pool of an orphaned
 * block forgotten. Expected figures come from raw chain reads (the PoolManager's balances), not
 * from the code under test.
 */

/** Refreshes tried when the service's own DEX job moved the same cursor meanwhile. */
const REFRESH_ATTEMPTS = 5;
const SUPPLY = parseEther('1000000');
const FEE = 3000;
const TICK_SPACING = 60;
const MINUTE = 60_000;
const PRICE_TOLERANCE = 0.1;

let chain: TestChain;
let config: ChainConfig;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let dex: DexRepository;
let producer: Producer;
let producerRedis: ReturnType<typeof createRedis>;
let general: ReturnType<typeof createRedis>;
let runtime: ChainRuntime;
let usdc: string;
let service: Service;

const units = (raw: bigint) => Number(raw) / 1e18;
const baseBucket = bucketStart(Date.now());
const rpc = <T>(method: string, params: unknown[] = []) =>
  chain.provider.send(method, params) as Promise<T>;
const erc20 = (a: string) =>
  new Contract(a, loadArtifact('SimpleToken').abi as InterfaceAbi, chain.provider);

/** USD per ETH, from the WETH/stablecoin V2 pair's reserves. */
async function nativeUsd(): Promise<number> {
  const factory = new Contract(
    chain.uniswap.factory,
    uniswapArtifact('UniswapV2Factory').abi as InterfaceAbi,
    chain.provider,
  );
  const pair = new Contract(
    await factory.getFunction('getPair')(chain.uniswap.weth, usdc),
    uniswapArtifact('UniswapV2Pair').abi as InterfaceAbi,
    chain.provider,
  );
  const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
  const wethIs0 = chain.uniswap.weth.toLowerCase() < usdc;
  return Number(wethIs0 ? r1 : r0) / 1e6 / units(wethIs0 ? r0 : r1);
}

async function register(address: string, symbol: string, db = handle.db) {
  await createTokenRepository(db).upsertDetected({
    chainId: config.chainId,
    address,
    name: symbol,
    symbol,
    decimals: 18,
    totalSupply: SUPPLY.toString(),
    creationTxHash: null,
    creator: null,
    creatorIsContract: null,
    txOrigin: null,
    creationBlockNumber: null,
    creationBlockHash: null,
    creationTimestamp: null,
    creationGasUsed: null,
    detectionSource: 'receipt',
  });
}

async function deployToken(symbol: string): Promise<string> {
  const { address } = await chain.deploy('SimpleToken', [symbol, symbol, SUPPLY]);
  await register(address, symbol);
  return address;
}

const tokenRow = async (address: string) =>
  (
    await handle.db
      .select()
      .from(tokens)
      .where(and(eq(tokens.chainId, config.chainId), eq(tokens.address, address)))
  )[0]!;
const pairRow = async (id: string) =>
  (await handle.db.select().from(pairs).where(eq(pairs.address, id)))[0];

/**
 * One DEX refresh of `address`, as its job runs it. The service's own DEX jobs refresh the same
 * tokens meanwhile: a refresh whose volume cursor another one moved is refused
 * (VolumeCursorConflict) and, like the job, tried again.
 */
async function refresh(
  address: string,
  k: number,
): Promise<Extract<DexResult, { status: 'done' }>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await refreshOnce(address, k);
    } catch (error) {
      if (!(error instanceof VolumeCursorConflict) || attempt >= REFRESH_ATTEMPTS) throw error;
    }
  }
}

async function refreshOnce(
  address: string,
  k: number,
): Promise<Extract<DexResult, { status: 'done' }>> {
  const result = await createDexProcessor({
    chains: new Map([[config.chainId, runtime]]),
    dex,
    producer,
    events: createEventPublisher(general, keySpace(redis.prefix).events),
    logger: silentLogger,
    idleAfterMs: 6 * 3_600_000,
    headCacheMs: 0,
  })({
    chainId: config.chainId,
    address,
    ...passFor({ kind: 'scheduled-refresh', bucketMs: baseBucket + k * MINUTE }),
  });
  if (result.status !== 'done') throw new Error(`refresh of ${address}: ${result.status}`);
  return result;
}

/** Native currency and token the PoolManager took for a liquidity add (what the pool holds). */
async function addAndMeasure(key: V4PoolKey, eth: bigint, amount: bigint) {
  const v4 = chain.v4!;
  const token = BigInt(key.currency0) === 0n ? key.currency1 : key.currency0;
  const ethBefore = await chain.provider.getBalance(v4.poolManager);
  const tokenBefore = (await erc20(token).getFunction('balanceOf')(v4.poolManager)) as bigint;
  await addLiquidityV4(
    chain.signer,
    v4,
    key,
    fullRangeLiquidity(eth, amount),
    eth + parseEther('1'),
  );
  return {
    eth: (await chain.provider.getBalance(v4.poolManager)) - ethBefore,
    tokens: ((await erc20(token).getFunction('balanceOf')(v4.poolManager)) as bigint) - tokenBefore,
  };
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain({ v4: true }),
    createTestDatabase(),
    createTestRedis(),
  ]);
  usdc = (await seedStablecoinPool(chain.signer, chain.uniswap)).toLowerCase();
  config = chain.chainConfig({
    stablecoins: [usdc],
    multicall3: chain.uniswap.multicall3.toLowerCase(),
    finalityDepth: 10,
  });
  const client = createRpcClient({ urls: config.rpcUrls });
  runtime = { config, rpc: client, reader: createChainReader(client) };
  handle = createDb(database.url, { max: database.embedded ? 1 : 5 });
  dex = createDexRepository(handle.db);
  producerRedis = createRedis(redis.url, 'producer');
  general = createRedis(redis.url, 'commands');
  producer = createProducer(producerRedis, redis.prefix);
  service = await startService({
    roles: new Set(['worker', 'scanner']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [{ ...config, startBlock: Number(await rpc<string>('eth_blockNumber')) + 1 }],
    knownChainIds: new Set([config.chainId]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 5,
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await producer?.close();
  producerRedis?.disconnect();
  general?.disconnect();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('V4 pools in the dex stage', () => {
  it('finds a pool from Initialize, prices it from the PoolManager within 10 %, and counts its swaps', async () => {
    const token = await deployToken('VFOUR');
    const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING);
    const ethIn = parseEther('10');
    const tokensIn = parseEther('400000');
    const init = await initializePool(
      chain.signer,
      chain.v4!,
      key,
      sqrtPriceX96Of(ethIn, tokensIn),
    );
    const held = await addAndMeasure(key, ethIn, tokensIn);

    // The running scanner's detect stage records the pool and gives the known token a DEX pass.
    const row = await eventually(
      async () => {
        const r = await tokenRow(token);
        return (r.dexHints as DexHints | null)?.has_v4_liquidity ? r : undefined;
      },
      30_000,
      'dex pass after Initialize',
    );
    expect(await pairRow(init.id)).toMatchObject({
      kind: 'v4',
      dex: 'uniswap-v4',
      factory: chain.v4!.poolManager,
      token0: NO_HOOK,
      token1: token,
      fee: FEE,
      tickSpacing: TICK_SPACING,
      hooks: NO_HOOK,
      creationBlockNumber: init.blockNumber,
    });
    const usd = await nativeUsd();
    const impliedPrice = (units(held.eth) / units(held.tokens)) * usd;
    const impliedLiquidity = 2 * units(held.eth) * usd;
    const hints = row.dexHints as DexHints;
    expect(hints).toMatchObject({
      has_liquidity: true,
      has_v3_liquidity: false,
      has_v4_liquidity: true,
      main_trading_pair: init.id,
      recommended_dex: 'uniswap-v4',
    });
    expect(hints.trading_pairs).toEqual([
      expect.objectContaining({
        dex: 'uniswap-v4',
        pair_address: init.id,
        pool_id: init.id,
        hook_address: null,
        quote_token: NO_HOOK,
      }),
    ]);
    expect(Math.abs(hints.token_price_usd! / impliedPrice - 1)).toBeLessThan(PRICE_TOLERANCE);
    expect(Math.abs(hints.total_liquidity_usd! / impliedLiquidity - 1)).toBeLessThan(
      PRICE_TOLERANCE,
    );

    // A buy through the real router is volume: |Δnative| of the pool, from the manager's Swap log.
    const before = await chain.provider.getBalance(chain.v4!.poolManager);
    await swapV4(chain.signer, chain.v4!, key, true, parseEther('0.5'));
    const swapped = (await chain.provider.getBalance(chain.v4!.poolManager)) - before;
    const result = await refresh(token, 1);
    expect(result.volume24hUsd).toBeCloseTo(units(swapped) * usd, 4);
    expect(result.mainPair).toBe(init.id);
    const [stored] = await handle.db.select().from(pairs).where(eq(pairs.address, init.id));
    expect(BigInt(stored!.liquidity!)).toBe(fullRangeLiquidity(ethIn, tokensIn));
  });

  it('records the hook of a pool, and a pool without liquidity is no liquidity, not an error', async () => {
    const hooked = await deployToken('HOOKED');
    const empty = await deployToken('EMPTY');
    const hook = await deployHook(
      chain.signer,
      'FeeHook',
      [chain.v4!.poolManager, chain.account, 300],
      HOOK_FLAGS.afterSwap | HOOK_FLAGS.afterSwapReturnDelta,
    );
    const key = poolKeyOf(NO_HOOK, hooked, FEE, TICK_SPACING, hook);
    const init = await initializePool(
      chain.signer,
      chain.v4!,
      key,
      sqrtPriceX96Of(parseEther('2'), parseEther('100000')),
    );
    await addAndMeasure(key, parseEther('2'), parseEther('100000'));
    const bare = await initializePool(
      chain.signer,
      chain.v4!,
      poolKeyOf(NO_HOOK, empty, FEE, TICK_SPACING),
      2n ** 96n,
    );
    await eventually(async () => pairRow(bare.id), 30_000, 'the bare pool recorded');
    await eventually(async () => pairRow(init.id), 30_000, 'the hooked pool recorded');

    const withHook = await refresh(hooked, 2);
    expect(withHook.mainPair).toBe(init.id);
    const hints = (await tokenRow(hooked)).dexHints as DexHints;
    expect(hints.trading_pairs[0]).toMatchObject({ pool_id: init.id, hook_address: hook });
    expect(await pairRow(init.id)).toMatchObject({ hooks: hook });

    const none = await refresh(empty, 2);
    expect(none).toMatchObject({ liquidityUsd: 0, mainPair: null, priceUsd: null });
    expect((await tokenRow(empty)).dexHints).toMatchObject({
      has_liquidity: false,
      has_v4_liquidity: false,
      trading_pairs: [],
    });
  });

  it('forgets a pool whose Initialize block was orphaned, and refuses to record it late', async () => {
    const token = await deployToken('REORG');
    const snapshot = await rpc<string>('evm_snapshot');
    const key = poolKeyOf(NO_HOOK, token, 500, 10);
    const init = await initializePool(chain.signer, chain.v4!, key, 2n ** 96n);
    const recorded = await eventually(async () => pairRow(init.id), 30_000, 'pool recorded');
    expect(recorded.creationBlockNumber).toBe(init.blockNumber);

    // Another, longer branch from the snapshot: the pool never existed there.
    await rpc('evm_revert', [snapshot]);
    chain.signer.reset();
    for (let i = 0; i < 4; i++) await rpc('evm_mine');
    await eventually(
      async () => ((await pairRow(init.id)) === undefined ? true : undefined),
      30_000,
      'the orphaned pool forgotten',
    );

    // A detect job of the orphaned block that lands after the rollback cannot write it back.
    const late = await dex.recordPoolCreated({
      chainId: config.chainId,
      address: init.id,
      dex: 'uniswap-v4',
      factory: chain.v4!.poolManager,
      token0: key.currency0,
      token1: key.currency1,
      kind: 'v4',
      fee: key.fee,
      tickSpacing: key.tickSpacing,
      hooks: key.hooks,
      creationBlockNumber: init.blockNumber,
      creationTxHash: `0x${'1'.repeat(64)}`,
      creationBlockHash: `0x${'2'.repeat(64)}`,
    });
    expect(late).toBe('orphaned');
    expect(await pairRow(init.id)).toBeUndefined();
  });

  it('reads a funded pool’s Initialize back from the logs when its block is detected first', async () => {
    // Blocks are detected concurrently: here the funding block's detect job runs against a
    // database in which no job has recorded the pool's Initialize block yet.
    const late = await createTestDatabase();
    const lateHandle = createDb(late.url, { max: 1 });
    try {
      const lateDex = createDexRepository(lateHandle.db);
      const { address: token } = await chain.deploy('SimpleToken', ['Late', 'LATE', SUPPLY]);
      await register(token, 'LATE', lateHandle.db);
      const key = poolKeyOf(NO_HOOK, token, 500, 10);
      const init = await initializePool(chain.signer, chain.v4!, key, 2n ** 96n);
      const funded = await addLiquidityV4(
        chain.signer,
        chain.v4!,
        key,
        fullRangeLiquidity(parseEther('1'), parseEther('1')),
        parseEther('2'),
      );
      expect(funded.blockNumber).toBeGreaterThan(init.blockNumber);
      const header = (await runtime.reader.block(funded.blockNumber))!;
      const outcome = await recordPoolCreations(
        lateDex,
        runtime,
        await runtime.reader.receipts(header),
        { number: funded.blockNumber, hash: header.hash },
      );
      expect(outcome).toEqual({ created: 1, pooledTokens: [token] });
      const [row] = await lateHandle.db.select().from(pairs).where(eq(pairs.address, init.id));
      expect(row).toMatchObject({
        kind: 'v4',
        creationBlockNumber: init.blockNumber,
        hooks: NO_HOOK,
        tickSpacing: 10,
      });
    } finally {
      await lateHandle.close();
      await late.drop();
    }
  });

  it('through the whole pipeline: a token launched into a pool whose hook blocks sells is a honeypot, the hook as evidence', async () => {
    // Detected by the running scanner, analysed, then given liquidity in a V4 pool.
    const { address: token } = await chain.deploy('SimpleToken', ['Gate', 'GATE', SUPPLY]);
    const hook = await deployHook(
      chain.signer,
      'SellGateHook',
      [chain.v4!.poolManager, token, chain.account],
      HOOK_FLAGS.beforeSwap,
    );
    const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING, hook);
    await initializePool(
      chain.signer,
      chain.v4!,
      key,
      sqrtPriceX96Of(parseEther('5'), parseEther('200000')),
    );
    await addAndMeasure(key, parseEther('5'), parseEther('200000'));
    const row = await eventually(
      async () => {
        const r = (
          await handle.db
            .select()
            .from(tokens)
            .where(and(eq(tokens.chainId, config.chainId), eq(tokens.address, token)))
        )[0];
        return r?.currentRiskLevel === 'honeypot' ? r : undefined;
      },
      45_000,
      'the hooked token judged',
    );
    expect(row.isHoneypot).toBe(true);
    expect(row.tradingSimulation).toMatchObject({
      is_sellable: false,
      pool: { dex: 'uniswap-v4', pool_id: poolId(key), hook },
      hook: { address: hook, permissions: ['beforeSwap'] },
    });
    const [latest] = await handle.db
      .select()
      .from(analyses)
      .where(and(eq(analyses.chainId, config.chainId), eq(analyses.address, token)))
      .orderBy(desc(analyses.createdAt))
      .limit(1);
    const factors = latest!.riskFactors as { code: string; evidence: { detail: string }[] }[];
    const honeypot = factors.find((f) => f.code === 'honeypot')!;
    expect(honeypot.evidence.map((e) => e.detail).join(' ')).toContain(
      `hook ${hook} reverted in beforeSwap: sells are disabled`,
    );
    expect(factors.map((f) => f.code)).toEqual(
      expect.arrayContaining(['hook_can_change_swaps', 'hook-blocks-sells']),
    );
  });
});
