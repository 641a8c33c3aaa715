import { Queue, Worker } from 'bullmq';
import { and, eq } from 'drizzle-orm';
import {
  Contract,
  type InterfaceAbi,
  MaxUint256,
  parseEther,
  type TransactionReceipt,
  Wallet,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventData } from '../../api/schemas.ts';
import {
  deployUniswapV3,
  seedStablecoinPool,
  type UniswapV3Deployment,
} from '../../app/embedded/index.ts';
import { startService } from '../../app/service.ts';
import { loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAnalysisRepository } from '../../db/repositories/analyses.ts';
import { createDexRepository, type DexRepository } from '../../db/repositories/dex.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { pairs, tokenHistory, tokens } from '../../db/schema.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import type { DexHints, LiquidityLock } from '../../src/dex/dex-hints.ts';
import { bucketStart, SLOW_REFRESH_INTERVAL_MS } from '../../src/dex/refresh.ts';
import { passFor } from '../../src/run-key.ts';

const scheduled = (bucketMs: number) => passFor({ kind: 'scheduled-refresh', bucketMs });

import { createRpcClient } from '../../infra/rpc/index.ts';
import { createAggregatorClient } from '../../src/dex/aggregator.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import {
  addLiquidity,
  startTestChain,
  type TestChain,
  waitMined,
} from '../../test/support/chain.ts';
import {
  type DexScreenerMock,
  mockPair,
  startDexScreenerMock,
} from '../../test/support/protocol/dexscreener.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import type { ChainRuntime } from '../chain-runtime.ts';
import { routeOutcome } from '../pipeline.ts';
import { createProducer, type Producer } from '../queues.ts';
import { recordPoolCreations } from '../scan/index.ts';
import { createDexProcessor, type DexResult } from './processor.ts';
import { type DexScheduler, startDexScheduler } from './scheduler.ts';

/**
 * The dex stage on real parts: Anvil with Uniswap V2 (Router02), Uniswap V3 core from npm
 * artifacts, our Multicall3, a 6-decimal stablecoin with a WETH pool, Postgres and Redis. Every
 * expected figure is computed here from raw chain reads (reserves, balances, receipts), not by the
 * code under test.
 */

const SUPPLY = parseEther('1000000');
const IDLE_AFTER_MS = 6 * 3_600_000;
const MINUTE = 60_000;
const SWAP_GAS = 400_000n;
// Explicit gas for V3 calls through the helper: an estimate can come out short of what the
// callback's token transfers and the first tick writes use (seen as rare reverts).
const V3_GAS = 1_500_000n;
const FULL_RANGE = { lower: -887_220, upper: 887_220 }; // multiples of the 3000-tier tick spacing (60)
// A holder of LP tokens configured as a known locker on this chain (any address can be one).
const LOCKER = Wallet.createRandom().address.toLowerCase();

let chain: TestChain;
let v3: UniswapV3Deployment;
let usdc: string;
let config: ChainConfig;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let dex: DexRepository;
let producer: Producer;
let producerRedis: ReturnType<typeof createRedis>;
let general: ReturnType<typeof createRedis>;
let runtime: ChainRuntime;
const rpcCalls: string[] = [];

const pairAbi = uniswapArtifact('UniswapV2Pair').abi as InterfaceAbi;
const routerAbi = uniswapArtifact('UniswapV2Router02').abi as InterfaceAbi;
const deadline = () => Math.floor(Date.now() / 1000) + 3_600;
const units = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;
/** Buckets for the refreshes of this file: real minutes, so snapshots land where the scheduler would put them. */
const baseBucket = bucketStart(Date.now());
const bucket = (k: number) => baseBucket + k * MINUTE;

function processor(overrides: Partial<Parameters<typeof createDexProcessor>[0]> = {}) {
  return createDexProcessor({
    chains: new Map([[config.chainId, runtime]]),
    dex,
    producer,
    events: createEventPublisher(general, keySpace(redis.prefix).events),
    logger: silentLogger,
    idleAfterMs: IDLE_AFTER_MS,
    headCacheMs: 0,
    ...overrides,
  });
}

async function refresh(
  address: string,
  k: number,
  process = processor(),
): Promise<Extract<DexResult, { status: 'done' }>> {
  const result = await process({ chainId: config.chainId, address, ...scheduled(bucket(k)) });
  if (result.status !== 'done') throw new Error(`refresh of ${address}: ${result.status}`);
  return result;
}

