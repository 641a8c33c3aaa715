import { autoAnalysisThreads } from '../../infra/analysis-threads/index.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import {
  amountsFor,
  findPool,
  type Pool,
  simulationRequest,
} from '../../src/analysis/simulation/index.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startFaultProxy } from '../../test/support/protocol/fault-proxy.ts';
import {
  CORPUS_KIND_NAMES,
  type CorpusToken,
  deployCorpus,
} from '../../test/support/token-corpus.ts';
import { jobCatalog } from '../../workers/jobs.ts';
import { createKnownTokens } from '../../workers/known-tokens.ts';
import { scorePass } from '../../workers/risk.ts';
import { analyseCode } from '../../workers/selectors.ts';
import { simulateToken } from '../../workers/simulate.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';
import { detectedAs, pool, runPipeline, type WireTraffic } from './analysis-pipeline.ts';

export { accuracyTable } from './analysis-accuracy.ts';

/**
 * Analysis benchmarks. Throughput of the analysis stages (selectors → simulate → risk on BullMQ,
 * Postgres, Redis) over the corpus replicated to at least 1,000 tokens on Anvil, against two
 * baselines from the same run: the same analysis in process (no queues, no database) and the
 * raw cost of the simulation's eth_call. And precision/recall per flag on the corpus.
 */

const SUITE = 'analysis';
const MIN_TOKENS = 1_000;
/** The raw eth_call ceiling runs with the concurrency of the pipeline's analysis job. */
const BASELINE_CONCURRENCY = jobCatalog.selectors.concurrency;
/**
 * The in-process baseline runs at the analysis job's concurrency and at the former stages' (4);
 * the faster counts, so that the pipeline is compared with the best the same work does alone.
 */
const IN_PROCESS_CONCURRENCIES = [4, BASELINE_CONCURRENCY] as const;

/**
 * The same analysis in process: the stages' own work functions (selectors: `analyseCode`,
 * simulate: `simulateToken` with the behaviour and fee-setter probes and the creator's access
 * check, risk: `scorePass` with the look-alike check), minus queues and database: no creator
 * reputation or skeleton count, no holders report (the corpus has no tracked holders), no writes.
 */
