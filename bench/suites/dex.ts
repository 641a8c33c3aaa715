import {
  Contract,
  ContractFactory,
  type InterfaceAbi,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  Wallet,
} from 'ethers';
import {
  ANVIL_PRIVATE_KEYS,
  addLiquidityV4,
  deployUniswapV2,
  deployUniswapV3,
  deployUniswapV4,
  fullRangeLiquidity,
  initializePool,
  poolKeyOf,
  seedStablecoinPool,
  sqrtPriceX96Of,
  startAnvil,
  swapV4,
  type UniswapV2Deployment,
  type UniswapV4Deployment,
} from '../../app/embedded/index.ts';
import { loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { createDb, type Database } from '../../db/client.ts';
import { createDexRepository, type DexRepository } from '../../db/repositories/dex.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createEventPublisher, type EventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { bucketStart, REFRESH_INTERVAL_MS } from '../../src/dex/refresh.ts';
import { NO_HOOK, type V4PoolKey } from '../../src/dex/v4/index.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { passFor } from '../../src/run-key.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import { createDexProcessor } from '../../workers/dex/index.ts';
import { jobCatalog } from '../../workers/jobs.ts';
import { createProducer, type Producer, startWorkers } from '../../workers/queues.ts';
import { mined } from '../receipts.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * DEX benchmark: the 60-second DEX refresh. N tokens, each with a Uniswap V2 pool and a swap,
 * and N/2 tokens, each with a Uniswap V4 pool (native currency, no hook, on the real PoolManager)
 * and a swap, on a chain configured like Ethereum's built-in one (V2 + V3 with four fee tiers + V4,
 * quotes wrapped native + two stablecoins). Each pass enqueues one `dex` job per token of a set
 * and runs them through one worker process (BullMQ, the stage's concurrency, Postgres), counting
 * every RPC request through the RpcClient's onCall hook: once with Multicall3 (aggregate3), once
 * with plain JSON-RPC batches of eth_calls. V2 and V4 tokens are measured in the same run, each
 * set on its own. The capacity of one worker on the 60 s cadence is derived from the measured
 * Multicall3 throughput.
 */

const SUITE = 'dex';
const DEFAULT_TOKENS = 200;
const WARM_UP_BUCKET_OFFSET = 0;
const CADENCE_SECONDS = REFRESH_INTERVAL_MS / 1000;
const SWAP_GAS = 400_000n;
const PASSES_PER_MODE = 2;
/** V4 tokens per V2 token: enough for a steady rate, half the deployment time. */
const V4_SHARE = 0.5;
const V4_FEE = 3000;
const V4_TICK_SPACING = 60;
const V4_POOL_TOKENS = parseEther('500000');
const V4_POOL_ETH = parseEther('1');
const BLOCKS_BETWEEN_PASSES = 5;

async function rpcRequest(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return response.json();
}
const UNISWAP_V3_FEES = [100, 500, 3000, 10000];

interface PassResult {
  seconds: number;
  requests: number;
  roundTrips: number;
}

/** `count` tokens, each with a V2 pool against the wrapped native token and one swap in it. */
async function deployPooledTokens(
  provider: JsonRpcProvider,
  signer: NonceManager,
  uniswap: UniswapV2Deployment,
  count: number,
): Promise<string[]> {
  const simple = loadArtifact('SimpleToken');
  const router = new Contract(
    uniswap.router,
    uniswapArtifact('UniswapV2Router02').abi as InterfaceAbi,
    signer,
  );
  const me = await signer.getAddress();
  const deadline = Math.floor(Date.now() / 1000) + 7_200;
  const tokens: string[] = [];
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const token = await new ContractFactory(
      simple.abi as InterfaceAbi,
      simple.bytecode,
      signer,
    ).deploy(`Dex Bench ${i}`, `DB${i}`, parseEther('1000000'));
    const address = (await token.getAddress()).toLowerCase();
    tokens.push(address);
    pending.push(mined(provider, token.deploymentTransaction()));
    await mined(
      provider,
      await (token as Contract).getFunction('approve')(uniswap.router, parseEther('500000')),
    );
    pending.push(
      mined(
        provider,
        await router.getFunction('addLiquidityETH')(
          address,
          parseEther('500000'),
          0,
          0,
          me,
          deadline,
          { value: parseEther('1'), gasLimit: 5_000_000n },
        ),
      ),
    );
    pending.push(
      mined(
        provider,
        await router.getFunction('swapExactETHForTokens')(
          0,
          [uniswap.weth, address],
          me,
          deadline,
          { value: parseEther('0.01'), gasLimit: SWAP_GAS },
        ),
      ),
    );
    if (i % 25 === 24) progress(`deployed ${i + 1}/${count} pooled tokens`);
  }
  await Promise.all(pending);
  return tokens;
}