async function register(address: string, symbol: string) {
  await createTokenRepository(handle.db).upsertDetected({
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

async function tokenRow(address: string) {
  const [row] = await handle.db
    .select()
    .from(tokens)
    .where(and(eq(tokens.chainId, config.chainId), eq(tokens.address, address)));
  return row!;
}

async function streamEvents(): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const entries = await general.xrange(keySpace(redis.prefix).events, '-', '+');
  return entries.map(([, f]) => ({
    type: f[f.indexOf('type') + 1]!,
    data: JSON.parse(f[f.indexOf('data') + 1]!),
  }));
}

/** USD per WETH, from the WETH/stablecoin pair's reserves read here. */
async function nativeUsd(): Promise<number> {
  const factory = new Contract(
    chain.uniswap.factory,
    uniswapArtifact('UniswapV2Factory').abi as InterfaceAbi,
    chain.provider,
  );
  const pair = new Contract(
    await factory.getFunction('getPair')(chain.uniswap.weth, usdc),
    pairAbi,
    chain.provider,
  );
  const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
  const wethIs0 = chain.uniswap.weth.toLowerCase() < usdc;
  return units(wethIs0 ? r1 : r0, 6) / units(wethIs0 ? r0 : r1, 18);
}

/** Reserves of a token/WETH V2 pair, oriented: [token, weth]. */
async function v2Reserves(pairAddress: string, token: string): Promise<[bigint, bigint]> {
  const [r0, r1] = (await new Contract(pairAddress, pairAbi, chain.provider).getFunction(
    'getReserves',
  )()) as [bigint, bigint];
  return token < chain.uniswap.weth.toLowerCase() ? [r0, r1] : [r1, r0];
}

async function deployToken(symbol: string): Promise<string> {
  const { address } = await chain.deploy('SimpleToken', [symbol, symbol, SUPPLY]);
  await register(address, symbol);
  return address;
}

const router = () => new Contract(chain.uniswap.router, routerAbi, chain.signer);
const lpToken = (pair: string) => new Contract(pair, pairAbi, chain.signer);

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  v3 = await deployUniswapV3(chain.signer);
  usdc = (await seedStablecoinPool(chain.signer, chain.uniswap)).toLowerCase();
  config = chain.chainConfig({
    stablecoins: [usdc],
    multicall3: chain.uniswap.multicall3.toLowerCase(),
    dexes: [
      {
        name: 'uniswap-v2',
        kind: 'v2',
        factory: chain.uniswap.factory.toLowerCase(),
        router: chain.uniswap.router.toLowerCase(),
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: v3.factory.toLowerCase(),
        fee_tiers: [500, 3000, 10000],
      },
    ],
    lockers: [{ name: 'test-locker', address: LOCKER }],
  });
  const rpc = createRpcClient({ urls: config.rpcUrls, onCall: (c) => rpcCalls.push(c.method) });
  runtime = { config, rpc, reader: createChainReader(rpc) };
  handle = createDb(database.url, { max: database.embedded ? 1 : 5 });
  dex = createDexRepository(handle.db);
  producerRedis = createRedis(redis.url, 'producer');
  general = createRedis(redis.url, 'commands');
  producer = createProducer(producerRedis, redis.prefix);
}, 120_000);

