import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import postgres from 'postgres';
import WebSocket from 'ws';
import { type AnvilHandle, issueDemoKey, startAnvil } from '../../app/embedded/index.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import {
  createRpcClient,
  type HeadSubscription,
  subscribeNewHeads,
} from '../../infra/rpc/index.ts';
import { CANONICAL_MULTICALL3, type ChainConfig } from '../../src/config/chains.ts';
import { fromQuantity, type RpcClient, toQuantity } from '../../src/evm/rpc.ts';
import type { RpcBlockHeader } from '../../src/evm/types.ts';
import { BENCH_POOL_MAX, startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import {
  blocksPerDay,
  CHAIN_PROFILES,
  type ChainContracts,
  type ChainProfile,
  createBlockPlanner,
  createNonceBook,
  LOADED_ANVIL_ARGS,
  type LoadScale,
  prepareChain,
  processUsage,
  type RpcMeter,
  type RunningLoad,
  runLoad,
  sendAll,
  startRpcMeter,
  startServiceProcesses,
  usageWindow,
} from '../chains/index.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';
import { ANALYSIS_QUEUES, DETECTION_QUEUES } from './burst.ts';
import { rawCeiling } from './detection.ts';

/**
 * The `chains` suite: five chains at once at their real block times, each block filled by the
 * load generator (bench/chains), watched by the service started the way operators start it
 * (`token-monitor start`): every role in one process, then the roles split into processes. Per
 * chain: block → token.created on the WebSocket, the scanner's lag behind the head sampled every
 * second and its growth, the transactions per block the chain really carried, and the JSON-RPC
 * calls the service made, per block and per token, extrapolated to a day of the real chain.
 * Per process: CPU and peak memory.
 */

const SUITE = 'chains';
const SENDERS_PER_CHAIN = 32;
/** Samples of the first seconds are left out: the service starts at the head and settles. */
const WARMUP_SECONDS = 10;
const LAG_SAMPLE_MS = 1_000;
/** After the load stops, token.created of the window's blocks may still come: this long quiet ends the wait. */
const DRAIN_QUIET_MS = 5_000;
const DRAIN_MAX_MS = 60_000;
const FINALITY_DEPTH = 64;
/** RPC methods a block costs, whatever it holds; the rest is the tokens' (probe, analysis, DEX). */
const BLOCK_METHODS = new Set([
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getTransactionReceipt',
  'debug_traceBlockByNumber',
  'trace_block',
]);

interface LoadedChain {
  profile: ChainProfile;
  anvil: AnvilHandle;
  rpc: RpcClient;
  contracts: ChainContracts;
  meter: RpcMeter;
  startBlock: number;
  /** When each block was first seen (newHeads), by number. */
  seen: Map<number, number>;
  head: number;
  heads: HeadSubscription;
  load?: RunningLoad;
}

async function startLoadedChain(profile: ChainProfile): Promise<LoadedChain> {
  const anvil = await startAnvil({
    chainId: profile.chainId,
    blockTime: profile.blockTimeMs / 1000,
    extraArgs: LOADED_ANVIL_ARGS,
  });
  const rpc = createRpcClient({ urls: [anvil.rpcUrl] });
  const contracts = await prepareChain(rpc, { senders: SENDERS_PER_CHAIN, seed: profile.chainId });
  // The real chains all have Multicall3 at its canonical address; the service batches reads through it.
  await rpc.request('anvil_setCode', [
    CANONICAL_MULTICALL3,
    loadArtifact('Multicall3').deployedBytecode,
  ]);
  const meter = await startRpcMeter(anvil.rpcUrl);
  const startBlock = fromQuantity(await rpc.request<string>('eth_blockNumber')) + 1;
  const chain: LoadedChain = {
    profile,
    anvil,
    rpc,
    contracts,
    meter,
    startBlock,
    seen: new Map(),
    head: startBlock - 1,
    heads: undefined as unknown as HeadSubscription,
  };
  chain.heads = subscribeNewHeads(anvil.wsUrl, (n) => {
    if (!chain.seen.has(n)) chain.seen.set(n, performance.now());
    chain.head = Math.max(chain.head, n);
  });
  return chain;
}

/** The CHAINS_FILE entry of a loaded chain: reads through its meter, heads from the node. */
const chainsFileEntry = (c: LoadedChain) => ({
  chain_id: c.profile.chainId,
  name: c.profile.name,
  rpc_urls: [c.meter.url],
  ws_url: c.anvil.wsUrl,
  confirmations: 0,
  start_block: c.startBlock,
  finality_depth: FINALITY_DEPTH,
  poll_interval_ms: Math.max(50, Math.min(1_000, c.profile.blockTimeMs)),
  wrapped_native: c.contracts.weth,
  stablecoins: [],
  dexes: [
    {
      name: 'uniswap-v2',
      kind: 'v2',
      factory: c.contracts.v2Factory,
      router: c.contracts.v2Router,
    },
    { name: 'uniswap-v3', kind: 'v3', factory: c.contracts.v3Factory },
  ],
  known_tokens: [],
});

/** Resolves once `list` has not grown for `quietMs` (or after `maxMs`). */
async function drain(list: readonly unknown[], quietMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let length = list.length;
  let since = Date.now();
  while (Date.now() < deadline && Date.now() - since < quietMs) {
    await new Promise((r) => setTimeout(r, 250));
    if (list.length !== length) {
      length = list.length;
      since = Date.now();
    }
  }
}

/** Least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** Transactions per block over `from`…`to` (headers in batches). */
async function transactionsPerBlock(rpc: RpcClient, from: number, to: number): Promise<number> {
  let total = 0;
  let blocks = 0;
  for (let start = from; start <= to; start += 20) {
    const end = Math.min(to, start + 19);
    const answers = await rpc.batch<RpcBlockHeader>(
      Array.from({ length: end - start + 1 }, (_, i) => ({
        method: 'eth_getBlockByNumber',
        params: [toQuantity(start + i), false],
      })),
    );
    for (const a of answers) {
      if (!a.ok || !a.result) continue;
      total += a.result.transactions?.length ?? 0;
      blocks++;
    }
  }
  return blocks === 0 ? 0 : total / blocks;
}

export interface ChainsLiveOptions {
  seconds: number;
  scale: LoadScale;
  /**
   * 'one process': every role in one; 'split roles': api, scanner, two workers (one for
   * detection, one for analysis at a lower CPU priority: the deployment docs/operations.md
   * recommends for bursts), scheduler.
   */
  mode: 'one process' | 'split roles';
}

type RoleEntry = Parameters<typeof startServiceProcesses>[0]['roles'][number];
/** The split analysis worker's niceness: the CPU goes to detection first. */
const ANALYSIS_NICE = 10;
const ROLES: Record<ChainsLiveOptions['mode'], RoleEntry[]> = {
  'one process': ['all'],
  'split roles': [
    'api',
    'scanner',
    { role: 'worker', env: { WORKER_QUEUES: DETECTION_QUEUES } },
    { role: 'worker', env: { WORKER_QUEUES: ANALYSIS_QUEUES }, cpu: { nice: ANALYSIS_NICE } },
    'scheduler',
  ],
};
const roleName = (r: RoleEntry) =>
  typeof r === 'string' ? r : `${r.role} (${r.env.WORKER_QUEUES ?? ''})`;

/** One live run: five loaded chains, the service, `seconds` of measurement. */
export async function chainsLive(options: ChainsLiveOptions): Promise<BenchRow[]> {
  const label = options.mode;
  progress(`chains (${label}): starting five loaded chains`);
  const chains: LoadedChain[] = [];
  let database: TestDatabase | undefined;
  let redis: TestRedis | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcesses>> | undefined;
  let socket: WebSocket | undefined;
  const errors: string[] = [];
  try {
    chains.push(...(await Promise.all(CHAIN_PROFILES.map(startLoadedChain))));
    [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    progress(
      `chains (${label}): starting the service (${ROLES[options.mode].map(roleName).join(', ')})`,
    );
    service = await startServiceProcesses({
      roles: ROLES[options.mode],
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      chains: chains.map(chainsFileEntry),
    });
    const apiKey = await issueDemoKey(database.url, redis.url, redis.prefix);
    // token.created: when, and for which chain's block.
    const created: { chainId: number; block: number; at: number }[] = [];
    socket = new WebSocket(`${service.websocket}?token=${apiKey}`);
    socket.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as {
        type: string;
        data?: { chain_id: number; full_token_data?: { creation?: { block_number?: number } } };
      };
      const block = message.data?.full_token_data?.creation?.block_number;
      if (message.type === 'token.created' && message.data && block !== undefined)
        created.push({ chainId: message.data.chain_id, block, at: performance.now() });
    });
    await new Promise((resolve, reject) => {
      socket!.once('open', resolve);
      socket!.once('error', reject);
    });

    progress(`chains (${label}): load on, ${WARMUP_SECONDS} s warm-up then ${options.seconds} s`);
    for (const c of chains) {
      const planner = createBlockPlanner(c.profile, c.contracts, options.scale);
      c.load = await runLoad(c.rpc, c.anvil.wsUrl, c.contracts.senders, planner.next, (e) =>
        errors.push(e.message),
      );
    }
    await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));

    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const pids = Object.fromEntries(
      service.processes.map((p, i) => [`${p.role}${p.role === 'worker' ? ` ${i}` : ''}`, p.pid]),
    );
    const anvilPids = Object.fromEntries(
      chains.map((c) => [`anvil ${c.profile.name}`, c.anvil.pid]),
    );
    const usage = usageWindow({
      ...pids,
      ...anvilPids,
      'bench (load generator, meters)': process.pid,
    });
    for (const c of chains) c.meter.reset();
    const windowStart = performance.now();
    const firstBlock = new Map(chains.map((c) => [c.profile.chainId, c.head + 1]));
    const sentBefore = new Map(chains.map((c) => [c.profile.chainId, c.load!.stats.blocks]));
    usage.start();
    const lag = new Map<number, [number, number][]>(chains.map((c) => [c.profile.chainId, []]));
    // Blocks handed on but not yet detected (every chain's): the detect queue's depth.
    const detectQueue = new Queue('detect', {
      connection: { url: redis.url },
      prefix: redis.prefix,
    });
    const backlog: [number, number][] = [];
    const cursorAt = new Map<number, number>();
    while (performance.now() - windowStart < options.seconds * 1000) {
      await new Promise((r) => setTimeout(r, LAG_SAMPLE_MS));
      const rows = await sql<{ chain_id: number; next_block: string }[]>`
        select chain_id, next_block from scan_cursors`;
      const t = (performance.now() - windowStart) / 60_000;
      for (const row of rows) cursorAt.set(row.chain_id, Number(row.next_block));
      const depth = await detectQueue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
      backlog.push([t, Object.values(depth).reduce((a, b) => a + b, 0)]);
      for (const c of chains) {
        const next = cursorAt.get(c.profile.chainId) ?? c.startBlock;
        lag.get(c.profile.chainId)!.push([t, Math.max(0, c.head - (next - 1))]);
      }
      usage.sample();
    }
    const elapsed = (performance.now() - windowStart) / 1000;
    if (service.metrics) {
      // Where detection's time goes (this process's stages only), for the log.
      const text = await (await fetch(service.metrics)).text();
      const stages = text
        .split('\n')
        .filter((l) => /^tm_stage_duration_seconds_(sum|count)\{queue="(detect|bytecode)"/.test(l));
      progress(`chains (${label}): ${stages.join('; ')}`);
    }
    const perProcess = usage.stop();
    const calls = new Map(chains.map((c) => [c.profile.chainId, c.meter.calls()]));
    const lastBlock = new Map(chains.map((c) => [c.profile.chainId, c.head]));
    await Promise.all(chains.map((c) => c.load!.stop()));
    await sql.end();
    await detectQueue.close();
    // Tokens of the window's last blocks are still on their way: wait until none has come for a while.
    await drain(created, DRAIN_QUIET_MS, DRAIN_MAX_MS);

    const rows: BenchRow[] = [];
    const note = `${label}; ${round(elapsed, 0)} s after ${WARMUP_SECONDS} s warm-up; transactions at ${options.scale.txScale} × the chain's; at least ${options.scale.tokenFloorPerMinute} tokens/min`;
    for (const c of chains) {
      const { chainId, name } = c.profile;
      const first = firstBlock.get(chainId)!;
      const last = lastBlock.get(chainId)!;
      const blocks = last - first + 1;
      const latencies = created
        .filter((e) => e.chainId === chainId && e.block >= first && e.block <= last)
        .flatMap((e) => {
          const seenAt = c.seen.get(e.block);
          return seenAt === undefined ? [] : [e.at - seenAt];
        })
        .sort((a, b) => a - b);
      const tokens = latencies.length;
      const points = lag.get(chainId)!;
      const txPerBlock = await transactionsPerBlock(
        createRpcClient({ urls: [c.anvil.rpcUrl], timeoutMs: 60_000 }),
        first,
        last,
      );
      const planned = Math.round(c.profile.txPerBlock * options.scale.txScale);
      rows.push(
        {
          suite: SUITE,
          metric: `${name} (${label}): block → token.created on WS, p50`,
          value: round(percentile(latencies, 50), 0),
          unit: 'ms',
          baseline: {
            metric: 'block time',
            value: c.profile.blockTimeMs,
            ratio: percentile(latencies, 50) / c.profile.blockTimeMs,
          },
          note: `${tokens} tokens in ${blocks} blocks; ${note}`,
        },
        {
          suite: SUITE,
          metric: `${name} (${label}): block → token.created on WS, p99`,
          value: round(percentile(latencies, 99), 0),
          unit: 'ms',
          baseline: {
            metric: 'block time',
            value: c.profile.blockTimeMs,
            ratio: percentile(latencies, 99) / c.profile.blockTimeMs,
          },
        },
        {
          suite: SUITE,
          metric: `${name} (${label}): lag growth (blocks per minute)`,
          value: round(slope(points), 2),
          unit: 'blocks/min',
          note: `lag sampled every second: max ${Math.max(0, ...points.map(([, y]) => y))} blocks, last ${points.at(-1)?.[1] ?? 0}`,
        },
        {
          suite: SUITE,
          metric: `${name} (${label}): transactions per block`,
          value: round(txPerBlock, 1),
          unit: 'tx',
          baseline: { metric: 'planned', value: planned, ratio: txPerBlock / planned },
          note: `${c.load!.stats.blocks - sentBefore.get(chainId)!} batches sent, ${c.load!.stats.skippedHeads} heads skipped, ${c.load!.stats.failedBatches} refused`,
        },
      );
      if (options.mode === 'one process')
        rows.push(...billRows(c.profile, calls.get(chainId)!, blocks, tokens, label));
    }
    rows.push({
      suite: SUITE,
      metric: `${label}: detect queue growth (blocks per minute)`,
      value: round(slope(backlog), 2),
      unit: 'blocks/min',
      note: `blocks waiting for detection, every chain's, sampled every second: max ${Math.max(0, ...backlog.map(([, y]) => y))}, last ${backlog.at(-1)?.[1] ?? 0}`,
    });
    for (const [name, u] of Object.entries(perProcess)) {
      rows.push(
        {
          suite: SUITE,
          metric: `${label}: ${name} CPU`,
          value: round(u.cpuPct, 1),
          unit: '% of a core',
        },
        {
          suite: SUITE,
          metric: `${label}: ${name} peak RSS`,
          value: round(u.peakRssMiB, 0),
          unit: 'MiB',
        },
      );
    }
    if (errors.length > 0)
      progress(`chains (${label}): ${errors.length} load batches refused: ${errors[0]}`);
    return rows;
  } finally {
    socket?.close();
    await service?.stop();
    for (const c of chains) {
      c.heads.close();
      await c.load?.stop();
      await c.meter.close();
    }
    await Promise.all(chains.map((c) => c.anvil.stop()));
    await Promise.all([database?.drop(), redis?.cleanup()]);
  }
}

