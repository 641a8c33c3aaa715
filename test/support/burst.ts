import { ContractFactory, type InterfaceAbi } from 'ethers';
import postgres from 'postgres';
import { type ContractName, loadArtifact } from '../../contracts/artifacts.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { subscribeNewHeads } from '../../infra/rpc/index.ts';
import { CANONICAL_MULTICALL3, type ChainConfig } from '../../src/config/chains.ts';
import { startTestChain, type TestChain } from './chain.ts';
import { startTestService } from './service.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from './services.ts';

/**
 * The back-pressure scenario: one chain, the service with every role in one process,
 * a steady trickle of one token per block before and during a burst of hundreds of tokens in a
 * few dozen blocks. It records when each block was first seen (newHeads), when each token's
 * `token.created` entered the event stream (the stream entry's id is its time), when each token's
 * risk stage finished, and `/ready` and `/metrics` sampled while the backlog lasts. The burst test
 * (test/e2e/burst.test.ts) asserts on what happened; the `burst` bench suite reports the timings.
 */

/** The token kinds of the trickle and the burst: each constructor takes (name, symbol, supply). */
const KINDS: readonly ContractName[] = [
  'SimpleToken',
  'MintableToken',
  'PausableToken',
  'BlacklistToken',
  'HoneypotToken',
  'RenouncedToken',
];
const SUPPLY = 10n ** 27n;
/** Gas of one deployment, given so that the node estimates nothing. */
const DEPLOY_GAS = 4_000_000n;
/** Room for a burst block: a few hundred deployments fit in one. */
const ANVIL_ARGS = ['--gas-limit', '2000000000', '--disable-code-size-limit'];
const BLOCK_SECONDS = 1;
const POLL_MS = 250;
const WARM_UP_BLOCKS = 5;
/** The analysis queues whose backlog the scenario watches. */
export const ANALYSIS_QUEUES = ['bytecode', 'selectors'] as const;

export interface BurstOptions {
  /** Tokens of the burst (the issue: 500). */
  burstTokens: number;
  /** Blocks the burst is spread over, one per second (the issue: within a minute). */
  burstBlocks: number;
  /** Seconds of trickle alone before the burst. */
  beforeSeconds: number;
  /**
   * Blocks of a burst block's size sent one at a time before the burst, each analysed before the
   * next: the baseline of the burst's own blocks, the same block without a backlog (default 0).
   * One more goes first, not timed: the first big block a fresh service sees also compiles and
   * prepares what big blocks need (JIT, prepared statements), which no burst block pays.
   */
  bigBlocksBefore?: number;
  /** How long the backlog may take to drain before the scenario gives up. */
  drainTimeoutMs: number;
  /** Database pool of the service (tests: small; bench: production-sized). */
  poolMax?: number;
  /** ANALYSIS_THREADS of the service (absent: its default). */
  analysisThreads?: number;
  /**
   * How the service runs; default: every role in this process (startTestService). The bench
   * also runs it as separate processes (bench/suites/burst.ts).
   */
  start?: (setup: ServiceSetup) => Promise<RunningService>;
  onProgress?: (message: string) => void;
}

export interface ServiceSetup {
  database: TestDatabase;
  redis: TestRedis;
  chain: ChainConfig;
  poolMax?: number;
  /** ANALYSIS_THREADS of the service (absent: its default). */
  analysisThreads?: number;
}

export interface RunningService {
  /** Where `/ready` and `/metrics` answer. */
  base: string;
  stop(): Promise<void>;
}

async function inProcess(setup: ServiceSetup): Promise<RunningService> {
  const service = await startTestService({
    roles: ['scanner', 'worker', 'api'],
    database: setup.database,
    redis: setup.redis,
    chain: setup.chain,
    ...(setup.poolMax ? { poolMax: setup.poolMax } : {}),
    ...(setup.analysisThreads !== undefined ? { analysisThreads: setup.analysisThreads } : {}),
  });
  return { base: service.url!, stop: service.stop };
}

/**
 * `warm-up`: the trickle's first blocks, while the service's caches and JIT warm, and the first
 * block of a burst block's size (not timed).
 * `big-alone`: the blocks of a burst block's size sent before the burst (their trickle token);
 * `settling`: the blocks while such a block's tokens are analysed (not timed).
 */