afterAll(async () => {
  await producer?.close();
  producerRedis?.disconnect();
  general?.disconnect();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('dex stage on Uniswap V2', () => {
  let token: string;
  let pair: string;

  it('finds no pool before liquidity, and does not trigger simulation', async () => {
    token = await deployToken('HON');
    const result = await refresh(token, 0);
    expect(result).toMatchObject({
      pairs: 0,
      priceUsd: null,
      liquidityUsd: 0,
      firstLiquidity: false,
    });
    const row = await tokenRow(token);
    expect(row.dexHints).toMatchObject({
      has_liquidity: false,
      is_tradable: false,
      num_trading_pairs: 0,
    });
    expect(row.refreshTier).toBe('slow');
    expect(row.initialLiquidityUsd).toBeNull();
    expect(
      await producer.queue('simulate').getJob(`simulate-${config.chainId}-${token}-liquidity`),
    ).toBeUndefined();
  });

  it('prices the first liquidity as computed from the reserves, stores it as initial liquidity, and triggers simulation', async () => {
    pair = await addLiquidity(chain, token, parseEther('400000'), parseEther('10'));
    rpcCalls.length = 0;
    const result = await refresh(token, 1);
    const [rToken, rWeth] = await v2Reserves(pair, token);
    const usdPerEth = await nativeUsd();
    const price = (units(rWeth, 18) / units(rToken, 18)) * usdPerEth;
    const liquidity = 2 * units(rWeth, 18) * usdPerEth;
    expect(usdPerEth).toBeCloseTo(3_000, 6);
    expect(result.priceUsd).toBeCloseTo(price, 12);
    expect(result.liquidityUsd).toBeCloseTo(liquidity, 6);
    expect(result.firstLiquidity).toBe(true);

    const row = await tokenRow(token);
    expect(Number(row.priceUsd)).toBeCloseTo(price, 12);
    expect(Number(row.currentLiquidityUsd)).toBeCloseTo(liquidity, 2);
    expect(row.initialLiquidityUsd).toBe(row.currentLiquidityUsd);
    expect(row.initialLiquidityAt).not.toBeNull();
    // Nothing burned: the market cap is the whole supply at the price.
    expect(Number(row.marketCapUsd)).toBeCloseTo(price * units(SUPPLY, 18), 1);
    expect(row.refreshTier).toBe('fast');
    const hints = row.dexHints as DexHints;
    expect(hints).toMatchObject({
      is_tradable: true,
      has_liquidity: true,
      has_v3_liquidity: false,
      num_trading_pairs: 1,
      main_trading_pair: pair,
      recommended_dex: 'uniswap-v2',
      buy_url: null,
      volume_24h_usd: 0,
      trading_pairs: [
        { dex: 'uniswap-v2', pair_address: pair, quote_token: chain.uniswap.weth.toLowerCase() },
      ],
    });
    expect(hints.total_liquidity_usd).toBeCloseTo(liquidity, 2);
    const [stored] = await handle.db.select().from(pairs).where(eq(pairs.address, pair));
    expect(stored).toMatchObject({
      kind: 'v2',
      dex: 'uniswap-v2',
      quoteToken: chain.uniswap.weth.toLowerCase(),
    });

    const simulate = await producer
      .queue('simulate')
      .getJob(`simulate-${config.chainId}-${token}-liquidity`);
    expect(simulate?.data).toEqual({
      chainId: config.chainId,
      address: token,
      reason: 'liquidity',
      run: 'liquidity',
    });
    const updated = (await streamEvents()).filter(
      (e) => e.type === 'token.updated' && e.data.contract_address === token,
    );
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data.changes).toEqual(['price', 'liquidity']);
    // The payload speaks the HTTP names and shapes (docs/websocket.md).
    expect(eventData['token.updated'].safeParse(updated[0]!.data).error?.issues ?? []).toEqual([]);
    expect(updated[0]!.data).toMatchObject({
      source: 'dex',
      dex_hints: { main_trading_pair: pair },
    });

    // Multicall3 carries the reads: a handful of round trips, no per-call batch.
    expect(rpcCalls.filter((m) => m.startsWith('batch('))).toEqual([]);
    expect(rpcCalls.filter((m) => m === 'eth_call').length).toBeLessThanOrEqual(4);
  });

  it('counts swaps once as 24 h volume, in USD at the quote price', async () => {
    const me = chain.account;
    const buy = await (
      await router().getFunction('swapExactETHForTokens')(
        0,
        [chain.uniswap.weth, token],
        me,
        deadline(),
        { value: parseEther('0.5'), gasLimit: SWAP_GAS },
      )
    ).wait();
    const sellAmount = parseEther('5000');
    await (
      await chain.contract('SimpleToken', token).getFunction('approve')(
        chain.uniswap.router,
        sellAmount,
      )
    ).wait();
    const sell = await (
      await router().getFunction('swapExactTokensForETH')(
        sellAmount,
        0,
        [token, chain.uniswap.weth],
        me,
        deadline(),
        { gasLimit: SWAP_GAS },
      )
    ).wait();
    const wethMoved = [buy!, sell!]
      .map((r) => swapWeth(r, pair, token))
      .reduce((a, b) => a + b, 0n);
    expect(wethMoved).toBeGreaterThan(parseEther('0.5'));

    const result = await refresh(token, 2);
    const expected = units(wethMoved, 18) * (await nativeUsd());
    expect(result.volume24hUsd).toBeCloseTo(expected, 6);
    const row = await tokenRow(token);
    expect(Number(row.volume24hUsd)).toBeCloseTo(expected, 2);
    expect(row.isActivelyTraded).toBe(true);
    expect(row.lastTradeAt).not.toBeNull();
    const [stored] = await handle.db.select().from(pairs).where(eq(pairs.address, pair));
    // Read the head directly: the ethers provider caches its block number briefly.
    expect(stored!.volumeCursorBlock).toBe(
      Number(await chain.provider.send('eth_blockNumber', [])),
    );
    expect(stored!.lastSwapBlock).toBe(sell!.blockNumber);

    // The next refresh scans only the blocks after the cursor: the same swaps are not counted again.
    const again = await refresh(token, 3);
    expect(again.volume24hUsd).toBeCloseTo(expected, 6);
  });

  it('moves a token without trades for the idle time to the slow cadence', async () => {
    await refresh(token, 5, processor({ idleAfterMs: 1 }));
    const idle = await tokenRow(token);
    expect(idle.refreshTier).toBe('slow');
    expect(idle.nextRefreshAt?.getTime()).toBe(bucket(5) + SLOW_REFRESH_INTERVAL_MS);
    await refresh(token, 6);
    const active = await tokenRow(token);
    expect(active.refreshTier).toBe('fast');
    expect(active.nextRefreshAt?.getTime()).toBe(bucket(6) + MINUTE);
  });

  it('reports LP sent to the dead address as burned and LP held by a known locker as locked', async () => {
    const lp = lpToken(pair);
    const mine = (await lp.getFunction('balanceOf')(chain.account)) as bigint;
    await (
      await lp.getFunction('transfer')('0x000000000000000000000000000000000000dEaD', mine / 10n)
    ).wait();
    await (await lp.getFunction('transfer')(LOCKER, mine / 5n)).wait();
    const total = (await lp.getFunction('totalSupply')()) as bigint;
    await refresh(token, 7);
    const lock = (await tokenRow(token)).liquidityLock as LiquidityLock;
    expect(lock.burned_pct).toBeCloseTo((100 * units(mine / 10n, 18)) / units(total, 18), 2);
    expect(lock.locked_pct).toBeCloseTo((100 * units(mine / 5n, 18)) / units(total, 18), 2);
    expect(lock.lockers).toEqual([
      expect.objectContaining({ name: 'test-locker', address: LOCKER, pair_address: pair }),
    ]);
  });
});

/** WETH that a V2 Swap event in `receipt` moved in or out of `pair` (read from the raw log). */
function swapWeth(receipt: TransactionReceipt, pair: string, token: string): bigint {
  const iface = new Contract(pair, pairAbi).interface;
  const wethIs0 = chain.uniswap.weth.toLowerCase() < token;
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== pair) continue;
    const parsed = iface.parseLog(log);
    if (parsed?.name !== 'Swap') continue;
    const [, in0, in1, out0, out1] = parsed.args as unknown as [
      string,
      bigint,
      bigint,
      bigint,
      bigint,
    ];
    return wethIs0 ? in0 + out0 : in1 + out1;
  }
  throw new Error('no Swap event');
}