/**
 * The RPC bill of a chain: calls per block (the methods every block costs) and per token (the
 * rest: probes of every creation, analysis, DEX reads, over the tokens detected), and the calls a
 * day of the real chain costs at its block rate and token rate.
 */
function billRows(
  profile: ChainProfile,
  calls: Record<string, number>,
  blocks: number,
  tokens: number,
  label: string,
): BenchRow[] {
  const perBlock = (m: string) => (BLOCK_METHODS.has(m) ? calls[m]! / blocks : 0);
  const perToken = (m: string) => (!BLOCK_METHODS.has(m) && tokens > 0 ? calls[m]! / tokens : 0);
  const methods = Object.keys(calls).sort();
  const daily = (m: string) =>
    perBlock(m) * blocksPerDay(profile) + perToken(m) * profile.tokensPerDay;
  const blockCalls = methods.reduce((s, m) => s + perBlock(m), 0);
  const tokenCalls = methods.reduce((s, m) => s + perToken(m), 0);
  const total = methods.reduce((s, m) => s + daily(m), 0);
  return [
    {
      suite: SUITE,
      metric: `${profile.name}: RPC calls per block`,
      value: round(blockCalls, 2),
      unit: 'calls',
      note: `${label}: ${methods
        .filter((m) => BLOCK_METHODS.has(m))
        .map((m) => `${m} ${round(perBlock(m), 2)}`)
        .join(', ')}`,
    },
    {
      suite: SUITE,
      metric: `${profile.name}: RPC calls per token`,
      value: round(tokenCalls, 2),
      unit: 'calls',
      note: `${tokens} tokens: ${methods
        .filter((m) => !BLOCK_METHODS.has(m))
        .map((m) => `${m} ${round(perToken(m), 2)}`)
        .join(', ')}`,
    },
    {
      suite: SUITE,
      metric: `${profile.name}: RPC calls per day (extrapolated)`,
      value: Math.round(total),
      unit: 'calls/day',
      note: `${Math.round(blocksPerDay(profile))} blocks/day, ${profile.tokensPerDay} tokens/day: ${methods.map((m) => `${m} ${Math.round(daily(m))}`).join(', ')}`,
    },
  ];
}