export type Phase = 'warm-up' | 'before' | 'big-alone' | 'settling' | 'during' | 'after';

export interface SentToken {
  address: string;
  block: number;
  /** The trickle's, the burst's, or a block's of the burst's size sent alone before it. */
  kind: 'steady' | 'burst' | 'alone';
  /** The trickle's tokens: which part of the run their block belongs to. */
  phase: Phase;
}

export interface BacklogSample {
  at: number;
  readyStatus: number;
  ready: string | undefined;
  /** `/ready`'s waiting jobs and oldest waiting age, summed and maxed over the analysis queues. */
  readyWaiting: number;
  readyOldestSeconds: number;
  /** The same from `/metrics` (`tm_queue_jobs` waiting + prioritized, `tm_queue_oldest_waiting_seconds`). */
  metricsWaiting: number;
  metricsOldestSeconds: number;
}

export interface BurstRun {
  tokens: SentToken[];
  /** Block number → when it was first seen (ms, wall clock). */
  seen: Map<number, number>;
  /** Address → when its (first) token.created entered the stream (ms), and how many there were. */
  created: Map<string, { at: number; count: number }>;
  /** Address → when its risk stage finished (ms), from the tokens table. */
  riskAt: Map<string, number>;
  samples: BacklogSample[];
  /** First burst block, and the last block before the backlog had drained. */
  burstFromBlock: number;
  drainedAtBlock: number;
  /** When the burst's first block was seen, and when every token had been analysed (ms). */
  burstStartedAt: number;
  drainedAt: number;
}

/** block → token.created (ms) of the trickle's tokens in `phase` (and blocks `where` accepts), sorted. */
export function detectionLatencies(
  run: BurstRun,
  phase: Phase,
  where: (block: number) => boolean = () => true,
): number[] {
  return run.tokens
    .filter((t) => t.kind === 'steady' && t.phase === phase && where(t.block))
    .flatMap((t) => {
      const created = run.created.get(t.address)?.at;
      const seen = run.seen.get(t.block);
      return created === undefined || seen === undefined ? [] : [Math.max(0, created - seen)];
    })
    .sort((a, b) => a - b);
}

async function rpcBatch(url: string, calls: { method: string; params: unknown[] }[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))),
  });
  const answers = (await res.json()) as {
    id: number;
    result?: unknown;
    error?: { message: string };
  }[];
  return answers
    .sort((a, b) => a.id - b.id)
    .map((a) => {
      if (a.error) throw new Error(`${calls[a.id]!.method}: ${a.error.message}`);
      return a.result;
    });
}

const rpcCall = async <T>(url: string, method: string, params: unknown[] = []) =>
  (await rpcBatch(url, [{ method, params }]))[0] as T;

/** Deployment data of every kind, once: a token's name only changes its constructor arguments. */
async function deployData(kind: ContractName, n: number): Promise<string> {
  const artifact = loadArtifact(kind);
  const tx = await new ContractFactory(
    artifact.abi as InterfaceAbi,
    artifact.bytecode,
  ).getDeployTransaction(`Burst ${kind} ${n}`, `B${n}`, SUPPLY);
  return tx.data;
}

/** Sums a Prometheus gauge's samples whose labels match. */
function gauge(text: string, name: string, match: (labels: string) => boolean): number[] {
  const values: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.indexOf('}');
    if (match(line.slice(name.length + 1, close))) values.push(Number(line.slice(close + 2)));
  }
  return values;
}

const isAnalysisQueue = (labels: string) =>
  ANALYSIS_QUEUES.some((q) => labels.includes(`queue="${q}"`));