async function inProcess(
  chain: TestChain,
  corpus: CorpusToken[],
  rpcUrl = chain.anvil.rpcUrl,
  concurrency: number = BASELINE_CONCURRENCY,
): Promise<{ seconds: number; perToken: number[]; concurrency: number }> {
  const rpc = createRpcClient({ urls: [rpcUrl] });
  const lane = { rpc, reader: createChainReader(rpc) };
  const config = chain.chainConfig();
  // Once per process, as the risk stage reads them.
  const knownTokens = createKnownTokens();
  const perToken: number[] = [];
  const started = performance.now();
  await pool(corpus, concurrency, async (t) => {
    const t0 = performance.now();
    const detected = detectedAs(chain, t);
    const code = await lane.reader.code(t.address, 'latest');
    const { analysis, codeFacts, owner } = await analyseCode(lane, {
      chainId: detected.chainId,
      address: t.address,
      code,
    });
    const { report, behaviour } = await simulateToken(rpc, {
      config,
      address: t.address,
      analysis,
      token: detected,
      // The pipeline's V4 candidates are the recorded pools: the corpus records none.
      v4: [],
    });
    scorePass({
      config,
      address: t.address,
      details: {
        static: analysis,
        explorer: { verified: false },
        code_facts: codeFacts,
        simulation: report,
        behaviour,
      },
      token: {
        ...detected,
        ownerAddress: owner,
        tradingSimulation: report,
        securityHints: null,
      },
      creator: null,
      similarHoneypots: 0,
      liquidity: null,
      report: null,
      known: await knownTokens(config, rpc),
    });
    perToken.push(performance.now() - t0);
  });
  return { seconds: (performance.now() - started) / 1000, perToken, concurrency };
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
 * JSON-RPC calls per token, counted by a proxy in front of the node (test/support/protocol/rpc-proxy.ts)
 * on a sample of every corpus kind: in process and through the pipeline. Counted apart from the
 * timed runs, so the proxy's extra hop costs them nothing.
 */
async function callsPerToken(
  chain: TestChain,
  sample: CorpusToken[],
): Promise<{ inProcess: RpcCount; pipeline: RpcCount; fullPass: RpcCount; wire: WireTraffic }> {
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
  let wire: WireTraffic | undefined;
  return {
    inProcess: await count((url) => inProcess(chain, sample, url)),
    pipeline: await count(async (url) => {
      ({ wire } = await runPipeline(chain, sample, {
        rpcUrl: url,
        analysisOnly: true,
        countWire: true,
      }));
    }),
    fullPass: await count((url) => runPipeline(chain, sample, { rpcUrl: url })),
    wire: wire!,
  };
}

interface RpcCount {
  perToken: number;
  roundTrips: number;
  breakdown: string;
}

/** What one run measured, as rows. */
interface Measured {
  n: number;
  replicas: number;
  raw: { seconds: number; calls: number };
  direct: { seconds: number; perToken: number[]; concurrency: number };
  piped: { seconds: number };
  /** The same passes with the analysis threads (ANALYSIS_THREADS). */
  threaded: { seconds: number };
  full: { seconds: number };
  calls: { inProcess: RpcCount; pipeline: RpcCount; fullPass: RpcCount; wire: WireTraffic };
  sample: number;
}

/** The worker's Postgres and Redis round trips per token of an analysis pass. */
function wireRows({ calls, sample }: Measured): BenchRow[] {
  const per = (n: number) => round(n / sample, 1);
  const { postgres, redis } = calls.wire;
  return [
    {
      suite: SUITE,
      metric: 'Postgres round trips per token (pipeline)',
      value: per(postgres.roundTrips),
      unit: 'round trips',
      note: `selectors → simulate → risk, the worker role with its alerts consumer, counted by a proxy on ${sample} tokens (every kind twice); statements per token ${per(postgres.requests)} (BEGIN and COMMIT included; statements pipelined in one write are one round trip)`,
    },
    {
      suite: SUITE,
      metric: 'Redis round trips per token (pipeline)',
      value: per(redis.roundTrips),
      unit: 'round trips',
      note: `BullMQ, the event stream, the token cache's version and the alerts consumer; commands per token ${per(redis.requests)}; the workers' blocking waits for jobs included`,
    },
  ];
}

function throughputRows(measured: Measured): BenchRow[] {
  const { n, replicas, raw, direct, piped, threaded, full, calls } = measured;
  const rawPerSecond = raw.calls / raw.seconds;
  const sorted = [...direct.perToken].sort((a, b) => a - b);
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
      note: `selectors → simulate → risk; batched entries counted one by one (HTTP round trips per token: pipeline ${round(calls.pipeline.roundTrips, 1)}, in process ${round(calls.inProcess.roundTrips, 1)}); per method: ${calls.pipeline.breakdown}`,
    },
    {
      suite: SUITE,
      metric: 'JSON-RPC calls per token (whole pass, DEX stage included)',
      value: round(calls.fullPass.perToken, 1),
      unit: 'calls',
      baseline: {
        metric: 'analysis stages calls per token',
        value: round(calls.pipeline.perToken, 1),
        ratio: calls.fullPass.perToken / calls.pipeline.perToken,
      },
      note: `the DEX stage's reads and, on first liquidity, a second simulate → risk; HTTP round trips per token ${round(calls.fullPass.roundTrips, 1)}; per method: ${calls.fullPass.breakdown}`,
    },
    ...wireRows(measured),
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
      note: `${n} tokens (${CORPUS_KIND_NAMES.length} kinds ×${replicas}), each with a V2 pool; passes that end at risk, like the baseline; the static analysis on the event loop, like the baseline (ANALYSIS_THREADS=0)`,
    },
    {
      suite: SUITE,
      metric: 'analysis tokens/s with the analysis threads (selectors → simulate → risk)',
      value: round(n / threaded.seconds),
      unit: 'tokens/s',
      baseline: {
        metric: 'in-process analysis tokens/s',
        value: round(n / direct.seconds),
        ratio: direct.seconds / threaded.seconds,
      },
      note: `the same passes with the static analysis in ${autoAnalysisThreads()} worker thread(s) at nice 10 (ANALYSIS_THREADS, infra/analysis-threads/)`,
    },
    {
      suite: SUITE,
      metric: 'whole-pass tokens/s (… → risk → dex → first-liquidity simulate → risk)',
      value: round(n / full.seconds),
      unit: 'tokens/s',
      baseline: {
        metric: 'in-process analysis tokens/s',
        value: round(n / direct.seconds),
        ratio: direct.seconds / full.seconds,
      },
      note: 'time until every token reached risk; the DEX stage and the second simulate → risk of first liquidity run beside the analysis',
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
      note: `concurrency ${direct.concurrency}, the faster of ${IN_PROCESS_CONCURRENCIES.join(' and ')}`,
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
    const runs = [];
    for (const c of IN_PROCESS_CONCURRENCIES)
      runs.push(await inProcess(chain, corpus, undefined, c));
    const direct = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    progress('pipeline: selectors → simulate → risk on BullMQ + Postgres');
    const piped = await runPipeline(chain, corpus, { analysisOnly: true });
    progress('pipeline again, the static analysis in its threads');
    const threaded = await runPipeline(chain, corpus, {
      analysisOnly: true,
      analysisThreads: autoAnalysisThreads(),
    });
    progress('pipeline: the whole pass of a detected token, DEX stage included');
    const full = await runPipeline(chain, corpus);
    const n = corpus.length;
    progress('JSON-RPC calls per token, counted on two tokens of every kind');
    const sample = CORPUS_KIND_NAMES.flatMap((_, k) => [
      corpus[k]!,
      corpus[k + CORPUS_KIND_NAMES.length] ?? corpus[k]!,
    ]);
    const distinct = [...new Set(sample)];
    const calls = await callsPerToken(chain, distinct);
    return throughputRows({
      n,
      replicas,
      raw,
      direct,
      piped,
      threaded,
      full,
      calls,
      sample: distinct.length,
    });
  } finally {
    await chain.stop();
  }
}