/**
 * Catch-up: the service was stopped while `blocks` BNB-chain blocks of the load's shape were
 * mined (4,800 is an hour of them). Measured on the same blocks in the same run: the raw RPC
 * ceiling (the detection suite's: the blocks, receipts, traces, probes and code, straight from
 * the node) and the service from its cursor to the head with every token through bytecode.
 */
/**
 * The catch-up's node keeps the state of its last 128 blocks, as a full (not archive) node does
 * by default: reads of older state are refused and the probes fall back to the latest state, as
 * they do against a provider's full node after an hour offline. Anvil keeping every state would
 * spill them to disk, about 26 MB a block of this load (an hour of BSC is 4,800 blocks).
 */
const FULL_NODE_STATES = 128;
/**
 * The catch-up's payments go to this many recurring payees (the live runs pay fresh addresses).
 * Anvil rebuilds its whole state trie and copies its state at every block: with a new account or
 * token balance per payment (about 80 a block here) its mining slowed from 18 to 96 ms a block
 * over the first 500 blocks, which made an hour's blocks take most of an hour to mine and 14 GB
 * of memory. The block's transactions, kinds and creations are the same (bench/chains/plan.ts).
 */
const CATCH_UP_PAYEES = 4_096;
/** Mining stops above this: the machine is shared (24 GiB), and Anvil keeps every block in memory. */
const ANVIL_RSS_LIMIT_MIB = 14 * 1024;
const MINING_REPORT_EVERY = 500;
/** The host's one-minute load average, for the notes: the machine is shared. */
const loadNow = () => round(loadavg()[0] ?? 0, 1);