describe('dex stage on Uniswap V3', () => {
  it('prices a full-range position from slot0 and values the pool balances', async () => {
    const token = await deployToken('VTHREE');
    const weth = chain.uniswap.weth.toLowerCase();
    const factory = new Contract(
      v3.factory,
      uniswapArtifact('UniswapV3Factory').abi as InterfaceAbi,
      chain.signer,
    );
    await (await factory.getFunction('createPool')(token, weth, 3000)).wait();
    const pool = (
      (await factory.getFunction('getPool')(token, weth, 3000)) as string
    ).toLowerCase();
    // 0.0001 WETH per token: sqrtPriceX96 = sqrt(raw1/raw0) · 2^96 with both at 18 decimals.
    const tokenIs0 = token < weth;
    const sqrtPriceX96 = tokenIs0 ? 2n ** 96n / 100n : 100n * 2n ** 96n;
    const poolContract = new Contract(
      pool,
      uniswapArtifact('UniswapV3Pool').abi as InterfaceAbi,
      chain.signer,
    );
    await (await poolContract.getFunction('initialize')(sqrtPriceX96)).wait();
    const wethContract = new Contract(
      weth,
      uniswapArtifact('WETH9').abi as InterfaceAbi,
      chain.signer,
    );
    await (await wethContract.getFunction('deposit')({ value: parseEther('50') })).wait();
    await (await wethContract.getFunction('approve')(v3.helper, MaxUint256)).wait();
    await (
      await chain.contract('SimpleToken', token).getFunction('approve')(v3.helper, MaxUint256)
    ).wait();
    const helper = new Contract(
      v3.helper,
      loadArtifact('V3PoolHelper').abi as InterfaceAbi,
      chain.signer,
    );
    await (
      await helper.getFunction('mint')(
        pool,
        FULL_RANGE.lower,
        FULL_RANGE.upper,
        parseEther('1000'),
        { gasLimit: V3_GAS },
      )
    ).wait();

    const result = await refresh(token, 0);
    const usdPerEth = await nativeUsd();
    const erc20 = (a: string) =>
      new Contract(a, loadArtifact('SimpleToken').abi as InterfaceAbi, chain.provider);
    const tokenBalance = units((await erc20(token).getFunction('balanceOf')(pool)) as bigint, 18);
    const wethBalance = units((await erc20(weth).getFunction('balanceOf')(pool)) as bigint, 18);
    const price = 0.0001 * usdPerEth;
    expect(result.priceUsd).toBeCloseTo(price, 9);
    expect(result.liquidityUsd).toBeCloseTo(tokenBalance * price + wethBalance * usdPerEth, 4);
    const hints = (await tokenRow(token)).dexHints as DexHints;
    expect(hints).toMatchObject({
      has_liquidity: true,
      has_v3_liquidity: true,
      main_trading_pair: pool,
      recommended_dex: 'uniswap-v3',
    });
    const [stored] = await handle.db.select().from(pairs).where(eq(pairs.address, pool));
    expect(stored).toMatchObject({ kind: 'v3', fee: 3000, sqrtPriceX96: sqrtPriceX96.toString() });

    // A V3 swap is volume too: |Δweth| of the pool.
    const before = (await erc20(weth).getFunction('balanceOf')(pool)) as bigint;
    await (
      await helper.getFunction('swap')(
        pool,
        !tokenIs0,
        parseEther('0.25'),
        tokenIs0 ? 1461446703485210103287273052203988822378723970341n : 4295128740n,
        { gasLimit: V3_GAS },
      )
    ).wait();
    const after = (await erc20(weth).getFunction('balanceOf')(pool)) as bigint;
    const swapped = await refresh(token, 1);
    expect(swapped.volume24hUsd).toBeCloseTo(units(after - before, 18) * usdPerEth, 6);
  });
});