interface V4Pooled {
  token: string;
  key: V4PoolKey;
  id: string;
  blockNumber: number;
}

/** `count` tokens, each with a native-currency V4 pool (full range) and one buy in it. */
async function deployV4PooledTokens(
  provider: JsonRpcProvider,
  signer: NonceManager,
  v4: UniswapV4Deployment,
  count: number,
): Promise<V4Pooled[]> {
  const simple = loadArtifact('SimpleToken');
  const pooled: V4Pooled[] = [];
  for (let i = 0; i < count; i++) {
    const token = await new ContractFactory(
      simple.abi as InterfaceAbi,
      simple.bytecode,
      signer,
    ).deploy(`Dex V4 Bench ${i}`, `DV${i}`, parseEther('1000000'));
    await mined(provider, token.deploymentTransaction());
    const address = (await token.getAddress()).toLowerCase();
    const key = poolKeyOf(NO_HOOK, address, V4_FEE, V4_TICK_SPACING);
    const init = await initializePool(signer, v4, key, sqrtPriceX96Of(V4_POOL_ETH, V4_POOL_TOKENS));
    await addLiquidityV4(
      signer,
      v4,
      key,
      fullRangeLiquidity(V4_POOL_ETH, V4_POOL_TOKENS),
      V4_POOL_ETH * 2n,
    );
    await swapV4(signer, v4, key, true, parseEther('0.01'));
    pooled.push({ token: address, key, id: init.id, blockNumber: init.blockNumber });
    if (i % 25 === 24) progress(`deployed ${i + 1}/${count} V4 pooled tokens`);
  }
  return pooled;
}

async function setUpChain(rpcUrl: string, count: number) {
  const provider = new JsonRpcProvider(rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 50,
  });
  const signer = new NonceManager(new Wallet(ANVIL_PRIVATE_KEYS[0], provider));
  const uniswap = await deployUniswapV2(signer);
  const v3 = await deployUniswapV3(signer);
  const usdc = (await seedStablecoinPool(signer, uniswap)).toLowerCase();
  // A second stablecoin without pools: discovery asks for it as on a real chain.
  const stable = loadArtifact('DevStablecoin');
  const usdt = await new ContractFactory(
    stable.abi as InterfaceAbi,
    stable.bytecode,
    signer,
  ).deploy('Tether (dev)', 'USDT', 10n ** 18n);
  await mined(provider, usdt.deploymentTransaction());
  const tokens = await deployPooledTokens(provider, signer, uniswap, count);
  const v4 = await deployUniswapV4(signer);
  const v4Pools = await deployV4PooledTokens(
    provider,
    signer,
    v4,
    Math.max(1, Math.round(count * V4_SHARE)),
  );
  provider.destroy();
  const chain: ChainConfig = {
    chainId: LOCAL_CHAIN_ID,
    name: 'bench',
    rpcUrls: [rpcUrl],
    confirmations: 0,
    startBlock: 0,
    finalityDepth: 64,
    pollIntervalMs: 1_000,
    wrappedNative: uniswap.weth.toLowerCase(),
    stablecoins: [usdc, (await usdt.getAddress()).toLowerCase()],
    dexes: [
      {
        name: 'uniswap-v2',
        kind: 'v2',
        factory: uniswap.factory.toLowerCase(),
        router: uniswap.router.toLowerCase(),
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: v3.factory.toLowerCase(),
        fee_tiers: UNISWAP_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: v4.poolManager },
    ],
    multicall3: uniswap.multicall3.toLowerCase(),
    lockers: [],
    ephemeral: false,
  };
  return { chain, tokens, v4Pools };
}