async function sample(base: string): Promise<BacklogSample> {
  const at = Date.now();
  const [ready, metrics] = await Promise.all([fetch(`${base}/ready`), fetch(`${base}/metrics`)]);
  const body = (await ready.json()) as {
    status?: string;
    backlog?: Record<string, { waiting: number; oldest_waiting_seconds: number }>;
  };
  const text = await metrics.text();
  const queues = ANALYSIS_QUEUES.map((q) => body.backlog?.[q]);
  return {
    at,
    readyStatus: ready.status,
    ready: body.status,
    readyWaiting: queues.reduce((n, q) => n + (q?.waiting ?? 0), 0),
    readyOldestSeconds: Math.max(0, ...queues.map((q) => q?.oldest_waiting_seconds ?? 0)),
    metricsWaiting: gauge(
      text,
      'tm_queue_jobs',
      (l) => isAnalysisQueue(l) && /state="(waiting|prioritized)"/.test(l),
    ).reduce((a, b) => a + b, 0),
    metricsOldestSeconds: Math.max(
      0,
      ...gauge(text, 'tm_queue_oldest_waiting_seconds', isAnalysisQueue),
    ),
  };
}

/** The block a transaction was mined in, waiting a few blocks for it. */
async function minedBlock(
  url: string,
  hash: string,
  nextHead: (after: number) => Promise<number>,
): Promise<number> {
  let at = 0;
  for (let tries = 0; tries < 5; tries++) {
    const r = await rpcCall<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [
      hash,
    ]);
    if (r) return Number(r.blockNumber);
    at = await nextHead(at);
  }
  throw new Error(`deployment ${hash} was not mined within 5 blocks`);
}

/** Waits until the tokens these deployments created are through the risk stage. */
async function analysedAll(
  sql: postgres.Sql,
  chainId: number,
  url: string,
  hashes: readonly string[],
  nextHead: (after: number) => Promise<number>,
  timeoutMs: number,
): Promise<void> {
  await minedBlock(url, hashes[hashes.length - 1]!, nextHead);
  const receipts = (await rpcBatch(
    url,
    hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
  )) as { contractAddress: string }[];
  const addresses = receipts.map((r) => r.contractAddress.toLowerCase());
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await sql<{ analysed: number }[]>`
      select count(*)::int as analysed from tokens
      where chain_id = ${chainId} and address = any(${addresses}) and risk_updated_at is not null`;
    if ((row?.analysed ?? 0) >= addresses.length) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`${addresses.length} tokens of a block alone were not analysed in time`);
}