describe('liquidity pulls', () => {
  it('alerts on a pull of more than half, calls the rest a rug, and keeps one snapshot per bucket', async () => {
    const token = await deployToken('RUG');
    const pair = await addLiquidity(chain, token, parseEther('500000'), parseEther('20'));
    const first = await refresh(token, 10);
    const lp = lpToken(pair);
    const mine = (await lp.getFunction('balanceOf')(chain.account)) as bigint;
    await (await lp.getFunction('approve')(chain.uniswap.router, MaxUint256)).wait();
    const remove = async (amount: bigint) =>
      (
        await router().getFunction('removeLiquidityETH')(
          token,
          amount,
          0,
          0,
          chain.account,
          deadline(),
          { gasLimit: SWAP_GAS },
        )
      ).wait();

    await remove((mine * 60n) / 100n);
    const pulled = await refresh(token, 11);
    const [, wethAfterPull] = await v2Reserves(pair, token);
    expect(pulled.liquidityUsd).toBeCloseTo(2 * units(wethAfterPull, 18) * (await nativeUsd()), 6);
    expect(pulled.events).toContain('alert:liquidity_pull');

    await remove(mine - (mine * 60n) / 100n);
    const rugged = await refresh(token, 12);
    expect(rugged.events).toContain('alert:rug');
    expect(rugged.liquidityUsd!).toBeLessThan(0.01);

    const alerts = (await streamEvents()).filter(
      (e) => e.type === 'alert' && e.data.contract_address === token,
    );
    expect(alerts.map((a) => a.data.type)).toEqual(['liquidity_pull', 'rug']);
    for (const a of alerts)
      expect(eventData.alert.safeParse(a.data).error?.issues ?? []).toEqual([]);
    expect(
      (alerts[0]!.data.details as { liquidity_before_usd: number }).liquidity_before_usd,
    ).toBeCloseTo(first.liquidityUsd!, 2);

    // The same bucket refreshed again (a retry) rewrites its snapshot, never adds one.
    await refresh(token, 12);
    const history = await dex.history(config.chainId, token);
    expect(history.map((h) => h.bucketAt.getTime())).toEqual([bucket(10), bucket(11), bucket(12)]);
    expect(history.map((h) => Number(h.liquidityUsd))).toEqual(
      [first.liquidityUsd, pulled.liquidityUsd, rugged.liquidityUsd].map((v) =>
        Number(v!.toFixed(2)),
      ),
    );
    expect(Number(history[0]!.priceUsd)).toBeCloseTo(first.priceUsd!, 12);
    expect(Number(history[0]!.marketCapUsd)).toBeCloseTo(first.priceUsd! * units(SUPPLY, 18), 1);
  });
});