export async function chainsCatchUp(options: {
  blocks: number;
  scale: LoadScale;
}): Promise<BenchRow[]> {
  const profile = CHAIN_PROFILES.find((p) => p.name === 'bsc')!;
  const anvil = await startAnvil({
    chainId: profile.chainId,
    extraArgs: ['--no-mining', ...LOADED_ANVIL_ARGS, '--prune-history', String(FULL_NODE_STATES)],
  });
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const db = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const rpc = createRpcClient({ urls: [anvil.rpcUrl], timeoutMs: 60_000 });
    const contracts = await prepareChain(rpc, {
      senders: SENDERS_PER_CHAIN,
      seed: profile.chainId,
    });
    await rpc.request('anvil_setCode', [
      CANONICAL_MULTICALL3,
      loadArtifact('Multicall3').deployedBytecode,
    ]);
    const first = fromQuantity(await rpc.request<string>('eth_blockNumber')) + 1;
    const planner = createBlockPlanner(profile, contracts, {
      ...options.scale,
      payees: CATCH_UP_PAYEES,
    });
    const nonces = await createNonceBook(rpc, contracts.senders);
    progress(
      `chains catch-up: mining ${options.blocks} BSC blocks of ${planner.txPerBlock} transactions`,
    );
    const minedAt = performance.now();
    let anvilPeakMiB = 0;
    let lapAt = minedAt;
    let lapFirst = 0;
    for (let i = 0; i < options.blocks; i++) {
      await sendAll(rpc, nonces.assign(planner.next()));
      await rpc.request('evm_mine');
      if (i % MINING_REPORT_EVERY === MINING_REPORT_EVERY - 1 || i === options.blocks - 1) {
        const rss = processUsage(anvil.pid)?.rssMiB ?? 0;
        anvilPeakMiB = Math.max(anvilPeakMiB, rss);
        const now = performance.now();
        progress(
          `chains catch-up: ${i + 1} blocks mined, ${round((now - lapAt) / (i + 1 - lapFirst), 0)} ms a block lately, Anvil ${Math.round(rss)} MiB`,
        );
        lapAt = now;
        lapFirst = i + 1;
        if (rss > ANVIL_RSS_LIMIT_MIB)
          throw new Error(`Anvil holds ${Math.round(rss)} MiB after ${i + 1} blocks: stopped`);
      }
    }
    const minedSeconds = (performance.now() - minedAt) / 1000;
    const last = first + options.blocks - 1;
    progress(`chains catch-up: mined in ${round(minedSeconds, 0)} s; raw RPC ceiling`);
    const loads = { mined: loadNow(), service: 0, end: 0 };
    const raw = await rawCeiling(anvil, first, last);

    progress('chains catch-up: the service from its cursor to the head');
    const chain: ChainConfig = {
      chainId: profile.chainId,
      name: profile.name,
      rpcUrls: [anvil.rpcUrl],
      confirmations: 0,
      startBlock: first,
      finalityDepth: FINALITY_DEPTH,
      pollIntervalMs: 100,
      wrappedNative: contracts.weth,
      stablecoins: [],
      dexes: [
        {
          name: 'uniswap-v2',
          kind: 'v2',
          factory: contracts.v2Factory,
          router: contracts.v2Router,
        },
        { name: 'uniswap-v3', kind: 'v3', factory: contracts.v3Factory },
      ],
      multicall3: CANONICAL_MULTICALL3,
      ephemeral: false,
    };
    const started = performance.now();
    const service = await startTestService({
      roles: ['worker', 'scanner'],
      database,
      redis,
      chain,
      poolMax: BENCH_POOL_MAX,
    });
    // The catch-up rate counts from the moment the service is up (its start, migrations and
    // workers, is a fixed cost, in the time back at the head but not in the rate).
    const startup = (performance.now() - started) / 1000;
    let atHead: number | undefined;
    let detected: number | undefined;
    let done: number | undefined;
    try {
      while (done === undefined) {
        await new Promise((r) => setTimeout(r, 100));
        const [cursor] = await db<{ next_block: string }[]>`
          select next_block from scan_cursors where chain_id = ${profile.chainId}`;
        if (atHead === undefined && cursor && Number(cursor.next_block) > last)
          atHead = (performance.now() - started) / 1000;
        const [row] = await db<{ n: number; analysed: number }[]>`
          select count(*)::int as n, count(bytecode_hash)::int as analysed from tokens
          where chain_id = ${profile.chainId}`;
        const now = (performance.now() - started) / 1000;
        if (detected === undefined && (row?.n ?? 0) >= raw.tokens) detected = now;
        if ((row?.analysed ?? 0) >= raw.tokens) done = now;
      }
    } finally {
      await service.stop();
    }
    loads.service = loadNow();
    // The raw reading again, after the service: on a shared host the load drifts within a run, and
    // the mean of a reading before and one after brackets the service's run fairly.
    progress('chains catch-up: raw RPC ceiling again');
    const rawAfter = await rawCeiling(anvil, first, last);
    loads.end = loadNow();
    const rawSeconds = (raw.seconds + rawAfter.seconds) / 2;
    const rawRate = options.blocks / rawSeconds;
    const rate = options.blocks / (done - startup);
    const note = `${options.blocks} BSC blocks (${round((options.blocks * profile.blockTimeMs) / 3_600_000, 2)} h of the chain), ${planner.txPerBlock} tx each, ${raw.tokens} tokens, payments to ${CATCH_UP_PAYEES} recurring payees; mined in ${round(minedSeconds, 0)} s, Anvil ${Math.round(anvilPeakMiB)} MiB after mining; one-minute load average ${loads.mined} after mining, ${loads.service} after the service, ${loads.end} at the end`;
    return [
      {
        suite: SUITE,
        metric: 'bsc catch-up: time back at the head',
        value: round(done, 1),
        unit: 's',
        baseline: {
          metric: 'the chain time it covers',
          value: round((options.blocks * profile.blockTimeMs) / 1000, 0),
          ratio: done / ((options.blocks * profile.blockTimeMs) / 1000),
        },
        note: `${note}; every token of the blocks detected and through bytecode (the service was up after ${round(startup, 1)} s, the scanner's cursor passed the last block after ${round(atHead ?? done, 1)} s, every token was recorded after ${round(detected ?? done, 1)} s)`,
      },
      {
        suite: SUITE,
        metric: 'bsc catch-up blocks/s (scan → detect → bytecode)',
        value: round(rate),
        unit: 'blocks/s',
        baseline: {
          metric: 'raw RPC blocks/s over the same blocks (mean of a pass before and after)',
          value: round(rawRate),
          ratio: rate / rawRate,
        },
        note: `${note}; from the service being up to every token's bytecode; raw passes ${round(options.blocks / raw.seconds)} and ${round(options.blocks / rawAfter.seconds)} blocks/s`,
      },
    ];
  } finally {
    await db.end();
    await anvil.stop();
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}
