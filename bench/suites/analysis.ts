import { and, eq, sql } from 'drizzle-orm';
import { startService } from '../../app/service.ts';
import { createDb } from '../../db/client.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { tokens } from '../../db/schema.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';
import { probeAdminBehaviour } from '../../src/analysis/behaviour.ts';
import { assessRisk } from '../../src/analysis/risk.ts';
import {
  amountsFor,
  findPool,
  type Pool,
  simulateTrading,
  simulationRequest,
} from '../../src/analysis/simulation.ts';
import { analyzeStatic } from '../../src/analysis/static.ts';
import { isTrusted } from '../../src/analysis/trust.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { createRpcClient } from '../../src/evm/rpc.ts';
import { passFor } from '../../src/run-key.ts';
import { score } from '../../test/support/backdoors.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startFaultProxy } from '../../test/support/fault-proxy.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import {
  CORPUS_KIND_NAMES,
  type CorpusToken,
  deployCorpus,
  FLAGS,
  flagScores,
  observedFlags,
} from '../../test/support/token-corpus.ts';
import { createProducer } from '../../workers/queues.ts';
import { privilegedCallers } from '../../workers/simulate.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Analysis benchmarks. Throughput of the analysis stages (selectors → simulate → risk on BullMQ,
 * Postgres, Redis) over the corpus replicated to at least 1,000 tokens on Anvil, against two
 * baselines from the same run: the same analysis in process (no queues, no database) and the
 * raw cost of the simulation's eth_call. And precision/recall per flag on the corpus.
 */

const SUITE = 'analysis';
const MIN_TOKENS = 1_000;
/** The in-process baseline runs with the selectors/simulate stages' concurrency. */
const BASELINE_CONCURRENCY = 4;
const PIPELINE_TIMEOUT_MS = 30 * 60_000;

type Row = typeof tokens.$inferSelect;