describe('aggregator fallback', () => {
  let mock: DexScreenerMock;

  beforeAll(async () => {
    mock = await startDexScreenerMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('fills the price from the aggregator only when chain state cannot price the token', async () => {
    const token = await deployToken('NOUSD');
    await addLiquidity(chain, token, parseEther('100000'), parseEther('1'));
    mock.setPairs(token, [
      mockPair(token, chain.uniswap.weth.toLowerCase(), {
        priceUsd: 0.031,
        volume24h: 777,
        liquidityUsd: 6_000,
      }),
    ]);
    const aggregator = createAggregatorClient({ baseUrl: mock.url });
    // Without a stablecoin, wrapped native has no USD price on chain.
    const unpriced: ChainConfig = { ...config, stablecoins: [] };
    const rpc = createRpcClient({ urls: config.rpcUrls });
    const process = createDexProcessor({
      chains: new Map([
        [config.chainId, { config: unpriced, rpc, reader: createChainReader(rpc) }],
      ]),
      dex,
      producer,
      events: createEventPublisher(general, keySpace(redis.prefix).events),
      logger: silentLogger,
      idleAfterMs: IDLE_AFTER_MS,
      headCacheMs: 0,
      aggregator,
    });
    const filled = await refresh(token, 0, process);
    expect(filled.priceUsd).toBe(0.031);
    expect(filled.volume24hUsd).toBe(777);
    expect(mock.requests).toEqual([`/tokens/v1/${config.chainId}/${token}`]);

    // With chain prices available the aggregator is not asked, and when it fails the chain data stands.
    const priced = await refresh(token, 1, processor({ aggregator }));
    expect(priced.priceUsd).not.toBe(0.031);
    expect(mock.requests).toHaveLength(1);
    mock.failNext(5, { status: 500 });
    const failing = createAggregatorClient({ baseUrl: mock.url });
    const fallback = await refresh(
      token,
      2,
      createDexProcessor({
        chains: new Map([
          [config.chainId, { config: unpriced, rpc, reader: createChainReader(rpc) }],
        ]),
        dex,
        producer,
        events: createEventPublisher(general, keySpace(redis.prefix).events),
        logger: silentLogger,
        idleAfterMs: IDLE_AFTER_MS,
        headCacheMs: 0,
        aggregator: failing,
      }),
    );
    expect(fallback.priceUsd).toBeNull();
    expect(fallback.liquidityUsd).toBeNull();
  });
});

describe('refresh scheduler', () => {
  let schedulers: DexScheduler[] = [];
  const connections: ReturnType<typeof createRedis>[] = [];

  afterAll(async () => {
    await Promise.all(schedulers.map((s) => s.close()));
    for (const c of connections) c.disconnect();
  });

  it('ticks on its cadence, once per bucket even with two scheduler processes, and fans out bucketed dex jobs', async () => {
    const intervalMs = 1_000;
    const prefix = `${redis.prefix}-sched`;
    const token = await deployToken('DUE');
    await handle.db
      .update(tokens)
      .set({ nextRefreshAt: new Date(0) })
      .where(eq(tokens.address, token));
    // The scheduler enqueues through its own producer, under its own prefix.
    const schedProducerConn = createRedis(redis.url, 'producer');
    connections.push(schedProducerConn);
    const schedProducer = createProducer(schedProducerConn, prefix);
    const ticks: { bucketMs: number; scheduledMs: number; seenAt: number; enqueued: number }[] = [];
    for (let i = 0; i < 2; i++) {
      const workerConnection = createRedis(redis.url, 'worker');
      connections.push(workerConnection);
      schedulers.push(
        await startDexScheduler({
          workerConnection,
          producerConnection: schedProducerConn,
          prefix,
          dex,
          producer: schedProducer,
          chainIds: [config.chainId],
          logger: silentLogger,
          intervalMs,
          onTick: (t) => ticks.push({ ...t, seenAt: Date.now() }),
        }),
      );
    }
    await eventually(async () => (ticks.length >= 7 ? true : undefined), 20_000, '7 ticks');
    const stopped = schedulers;
    await Promise.all(stopped.map((s) => s.close()));
    schedulers = [];

    const buckets = ticks.map((t) => t.bucketMs);
    expect(new Set(buckets).size).toBe(buckets.length); // one tick per bucket across both processes
    const sorted = [...ticks].sort((a, b) => a.bucketMs - b.bucketMs);
    for (let i = 1; i < sorted.length; i++) {
      expect(sorted[i]!.bucketMs - sorted[i - 1]!.bucketMs).toBe(intervalMs);
      // Measured cadence: processed about one interval after the previous tick.
      expect(Math.abs(sorted[i]!.seenAt - sorted[i - 1]!.seenAt - intervalMs)).toBeLessThan(400);
    }
    const dexQueue = new Queue('dex', { connection: { url: redis.url }, prefix });
    for (const t of sorted) {
      expect(t.enqueued).toBeGreaterThanOrEqual(1);
      const job = await dexQueue.getJob(
        `dex-${config.chainId}-${token}-${scheduled(t.bucketMs).run}`,
      );
      expect(job?.data).toMatchObject({
        reason: 'refresh',
        run: scheduled(t.bucketMs).run,
        bucketMs: t.bucketMs,
      });
    }
    // A tick delivered twice for a bucket enqueues nothing new.
    const counts = await dexQueue.getJobCounts('waiting');
    await stopped[0]!.tick(sorted[0]!.bucketMs);
    expect(await dexQueue.getJobCounts('waiting')).toEqual(counts);
    await dexQueue.obliterate({ force: true });
    await dexQueue.close();
    await schedProducer.close();
  });
});

describe('re-simulation on the refresh cadence', () => {
  it('enqueues simulate for tokens whose owner can still change fees or limits, once per bucket', async () => {
    const prefix = `${redis.prefix}-resim`;
    const changeable = await deployToken('FEES');
    const settled = await deployToken('FIXED');
    const old = new Date(Date.now() - 3_600_000);
    await handle.db
      .update(tokens)
      .set({ securityHints: { fee_modifiable: true }, riskUpdatedAt: old })
      .where(eq(tokens.address, changeable));
    await handle.db
      .update(tokens)
      .set({ securityHints: { fee_modifiable: false }, riskUpdatedAt: old })
      .where(eq(tokens.address, settled));
    const producerConn = createRedis(redis.url, 'producer');
    const workerConn = createRedis(redis.url, 'worker');
    const schedulerProducer = createProducer(producerConn, prefix);
    const analyses = createAnalysisRepository(handle.db);
    const scheduler = await startDexScheduler({
      workerConnection: workerConn,
      producerConnection: producerConn,
      prefix,
      dex,
      producer: schedulerProducer,
      chainIds: [config.chainId],
      logger: silentLogger,
      intervalMs: 60_000,
      dueForResimulation: (chainId, before, limit) =>
        analyses.dueForResimulation(chainId, before, limit),
    });
    try {
      const bucket = Math.floor(Date.now() / 60_000) * 60_000;
      await scheduler.tick(bucket);
      await scheduler.tick(bucket);
      const simulate = schedulerProducer.queue('simulate');
      const jobs = await simulate.getJobs(['waiting', 'delayed', 'prioritized']);
      const mine = jobs.filter((j) => j.data.chainId === config.chainId);
      expect(mine.map((j) => j.data.address)).toEqual([changeable]);
      expect(mine[0]!.data).toMatchObject({
        reason: 'refresh',
        run: scheduled(bucket).run,
        bucketMs: bucket,
      });
      await simulate.obliterate({ force: true });
    } finally {
      await scheduler.close();
      await schedulerProducer.close();
      producerConn.disconnect();
      workerConn.disconnect();
    }
  });
});

describe('manual refresh', () => {
  it('reaches the dex stage after risk, with the pass’s own run key, and snapshots the current bucket', async () => {
    const token = await deployToken('MANUAL');
    const at = Date.now();
    // The refresh endpoint and `analyze` start a re-analysis pass at bytecode; the map sends it on
    // from risk to dex (workers/pipeline.ts).
    const pass = passFor({ kind: 'reanalysis', atMs: at });
    await routeOutcome(producer, 'risk', { chainId: config.chainId, address: token, ...pass }, {});
    const jobId = `dex-${config.chainId}-${token}-manual-${at}`;
    const job = await producer.queue('dex').getJob(jobId);
    expect(job?.data).toEqual({
      chainId: config.chainId,
      address: token,
      reason: 'manual',
      run: `manual-${at}`,
    });
    const started = Date.now();
    const result = await processor()(job!.data);
    const buckets = [bucketStart(started), bucketStart(Date.now())].map((b) =>
      new Date(b).toISOString(),
    );
    expect(result.status === 'done' && buckets.includes(result.bucketAt)).toBe(true);
    await job!.remove();
  });
});

describe('a crashed refresh', () => {
  it('loses nothing: another worker takes the job over and the snapshot exists exactly once', async () => {
    const token = await deployToken('CRASH');
    await addLiquidity(chain, token, parseEther('100000'), parseEther('2'));
    const prefix = `${redis.prefix}-crash`;
    const crashProducerConn = createRedis(redis.url, 'producer');
    const crashProducer = createProducer(crashProducerConn, prefix);
    let committed!: () => void;
    const committedPromise = new Promise<void>((r) => (committed = r));
    // Worker A commits the refresh, then its process "dies" before the job is acknowledged.
    const dyingRepo: DexRepository = {
      ...dex,
      async saveRefresh(update) {
        await dex.saveRefresh(update);
        committed();
        await new Promise(() => {});
      },
    };
    const lockOptions = { lockDuration: 1_000, stalledInterval: 500, maxStalledCount: 2 };
    const processA = processor({ dex: dyingRepo, producer: crashProducer });
    const connA = createRedis(redis.url, 'worker');
    const workerA = new Worker('dex', (job) => processA(job.data), {
      connection: connA,
      prefix,
      ...lockOptions,
    });
    const jobId = await crashProducer.enqueue('dex', {
      chainId: config.chainId,
      address: token,
      ...scheduled(bucket(30)),
    });
    await committedPromise;
    await workerA.close(true);
    connA.disconnect();

    const processB = processor({ producer: crashProducer });
    const connB = createRedis(redis.url, 'worker');
    const workerB = new Worker('dex', (job) => processB(job.data), {
      connection: connB,
      prefix,
      ...lockOptions,
    });
    const queue = crashProducer.queue('dex');
    try {
      await eventually(
        async () => ((await queue.getJobState(jobId)) === 'completed' ? true : undefined),
        30_000,
        'job taken over and completed',
      );
      const job = await queue.getJob(jobId);
      expect(job?.returnvalue).toMatchObject({
        status: 'done',
        bucketAt: new Date(bucket(30)).toISOString(),
      });
      const snapshots = await handle.db
        .select()
        .from(tokenHistory)
        .where(
          and(eq(tokenHistory.address, token), eq(tokenHistory.bucketAt, new Date(bucket(30)))),
        );
      expect(snapshots).toHaveLength(1);
      expect(Number(snapshots[0]!.liquidityUsd)).toBeGreaterThan(0);
    } finally {
      await workerB.close();
      connB.disconnect();
      await crashProducer.close();
      crashProducerConn.disconnect();
    }
  });
});

describe('PairCreated in the detect stage', () => {
  it('gives a known token whose pair appears later its DEX pass and first-liquidity simulation', async () => {
    const token = await deployToken('LATE');
    const prefix = `${redis.prefix}-late`;
    const service = await startService({
      roles: new Set(['worker', 'scanner']),
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: prefix,
      chains: [
        { ...config, startBlock: Number(await chain.provider.send('eth_blockNumber', [])) + 1 },
      ],
      knownChainIds: new Set([config.chainId]),
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: database.embedded ? 1 : 5,
    });
    try {
      const pair = await addLiquidity(chain, token, parseEther('100000'), parseEther('3'));
      const row = await eventually(
        async () => {
          const r = await tokenRow(token);
          return (r.dexHints as DexHints | null)?.has_liquidity ? r : undefined;
        },
        30_000,
        'dex pass after PairCreated',
      );
      expect((row.dexHints as DexHints).main_trading_pair).toBe(pair);
      const [stored] = await handle.db.select().from(pairs).where(eq(pairs.address, pair));
      expect(stored).toMatchObject({
        kind: 'v2',
        dex: 'uniswap-v2',
        factory: chain.uniswap.factory.toLowerCase(),
      });
      expect(stored!.creationBlockNumber).toBeGreaterThan(0);
      const simulate = new Queue('simulate', { connection: { url: redis.url }, prefix });
      expect(
        (await simulate.getJob(`simulate-${config.chainId}-${token}-liquidity`))?.data.reason,
      ).toBe('liquidity');
      await simulate.close();

      // A V3 pool (PoolCreated) is recorded with its kind and fee as its block is detected.
      const factory = new Contract(
        v3.factory,
        uniswapArtifact('UniswapV3Factory').abi as InterfaceAbi,
        chain.signer,
      );
      const created = await (
        await factory.getFunction('createPool')(token, chain.uniswap.weth, 10000)
      ).wait();
      const pool = (
        (await factory.getFunction('getPool')(token, chain.uniswap.weth, 10000)) as string
      ).toLowerCase();
      const v3Row = await eventually(
        async () => (await handle.db.select().from(pairs).where(eq(pairs.address, pool)))[0],
        30_000,
        'PoolCreated recorded',
      );
      expect(v3Row).toMatchObject({
        kind: 'v3',
        fee: 10000,
        dex: 'uniswap-v3',
        creationBlockNumber: created!.blockNumber,
      });
    } finally {
      await service.stop();
    }
  });
});

describe('a pair created before its liquidity', () => {
  it('gives its known token a DEX pass in the block that funds it, and only while it is empty', async () => {
    // Tokens that must know their pair before the first transfer into it create the pair first
    // and fund it in a later transaction: the funding block's Mint is what the DEX stage hears.
    const token = await deployToken('EARLY');
    const factory = new Contract(
      chain.uniswap.factory,
      uniswapArtifact('UniswapV2Factory').abi as InterfaceAbi,
      chain.signer,
    );
    const detectBlock = async (blockNumber: number) => {
      const header = (await runtime.reader.block(blockNumber))!;
      return recordPoolCreations(dex, runtime, await runtime.reader.receipts(header), {
        number: blockNumber,
        hash: header.hash,
      });
    };
    const created = await waitMined(
      chain.provider,
      factory.getFunction('createPair')(token, chain.uniswap.weth),
    );
    expect(await detectBlock(created.blockNumber)).toEqual({ created: 1, pooledTokens: [token] });
    expect(await refresh(token, 40)).toMatchObject({ pairs: 1, firstLiquidity: false });

    await addLiquidity(chain, token, parseEther('1000'), parseEther('1'));
    const funding = Number(await chain.provider.send('eth_blockNumber', []));
    expect(await detectBlock(funding)).toEqual({ created: 0, pooledTokens: [token] });

    // Once a refresh has seen the reserves, more liquidity is the refresh cadence's business.
    expect(await refresh(token, 41)).toMatchObject({ firstLiquidity: true });
    await addLiquidity(chain, token, parseEther('1000'), parseEther('1'));
    const more = Number(await chain.provider.send('eth_blockNumber', []));
    expect(await detectBlock(more)).toEqual({ created: 0, pooledTokens: [] });
  });
});

describe('a pool older than the first volume scan reaches', () => {
  let mock: DexScreenerMock;

  beforeAll(async () => {
    mock = await startDexScreenerMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('takes the 24 h volume from the aggregator until its own scan covers a day, never the price', async () => {
    const token = await deployToken('OLDPOOL');
    await addLiquidity(chain, token, parseEther('100000'), parseEther('1'));
    // The pool is unknown to the database (no detect stage ran) and the chain is longer than the
    // first scan's lookback (shortened here: mining 10 000 blocks on Anvil takes minutes), so the
    // chain's own count starts inside the last 24 h.
    mock.setPairs(token, [
      mockPair(token, chain.uniswap.weth.toLowerCase(), {
        priceUsd: 123,
        volume24h: 4_321,
        liquidityUsd: 1,
      }),
    ]);
    const result = await refresh(
      token,
      0,
      processor({
        aggregator: createAggregatorClient({ baseUrl: mock.url }),
        initialLookbackBlocks: 3,
      }),
    );
    expect(result.volume24hUsd).toBe(4_321);
    expect(result.priceUsd).not.toBe(123);
    const [stored] = await handle.db
      .select()
      .from(pairs)
      .where(eq(pairs.address, result.mainPair!));
    expect(stored!.volumeFromAt!.getTime()).toBeGreaterThan(Date.now() - 86_400_000);
    // A pool first scanned from the chain's start (the chain is shorter than the default lookback) is complete.
    const [known] = await handle.db
      .select()
      .from(pairs)
      .where(and(eq(pairs.kind, 'v3'), eq(pairs.fee, 3000)));
    expect(known!.volumeFromAt!.getTime()).toBe(0);
  });
});