/** The bench tokens as detected tokens, so the dex stage knows them. */
async function recordTokens(db: Database, tokens: string[]): Promise<void> {
  const tokenRepo = createTokenRepository(db);
  for (const address of tokens) {
    await tokenRepo.upsertDetected({
      chainId: LOCAL_CHAIN_ID,
      address,
      name: address,
      symbol: 'DB',
      decimals: 18,
      totalSupply: parseEther('1000000').toString(),
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
}

/** The V4 pools as the detect stage records them from their Initialize events. */
async function recordV4Pools(dex: DexRepository, chain: ChainConfig, pools: V4Pooled[]) {
  const manager = chain.dexes.find((d) => d.kind === 'v4')!.factory;
  for (const p of pools) {
    await dex.recordPoolCreated({
      chainId: LOCAL_CHAIN_ID,
      address: p.id,
      dex: 'uniswap-v4',
      factory: manager,
      token0: p.key.currency0,
      token1: p.key.currency1,
      kind: 'v4',
      fee: p.key.fee,
      tickSpacing: p.key.tickSpacing,
      hooks: p.key.hooks,
      creationBlockNumber: p.blockNumber,
      creationTxHash: `0x${'0'.repeat(64)}`,
    });
  }
}

/** What every pass shares: the chain, its tokens and the stage's dependencies. */
interface PassSetup {
  rpcUrl: string;
  redis: { url: string; prefix: string };
  chain: ChainConfig;
  tokens: string[];
  dex: DexRepository;
  producer: Producer;
  events: EventPublisher;
  baseBucket: number;
}

/** An RpcClient that counts JSON-RPC requests (each entry of a batch) and HTTP round trips. */
function countingRpc(url: string) {
  const counts = { requests: 0, roundTrips: 0 };
  const rpc = createRpcClient({
    urls: [url],
    onCall: ({ method }) => {
      counts.roundTrips++;
      const batch = /^batch\(.*×(\d+)\)$/.exec(method);
      counts.requests += batch ? Number(batch[1]) : 1;
    },
  });
  return { rpc, counts };
}

/** One refresh of every token through a worker process; `bucket` picks a fresh run key. */
async function pass(setup: PassSetup, multicall: boolean, bucket: number): Promise<PassResult> {
  const { chain, tokens, dex, producer, events, redis } = setup;
  const { rpc, counts } = countingRpc(setup.rpcUrl);
  const chains = new Map([
    [LOCAL_CHAIN_ID, { config: chain, rpc, reader: createChainReader(rpc) }],
  ]);
  const workerConnection = createRedis(redis.url, 'worker');
  const runKey = passFor({
    kind: 'scheduled-refresh',
    bucketMs: setup.baseBucket + bucket * REFRESH_INTERVAL_MS,
  });
  let done = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const processDex = createDexProcessor({
    chains,
    dex,
    producer,
    events,
    logger: silentLogger,
    idleAfterMs: 6 * 3_600_000,
    multicall,
  });
  const started = performance.now();
  const pool = startWorkers({
    connection: workerConnection,
    prefix: redis.prefix,
    logger: silentLogger,
    processors: {
      dex: async (data, job) => {
        const result = await processDex(data, job);
        if (++done === tokens.length) resolveAll();
        return result;
      },
    },
  });
  await producer.enqueueBulk(
    'dex',
    tokens.map((address) => ({ chainId: LOCAL_CHAIN_ID, address, ...runKey })),
  );
  await all;
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  workerConnection.disconnect();
  return { seconds, requests: counts.requests, roundTrips: counts.roundTrips };
}

/**
 * A warm-up pass, then alternating passes with and without Multicall3; the best of each mode.
 * `buckets` keeps each set's run keys apart.
 */
async function measureModes(setup: PassSetup, label: string, buckets: number) {
  // Between refreshes the chain moves on, as it does in a minute on a real chain: each refresh
  // then scans the new blocks for swaps (one getLogs per token).
  const mine = (blocks: number) =>
    rpcRequest(setup.rpcUrl, 'anvil_mine', [`0x${blocks.toString(16)}`]);
  progress(`${label}: warm-up pass (first volume scan of every pool)`);
  await pass(setup, true, buckets + WARM_UP_BUCKET_OFFSET);
  // Alternating passes, best of each: the order of the two modes does not favour either.
  const runs: { multicall: PassResult[]; batch: PassResult[] } = { multicall: [], batch: [] };
  for (let round = 0; round < PASSES_PER_MODE; round++) {
    for (const mode of ['multicall', 'batch'] as const) {
      await mine(BLOCKS_BETWEEN_PASSES);
      progress(
        `${label}: refresh pass ${round + 1}/${PASSES_PER_MODE} ${mode === 'multicall' ? 'with Multicall3' : 'with plain JSON-RPC batches'}`,
      );
      runs[mode].push(
        await pass(
          setup,
          mode === 'multicall',
          buckets + 1 + round * 2 + (mode === 'batch' ? 1 : 0),
        ),
      );
    }
  }
  const best = (list: PassResult[]) => list.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return { withMulticall: best(runs.multicall), withoutMulticall: best(runs.batch) };
}

interface Measured {
  count: number;
  withMulticall: PassResult;
  withoutMulticall: PassResult;
}

const perToken = (count: number, r: PassResult) => ({
  rate: count / r.seconds,
  requests: r.requests / count,
  roundTrips: r.roundTrips / count,
});

/** The V4 set's figures beside the V2 set's, measured in the same run (Multicall3). */
function v4Rows(v2: Measured, v4: Measured): BenchRow[] {
  const a = perToken(v2.count, v2.withMulticall);
  const b = perToken(v4.count, v4.withMulticall);
  const beside = (
    metric: string,
    v4Value: number,
    v2Value: number,
    unit: string,
    note?: string,
  ) => ({
    suite: SUITE,
    metric,
    value: round(v4Value),
    unit,
    baseline: {
      metric: 'V2 tokens in the same run',
      value: round(v2Value),
      ratio: v4Value / v2Value,
    },
    ...(note ? { note } : {}),
  });
  return [
    beside(
      'V4 refresh tokens/s (Multicall3)',
      b.rate,
      a.rate,
      'tokens/s',
      `${v4.count} tokens, each in a native-currency V4 pool on the real PoolManager with a swap; same worker and chain`,
    ),
    beside(
      'V4 RPC requests per token (Multicall3)',
      b.requests,
      a.requests,
      'requests',
      "state by one extsload per pool in the Multicall3 round; swaps from the PoolManager's Swap logs",
    ),
    beside('V4 HTTP round trips per token (Multicall3)', b.roundTrips, a.roundTrips, 'round trips'),
    {
      suite: SUITE,
      metric: 'V4 RPC requests per token (without Multicall3)',
      value: round(perToken(v4.count, v4.withoutMulticall).requests),
      unit: 'requests',
    },
  ];
}

function dexRows({ count, withMulticall, withoutMulticall }: Measured): BenchRow[] {
  const m = perToken(count, withMulticall);
  const b = perToken(count, withoutMulticall);
  const concurrency = jobCatalog.dex.concurrency;
  return [
    {
      suite: SUITE,
      metric: 'refresh tokens/s (Multicall3)',
      value: round(m.rate),
      unit: 'tokens/s',
      baseline: {
        metric: 'without Multicall3 (JSON-RPC batch)',
        value: round(b.rate),
        ratio: m.rate / b.rate,
      },
      note: `${count} tokens, one worker process, concurrency ${concurrency}, local Anvil; best of ${PASSES_PER_MODE} alternating passes`,
    },
    {
      suite: SUITE,
      metric: 'RPC requests per token (Multicall3)',
      value: round(m.requests),
      unit: 'requests',
      baseline: {
        metric: 'without Multicall3',
        value: round(b.requests),
        ratio: m.requests / b.requests,
      },
      note: 'JSON-RPC requests (each entry of a batch counts), counted by the RpcClient onCall hook',
    },
    {
      suite: SUITE,
      metric: 'HTTP round trips per token (Multicall3)',
      value: round(m.roundTrips),
      unit: 'round trips',
      baseline: {
        metric: 'without Multicall3',
        value: round(b.roundTrips),
        ratio: m.roundTrips / b.roundTrips,
      },
    },
    {
      suite: SUITE,
      metric: `active tokens one worker keeps on the ${CADENCE_SECONDS} s cadence`,
      value: Math.floor(m.rate * CADENCE_SECONDS),
      unit: 'tokens',
      note: `derived: measured Multicall3 throughput × ${CADENCE_SECONDS} s`,
    },
  ];
}

export async function dexRefresh(options: { tokens?: number } = {}): Promise<BenchRow[]> {
  const count = options.tokens ?? DEFAULT_TOKENS;
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID });
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const db = createDb(database.url, { max: database.embedded ? 1 : 10 });
  const producerConnection = createRedis(redis.url, 'producer');
  const commandRedis = createRedis(redis.url, 'commands');
  const producer = createProducer(producerConnection, redis.prefix);
  try {
    progress(`deploying ${count} tokens with a V2 pool and a swap each, and V4 ones`);
    const { chain, tokens, v4Pools } = await setUpChain(anvil.rpcUrl, count);
    const dex = createDexRepository(db.db);
    const v4Tokens = v4Pools.map((p) => p.token);
    await recordTokens(db.db, [...tokens, ...v4Tokens]);
    await recordV4Pools(dex, chain, v4Pools);
    const setup = {
      rpcUrl: anvil.rpcUrl,
      redis,
      chain,
      producer,
      dex,
      events: createEventPublisher(commandRedis, keySpace(redis.prefix).events),
      baseBucket: bucketStart(Date.now()),
    };
    const v2 = { count, ...(await measureModes({ ...setup, tokens }, 'V2', 0)) };
    const v4 = {
      count: v4Tokens.length,
      ...(await measureModes({ ...setup, tokens: v4Tokens }, 'V4', 2 * PASSES_PER_MODE + 1)),
    };
    return [...dexRows(v2), ...v4Rows(v2, v4)];
  } finally {
    await producer.close();
    producerConnection.disconnect();
    commandRedis.disconnect();
    await db.close();
    await Promise.all([anvil.stop(), database.drop(), redis.cleanup()]);
  }
}