export async function runBurst(options: BurstOptions): Promise<BurstRun> {
  const say = options.onProgress ?? (() => {});
  let chain: TestChain | undefined;
  let database: TestDatabase | undefined;
  let redis: TestRedis | undefined;
  let service: RunningService | undefined;
  let sql: postgres.Sql | undefined;
  const stops: (() => void | Promise<void>)[] = [];
  try {
    chain = await startTestChain({ extraArgs: ANVIL_ARGS });
    [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    const url = chain.anvil.rpcUrl;
    const [steadySender, burstSender] = (await rpcCall<string[]>(url, 'eth_accounts')).slice(1, 3);
    const nonces = new Map<string, number>();
    for (const sender of [steadySender!, burstSender!])
      nonces.set(
        sender,
        Number(await rpcCall<string>(url, 'eth_getTransactionCount', [sender, 'pending'])),
      );
    // The set-up ran on automine; from now on the node mines a block a second, like a chain.
    // Multicall3 where every real chain has it: the DEX stage batches its reads through it.
    await rpcCall(url, 'anvil_setCode', [
      CANONICAL_MULTICALL3,
      loadArtifact('Multicall3').deployedBytecode,
    ]);
    const startBlock = Number(await rpcCall<string>(url, 'eth_blockNumber')) + 1;
    await rpcCall(url, 'evm_setAutomine', [false]);
    await rpcCall(url, 'evm_setIntervalMining', [BLOCK_SECONDS]);

    const seen = new Map<number, number>();
    let head = startBlock - 1;
    const heads = subscribeNewHeads(chain.anvil.wsUrl, (n) => {
      if (!seen.has(n)) seen.set(n, Date.now());
      head = Math.max(head, n);
    });
    stops.push(() => heads.close());
    const nextHead = async (after: number) => {
      while (head <= after) await new Promise((r) => setTimeout(r, 20));
      return head;
    };

    service = await (options.start ?? inProcess)({
      database,
      redis,
      chain: chain.chainConfig({
        wsUrl: chain.anvil.wsUrl,
        startBlock,
        multicall3: CANONICAL_MULTICALL3,
      }),
      poolMax: options.poolMax,
      analysisThreads: options.analysisThreads,
    });
    const base = service.base;

    // token.created as it enters the stream: the entry id is the time of the append.
    const created = new Map<string, { at: number; count: number }>();
    const reader = createRedis(redis.url, 'worker');
    let reading = true;
    const readLoop = (async () => {
      let last = '0';
      const key = keySpace(redis!.prefix).events;
      while (reading) {
        const answer = await reader.xread('BLOCK', 500, 'STREAMS', key, last);
        for (const [, entries] of answer ?? [])
          for (const [id, fields] of entries) {
            last = id;
            const field = (name: string) => fields[fields.indexOf(name) + 1];
            if (field('type') !== 'token.created') continue;
            const address = (JSON.parse(field('data')!) as { contract_address: string })
              .contract_address;
            const entry = created.get(address);
            if (entry) entry.count++;
            else created.set(address, { at: Number(id.split('-')[0]), count: 1 });
          }
      }
    })();
    stops.push(async () => {
      reading = false;
      await readLoop.catch(() => {});
      reader.disconnect();
    });

    // Every deployment the scenario sends, by transaction hash.
    const sent = new Map<string, { kind: SentToken['kind']; phase: Phase }>();
    let phase: Phase = 'before';
    const send = async (sender: string, kind: SentToken['kind'], count: number) => {
      const calls = [];
      for (let i = 0; i < count; i++) {
        const nonce = nonces.get(sender)!;
        nonces.set(sender, nonce + 1);
        calls.push({
          method: 'eth_sendTransaction',
          params: [
            {
              from: sender,
              nonce: `0x${nonce.toString(16)}`,
              gas: `0x${DEPLOY_GAS.toString(16)}`,
              data: await deployData(KINDS[(sent.size + i) % KINDS.length]!, sent.size + i),
            },
          ],
        });
      }
      const txPhase = phase;
      const hashes = (await rpcBatch(url, calls)) as string[];
      for (const hash of hashes) sent.set(hash, { kind, phase: txPhase });
      return hashes;
    };

    // The trickle: one token a block, from its own sender, until told to stop.
    let trickling = true;
    const trickle = (async () => {
      let at = head;
      while (trickling) {
        await send(steadySender!, 'steady', 1);
        at = await nextHead(at);
      }
    })();
    stops.push(async () => {
      trickling = false;
      await trickle.catch(() => {});
    });

    say(`burst: ${options.beforeSeconds} s of trickle alone`);
    await new Promise((r) => setTimeout(r, options.beforeSeconds * 1000));

    // Blocks of a burst block's size, one at a time, each analysed before the next.
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const bigBlocks = new Set<number>();
    let warmUpBigBlock = -1;
    /** The head once the last block sent alone was analysed: the blocks up to it are settling. */
    let lastSettled = -1;
    const perBlock = Math.ceil(options.burstTokens / options.burstBlocks);
    const bigBlocksAlone = options.bigBlocksBefore ?? 0;
    for (let b = bigBlocksAlone > 0 ? -1 : 0; b < bigBlocksAlone; b++) {
      say(
        b < 0
          ? `burst: a block of ${perBlock} tokens alone to warm up`
          : `burst: a block of ${perBlock} tokens alone (${b + 1} of ${bigBlocksAlone})`,
      );
      const hashes = await send(burstSender!, 'alone', perBlock);
      const minedIn = await minedBlock(url, hashes[0]!, nextHead);
      if (b < 0) warmUpBigBlock = minedIn;
      else bigBlocks.add(minedIn);
      await analysedAll(sql, chain.anvil.chainId, url, hashes, nextHead, options.drainTimeoutMs);
      lastSettled = head;
    }

    say(`burst: ${options.burstTokens} tokens over ${options.burstBlocks} blocks`);
    phase = 'during';
    const samples: BacklogSample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(await sample(base));
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();
    stops.push(async () => {
      sampling = false;
      await sampler.catch(() => {});
    });
    const burstFromBlock = head + 1;
    let at = head;
    for (let b = 0; b < options.burstBlocks; b++) {
      const count =
        Math.floor(((b + 1) * options.burstTokens) / options.burstBlocks) -
        Math.floor((b * options.burstTokens) / options.burstBlocks);
      await send(burstSender!, 'burst', count);
      at = await nextHead(at);
    }
    const burstStartedAt = seen.get(burstFromBlock) ?? Date.now();

    // Drained: every token sent up to the burst's last block has been through the risk stage (the
    // trickle goes on meanwhile, and its newest token is always a moment from analysed).
    // (The trickle's newest deployment may still be pending: a few blocks are waited for.)
    const upToBurst = [...sent.keys()];
    let backlogged: string[] = [];
    for (let tries = 0; tries < 5 && backlogged.length < upToBurst.length; tries++) {
      if (tries > 0) await nextHead(head);
      const landed = (await rpcBatch(
        url,
        upToBurst.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
      )) as ({ contractAddress: string } | null)[];
      backlogged = landed.flatMap((r) => (r ? [r.contractAddress.toLowerCase()] : []));
    }
    if (backlogged.length !== upToBurst.length)
      throw new Error('a deployment sent up to the burst was not mined within 5 blocks');
    const riskAt = new Map<string, number>();
    const deadline = Date.now() + options.drainTimeoutMs;
    let drainedAt: number | undefined;
    let drainedAtBlock = head;
    while (drainedAt === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const [row] = await sql<{ analysed: number }[]>`
        select count(*)::int as analysed from tokens
        where chain_id = ${chain.anvil.chainId} and address = any(${backlogged})
          and risk_updated_at is not null`;
      if ((row?.analysed ?? 0) >= backlogged.length) {
        drainedAt = Date.now();
        drainedAtBlock = head;
      }
    }
    phase = 'after';
    say('burst: backlog drained, a few blocks of trickle after it');
    await nextHead(head + 3);
    trickling = false;
    await trickle;
    sampling = false;
    await sampler;

    // Where each deployment landed.
    const hashes = [...sent.keys()];
    const receipts = (await rpcBatch(
      url,
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
    )) as ({ status: string; contractAddress: string; blockNumber: string } | null)[];
    const tokens: SentToken[] = [];
    const firstBigBlock = warmUpBigBlock >= 0 ? warmUpBigBlock : Math.min(...bigBlocks);
    receipts.forEach((r, i) => {
      if (r?.status !== '0x1') throw new Error(`deployment ${hashes[i]} not mined or reverted`);
      const { kind, phase: sentIn } = sent.get(hashes[i]!)!;
      const block = Number(r.blockNumber);
      // A trickle token sent just before the burst may land in its first block: its block says.
      const tokenPhase: Phase =
        kind === 'burst'
          ? 'during'
          : kind === 'alone'
            ? 'big-alone'
            : block < startBlock + WARM_UP_BLOCKS || block === warmUpBigBlock
              ? 'warm-up'
              : bigBlocks.has(block)
                ? 'big-alone'
                : block > firstBigBlock && block <= lastSettled
                  ? 'settling'
                  : block < burstFromBlock
                    ? 'before'
                    : block <= drainedAtBlock
                      ? 'during'
                      : sentIn === 'after'
                        ? 'after'
                        : 'during';
      tokens.push({ address: r.contractAddress.toLowerCase(), block, kind, phase: tokenPhase });
    });

    // The trickle's last tokens: their announcement and analysis.
    const settle = Date.now() + 30_000;
    while (Date.now() < settle) {
      const [row] = await sql<{ analysed: number }[]>`
        select count(*)::int as analysed from tokens
        where chain_id = ${chain.anvil.chainId} and risk_updated_at is not null`;
      if ((row?.analysed ?? 0) >= tokens.length && tokens.every((t) => created.has(t.address)))
        break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const rows = await sql<{ address: string; risk_updated_at: Date | null }[]>`
      select address, risk_updated_at from tokens where chain_id = ${chain.anvil.chainId}`;
    for (const r of rows) if (r.risk_updated_at) riskAt.set(r.address, r.risk_updated_at.getTime());

    return {
      tokens,
      seen,
      created,
      riskAt,
      samples,
      burstFromBlock,
      drainedAtBlock,
      burstStartedAt,
      drainedAt: drainedAt ?? Number.NaN,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
    await sql?.end({ timeout: 2 });
    await service?.stop();
    await chain?.stop();
    await Promise.all([database?.drop(), redis?.cleanup()]);
  }
}