async function pool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** Records the tokens as detected, enqueues the selectors stage for all, and waits for risk. */
async function runPipeline(
  chain: TestChain,
  corpus: CorpusToken[],
  rpcUrl?: string,
): Promise<{ seconds: number; rows: Map<string, Row> }> {
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const db = createDb(database.url, { max: 2 });
  try {
    const repo = createTokenRepository(db.db);
    for (const t of corpus) {
      await repo.upsertDetected({
        chainId: chain.anvil.chainId,
        address: t.address,
        name: t.kind,
        symbol: 'C',
        decimals: 18,
        totalSupply: '0',
        creationTxHash: null,
        creator: chain.account,
        creatorIsContract: false,
        txOrigin: chain.account,
        creationBlockNumber: null,
        creationBlockHash: null,
        creationTimestamp: new Date(),
        creationGasUsed: null,
        detectionSource: 'submitted',
      });
    }
    const service = await startService({
      roles: new Set(['worker']),
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      chains: [chain.chainConfig(rpcUrl ? { rpcUrls: [rpcUrl] } : {})],
      knownChainIds: new Set([chain.anvil.chainId]),
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: database.embedded ? 1 : 10,
    });
    const connection = createRedis(redis.url, 'producer');
    const producer = createProducer(connection, redis.prefix);
    const started = performance.now();
    await producer.enqueueBulk(
      'selectors',
      corpus.map((t) => ({
        chainId: chain.anvil.chainId,
        address: t.address,
        ...passFor({ kind: 'detected' }),
      })),
    );
    let done = 0;
    let lastReport = 0;
    while (done < corpus.length) {
      if (performance.now() - started > PIPELINE_TIMEOUT_MS)
        throw new Error(`pipeline: ${done}/${corpus.length} after ${PIPELINE_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
      const [row] = await db.db
        .select({ n: sql<number>`count(*)::int` })
        .from(tokens)
        .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.stage, 'risk')));
      done = row?.n ?? 0;
      if (done - lastReport >= 100) {
        lastReport = done;
        progress(`pipeline: ${done}/${corpus.length} tokens through risk`);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    await service.stop();
    await producer.close();
    connection.disconnect();
    const rows = await db.db.select().from(tokens).where(eq(tokens.chainId, chain.anvil.chainId));
    return { seconds, rows: new Map(rows.map((r) => [r.address, r])) };
  } finally {
    await db.close();
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}

/** The same analysis in process: static analysis, simulation, behaviour probes, score. */
async function inProcess(
  chain: TestChain,
  corpus: CorpusToken[],
  rpcUrl = chain.anvil.rpcUrl,
): Promise<{ seconds: number; perToken: number[] }> {
  const rpc = createRpcClient({ urls: [rpcUrl] });
  const reader = createChainReader(rpc);
  const config = chain.chainConfig();
  const perToken: number[] = [];
  const started = performance.now();
  await pool(corpus, BASELINE_CONCURRENCY, async (t) => {
    const t0 = performance.now();
    const code = await reader.code(t.address, 'latest');
    const analysis = await analyzeStatic(
      { rpc, reader },
      { chainId: chain.anvil.chainId, address: t.address, code },
    );
    const { report, pool: p } = await simulateTrading(rpc, { chain: config, token: t.address });
    const behaviour = p
      ? await probeAdminBehaviour(rpc, {
          token: t.address,
          pool: p,
          functions: analysis.functions,
          catalogued: new Set(analysis.admin_functions.map((f) => f.selector)),
          callers: privilegedCallers(analysis, undefined).concat({
            address: chain.account,
            role: 'creator',
          }),
          amountIn: amountsFor(p.nativeReserve)[0]!,
        })
      : null;
    assessRisk({
      trusted: isTrusted(config, t.address),
      static: analysis,
      behaviour: behaviour?.findings ?? [],
      simulation: report,
      similarHoneypots: 0,
    });
    perToken.push(performance.now() - t0);
  });
  return { seconds: (performance.now() - started) / 1000, perToken };
}

/** One TradeSimulator eth_call per token (the smallest amount): the floor of any honeypot test. */
async function rawSimulationCalls(
  chain: TestChain,
  corpus: CorpusToken[],
): Promise<{ seconds: number; calls: number }> {
  const rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  const config = chain.chainConfig();
  const pools: { token: string; pool: Pool }[] = [];
  for (const t of corpus) {
    const p = await findPool(rpc, config, t.address);
    if (p) pools.push({ token: t.address, pool: p });
  }
  const started = performance.now();
  await pool(pools, BASELINE_CONCURRENCY, async ({ token, pool: p }) => {
    const request = simulationRequest(p, token, amountsFor(p.nativeReserve)[0]!);
    await rpc.request(request.method, request.params);
  });
  return { seconds: (performance.now() - started) / 1000, calls: pools.length };
}

/**
 * JSON-RPC calls per token, counted by a proxy in front of the node (test/support/rpc-proxy.ts)
 * on a sample of every corpus kind: in process and through the pipeline. Counted apart from the
 * timed runs, so the proxy's extra hop costs them nothing.
 */
async function callsPerToken(
  chain: TestChain,
  sample: CorpusToken[],
): Promise<{ inProcess: RpcCount; pipeline: RpcCount }> {
  const count = async (run: (url: string) => Promise<unknown>): Promise<RpcCount> => {
    // The fault proxy without faults: it counts calls per method and HTTP round trips.
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      await run(proxy.url);
      const total = [...proxy.calls.values()].reduce((a, b) => a + b, 0);
      const top = [...proxy.calls]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([m, n]) => `${m} ${round(n / sample.length, 1)}`)
        .join(', ');
      return {
        perToken: total / sample.length,
        roundTrips: proxy.forwarded() / sample.length,
        breakdown: top,
      };
    } finally {
      await proxy.close();
    }
  };
  return {
    inProcess: await count((url) => inProcess(chain, sample, url)),
    pipeline: await count((url) => runPipeline(chain, sample, url)),
  };
}

interface RpcCount {
  perToken: number;
  roundTrips: number;
  breakdown: string;
}

export async function analysisThroughput(options: { tokens?: number } = {}): Promise<BenchRow[]> {
  const wanted = Math.max(options.tokens ?? MIN_TOKENS, 1);
  const replicas = Math.ceil(wanted / CORPUS_KIND_NAMES.length);
  const chain = await startTestChain();
  try {
    progress(
      `deploying the corpus ×${replicas} (${replicas * CORPUS_KIND_NAMES.length} tokens with liquidity)`,
    );
    const corpus = await deployCorpus(chain, {
      replicas,
      onProgress: (n) => n % 100 === 0 && progress(`deployed ${n}`),
    });
    progress('raw simulation eth_call baseline');
    const raw = await rawSimulationCalls(chain, corpus);
    progress('in-process analysis baseline (no queues, no database)');
    const direct = await inProcess(chain, corpus);
    progress('pipeline: selectors → simulate → risk on BullMQ + Postgres');
    const piped = await runPipeline(chain, corpus);
    const n = corpus.length;
    const sorted = [...direct.perToken].sort((a, b) => a - b);
    progress('JSON-RPC calls per token, counted on two tokens of every kind');
    const sample = CORPUS_KIND_NAMES.flatMap((_, k) => [
      corpus[k]!,
      corpus[k + CORPUS_KIND_NAMES.length] ?? corpus[k]!,
    ]);
    const calls = await callsPerToken(chain, [...new Set(sample)]);
    const rawPerSecond = raw.calls / raw.seconds;
    return [
      {
        suite: SUITE,
        metric: 'JSON-RPC calls per token (pipeline)',
        value: round(calls.pipeline.perToken, 1),
        unit: 'calls',
        baseline: {
          metric: 'in-process analysis calls per token',
          value: round(calls.inProcess.perToken, 1),
          ratio: calls.pipeline.perToken / calls.inProcess.perToken,
        },
        note: `batched entries counted one by one (HTTP round trips per token: pipeline ${round(calls.pipeline.roundTrips, 1)}, in process ${round(calls.inProcess.roundTrips, 1)}); per method: ${calls.pipeline.breakdown}`,
      },
      {
        suite: SUITE,
        metric: 'analysis tokens/s beside the raw eth_call ceiling',
        value: round(n / piped.seconds),
        unit: 'tokens/s',
        baseline: {
          metric: 'raw eth_calls/s',
          value: round(rawPerSecond),
          ratio: n / piped.seconds / rawPerSecond,
        },
        note: `at ${round(calls.pipeline.perToken, 1)} calls per token the ceiling allows ${round(rawPerSecond / calls.pipeline.perToken)} tokens/s`,
      },
      {
        suite: SUITE,
        metric: 'analysis tokens/s (selectors → simulate → risk)',
        value: round(n / piped.seconds),
        unit: 'tokens/s',
        baseline: {
          metric: 'in-process analysis tokens/s',
          value: round(n / direct.seconds),
          ratio: direct.seconds / piped.seconds,
        },
        note: `${n} tokens (${CORPUS_KIND_NAMES.length} kinds ×${replicas}), each with a V2 pool`,
      },
      {
        suite: SUITE,
        metric: 'in-process analysis tokens/s',
        value: round(n / direct.seconds),
        unit: 'tokens/s',
        baseline: {
          metric: 'raw simulation eth_calls/s',
          value: round(raw.calls / raw.seconds),
          ratio: n / direct.seconds / (raw.calls / raw.seconds),
        },
        note: `concurrency ${BASELINE_CONCURRENCY}`,
      },
      {
        suite: SUITE,
        metric: 'in-process analysis per token, p50',
        value: round(percentile(sorted, 50)),
        unit: 'ms',
      },
      {
        suite: SUITE,
        metric: 'in-process analysis per token, p99',
        value: round(percentile(sorted, 99)),
        unit: 'ms',
      },
    ];
  } finally {
    await chain.stop();
  }
}

/** Precision and recall of every flag on the corpus (each kind `replicas` times), through the real pipeline. */
export async function accuracyTable(options: { replicas?: number } = {}): Promise<BenchRow[]> {
  const chain = await startTestChain();
  try {
    progress('accuracy: deploying the corpus');
    const corpus = await deployCorpus(chain, { replicas: options.replicas ?? 1 });
    const { rows } = await runPipeline(chain, corpus);
    const results = corpus.map((t) => ({
      truth: t.truth,
      observed: observedFlags(rows.get(t.address)!),
    }));
    const scores = flagScores(results);
    const out: BenchRow[] = [];
    for (const s of scores) {
      const support = `${s.tp + s.fn} of ${corpus.length} tokens have it; tp ${s.tp}, fp ${s.fp}, fn ${s.fn}`;
      out.push({
        suite: 'accuracy',
        metric: `${s.flag} precision`,
        value: round(s.precision, 3),
        unit: 'ratio',
        note: support,
      });
      out.push({
        suite: 'accuracy',
        metric: `${s.flag} recall`,
        value: round(s.recall, 3),
        unit: 'ratio',
      });
      const f1 =
        s.precision + s.recall === 0 ? 0 : (2 * s.precision * s.recall) / (s.precision + s.recall);
      out.push({ suite: 'accuracy', metric: `${s.flag} F1`, value: round(f1, 3), unit: 'ratio' });
    }
    // The three owner capabilities of the real-world study, on the project's own corpus.
    const capability = {
      mint: (f: Record<string, boolean>) => f.mintable === true,
      leak: (f: Record<string, boolean>) => f.balance_change === true,
      limit: (f: Record<string, boolean>) =>
        f.blacklist === true || f.pause === true || f.trading_restricted === true,
    };
    for (const [name, of] of Object.entries(capability)) {
      const s = score(
        name,
        results.map((r) => ({
          truth: of(r.truth as unknown as Record<string, boolean>),
          observed: of(r.observed),
        })),
      );
      const note = `tp ${s.tp}, fp ${s.fp}, fn ${s.fn} of ${corpus.length} tokens`;
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} precision`,
        value: round(s.precision, 3),
        unit: 'ratio',
        note,
      });
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} recall`,
        value: round(s.recall, 3),
        unit: 'ratio',
      });
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} F1`,
        value: round(s.f1, 3),
        unit: 'ratio',
      });
    }
    // Taxes: the largest absolute error against the contract's configured rate.
    let worst = 0;
    for (const t of corpus) {
      const sim = rows.get(t.address)!.tradingSimulation as {
        buy_tax_pct: number | null;
        sell_tax_pct: number | null;
      } | null;
      if (!sim || t.truth.trading_restricted) continue;
      if (sim.buy_tax_pct !== null)
        worst = Math.max(worst, Math.abs(sim.buy_tax_pct - t.truth.buy_tax_pct));
      if (sim.sell_tax_pct !== null && t.truth.sell_tax_pct !== null && !t.truth.honeypot)
        worst = Math.max(worst, Math.abs(sim.sell_tax_pct - t.truth.sell_tax_pct));
    }
    out.push({
      suite: 'accuracy',
      metric: 'tax error, worst (percentage points)',
      value: round(worst, 2),
      unit: 'pp',
      note: `${FLAGS.length} flags, ${corpus.length} tokens`,
    });
    return out;
  } finally {
    await chain.stop();
  }
}
