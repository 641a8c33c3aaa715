import { type Pass, type PassTrigger, passFor } from '../src/run-key.ts';
import type { JobData, JobInput, QueueName } from './jobs.ts';
import type { PassState } from './pass-state.ts';
import { inProcessProducer, type Producer } from './queues.ts';

/**
 * The pipeline's map: every stage, what it consumes, and what it may enqueue next under which
 * reason. Processors (workers/<stage>.ts) do their stage's work and hand their outcome to
 * `routeOutcome`; the routes below decide which jobs follow. No processor names the next queue
 * or mints a run key (src/run-key.ts does, from a typed trigger).
 *
 *   scanner ─block─▶ detect ─┬─ token ──▶ bytecode ─▶ selectors ─▶ simulate ─▶ risk ─┐
 *   replay ──range─▶ replay ─┤  'initial'              (no code: stop)              │
 *                            └─ pool of a known token ─▶ dex ◀── pipeline | manual ──┘
 *                               (liquidity, p<block>)   │
 *                                                       └─ first liquidity ─▶ simulate ─▶ risk
 *
 *   entries: analyze, POST …/refresh ─▶ bytecode (manual-<ms>; 'initial' for a new token)
 *            replay's hand-off of its recorded tokens ─▶ bytecode ('initial'; analysis trails)
 *            scheduler tick ─▶ dex and simulate (r<sec>)
 *            Service.resimulate ─▶ simulate (<reason>-<minute>)
 *
 * Loop-breaking rule: a pass started by the DEX stage (reason 'liquidity') or by the refresh
 * cadence ('refresh') ends at risk; only 'pipeline' and 'manual' passes continue to dex.
 *
 * Hops: simulate and risk run in the job of the stage before them (`chainStages`), so one job
 * does selectors → simulate → risk (or simulate → risk for a pass that starts at simulate). Each
 * stage still routes its outcome through this map; only the transport differs. Their queues stay
 * the entries of passes started there (first liquidity and `resimulate` start at simulate).
 *
 * Ordering: a processor routes its outcome before the write that would make a retry forget it
 * (the DEX stage routes first liquidity before its commit), so a crash in between repeats the
 * enqueue (deterministic job ids make that a no-op) and never loses it.
 */

// How far a token got (the `stage` column, which only moves forward) is ranked by STAGE_ORDER in
// src/stages.ts; `analyze` waits for `risk`, the last stage that moves it.

/** What each processor tells the map. */
export interface StageOutcomes {
  /** The block's new tokens, and the known tokens that got a pool from a configured factory. */
  /** `bornAt`: each new token's creation block timestamp (seconds), which orders its analysis. */
  detect: { tokens: string[]; pooledTokens: string[]; bornAt?: Readonly<Record<string, number>> };
  /** Per block of the range, the known tokens that got a pool (its tokens are handed off later). */
  replay: { pools: { blockNumber: number; pooledTokens: string[] }[] };
  bytecode: Record<string, never>;
  selectors: { hasCode: boolean };
  simulate: Record<string, never>;
  risk: Record<string, never>;
  dex: { firstLiquidity: boolean };
  accounts: Record<string, never>;
}
export type RoutedStage = keyof StageOutcomes;

/** One job to enqueue. */
export type NextJob = { [N in QueueName]: { queue: N; data: JobInput<N> } }[QueueName];

type Token = { chainId: number; address: string };
const tokenPass = (token: Token, pass: Pass) => ({
  chainId: token.chainId,
  address: token.address,
  ...pass,
});
/** The same pass, one stage further (the run key and reason travel unchanged). */
const samePass = (data: JobData<'selectors'>) => ({ ...data });

function afterBlock(
  data: { chainId: number; blockNumber: number },
  outcome: StageOutcomes['detect'],
): NextJob[] {
  const detected = passFor({ kind: 'detected' });
  const pooled = passFor({ kind: 'pool-created', blockNumber: data.blockNumber });
  return [
    ...outcome.tokens.map(
      (address): NextJob => ({
        queue: 'bytecode',
        data: {
          ...tokenPass({ chainId: data.chainId, address }, detected),
          ...(outcome.bornAt?.[address] === undefined ? {} : { bornAt: outcome.bornAt[address] }),
        },
      }),
    ),
    ...outcome.pooledTokens.map(
      (address): NextJob => ({
        queue: 'dex',
        data: tokenPass({ chainId: data.chainId, address }, pooled),
      }),
    ),
  ];
}

interface StageEntry<S extends RoutedStage> {
  consumes: string;
  mayEnqueue: readonly QueueName[];
  next(data: JobData<S>, outcome: StageOutcomes[S]): NextJob[];
}

export const pipeline: { [S in RoutedStage]: StageEntry<S> } = {
  detect: {
    consumes: 'a live block (chain, number, hash) from the scanner',
    mayEnqueue: ['bytecode', 'dex'],
    next: afterBlock,
  },
  replay: {
    consumes:
      'a range of final historical blocks from `token-monitor replay`; the detect code, batched',
    mayEnqueue: ['dex'],
    next: (data, outcome) =>
      outcome.pools.flatMap((p) =>
        afterBlock(
          { chainId: data.chainId, blockNumber: p.blockNumber },
          { tokens: [], pooledTokens: p.pooledTokens },
        ),
      ),
  },
  bytecode: {
    consumes: 'a token pass: runtime code → hash, length, proxy hint',
    mayEnqueue: ['selectors'],
    next: (data) => [{ queue: 'selectors', data: samePass(data) }],
  },
  selectors: {
    consumes: 'a token pass: static analysis of the runtime code',
    mayEnqueue: ['simulate'],
    // Self-destructed or never a contract: nothing to simulate.
    next: (data, outcome) => (outcome.hasCode ? [{ queue: 'simulate', data: samePass(data) }] : []),
  },
  simulate: {
    consumes: 'a token pass: honeypot simulation and behaviour probes',
    mayEnqueue: ['risk'],
    next: (data) => [{ queue: 'risk', data: samePass(data) }],
  },
  risk: {
    consumes: 'a token pass: score, level, factors, hints and alerts',
    mayEnqueue: ['dex'],
    next: (data) =>
      data.reason === 'pipeline' || data.reason === 'manual'
        ? [{ queue: 'dex', data: samePass(data) }]
        : [],
  },
  dex: {
    consumes: 'a token pass or refresh: pools, price, liquidity, volume, lock',
    mayEnqueue: ['simulate'],
    next: (data, outcome) =>
      outcome.firstLiquidity
        ? [{ queue: 'simulate', data: tokenPass(data, passFor({ kind: 'first-liquidity' })) }]
        : [],
  },
  accounts: {
    consumes:
      'the scheduler’s maintenance tick (plan downgrades and purges), or a plan change’s emails',
    mayEnqueue: [],
    next: () => [],
  },
};

/**
 * Enqueues what follows `outcome` of stage `stage` for job `data` (one round trip per queue). The
 * pass's `state` goes with a single job that runs in process (`handsOnInProcess`), never to Redis.
 */
export async function routeOutcome<S extends RoutedStage>(
  producer: Producer,
  stage: S,
  data: JobData<S>,
  outcome: StageOutcomes[S],
  state?: PassState,
): Promise<void> {
  const jobs = pipeline[stage].next(data, outcome);
  const byQueue = new Map<QueueName, JobInput<QueueName>[]>();
  for (const job of jobs) byQueue.set(job.queue, [...(byQueue.get(job.queue) ?? []), job.data]);
  for (const [queue, data] of byQueue) {
    if (data.length === 1) await producer.enqueue(queue, data[0]!, state ? { state } : {});
    else await producer.enqueueBulk(queue, data);
  }
}

/**
 * Whether what follows `outcome` is one job that runs in this job: then the pass's state goes on
 * with it, and the next stage writes what this one has not (workers/pass-state.ts). Otherwise the
 * stage writes first, and routes after (a retry must find its part).
 */
export function handsOnInProcess<S extends RoutedStage>(
  producer: Producer,
  stage: S,
  data: JobData<S>,
  outcome: StageOutcomes[S],
): boolean {
  const jobs = pipeline[stage].next(data, outcome);
  return jobs.length === 1 && (producer.runsInProcess?.(jobs[0]!.queue) ?? false);
}

/** The stages that run in the job of the stage that routes to them, not as jobs of their own. */
export const SAME_JOB_STAGES = ['simulate', 'risk'] as const satisfies readonly QueueName[];
type SameJobStage = (typeof SAME_JOB_STAGES)[number];

/**
 * The producer a stage routes with, running the same-job stages among `processors` in process:
 * a hop costs Redis round trips and a worker pick-up, and the stages of one pass share nothing a
 * queue would protect (each writes upserts; a failure retries the job, and the stages with it).
 */
export function chainStages(
  producer: Producer,
  processors: { [N in SameJobStage]?: (data: JobData<N>, state?: PassState) => Promise<unknown> },
): Producer {
  return inProcessProducer(producer, processors);
}

/** Starts a pass of `stage` over tokens from outside the pipeline (API, CLI, scheduler). */
export async function startPasses(
  producer: Producer,
  stage: 'bytecode' | 'simulate' | 'dex',
  tokens: Token[],
  trigger: PassTrigger,
): Promise<string[]> {
  const pass = passFor(trigger);
  const data = tokens.map((t) =>
    tokenPass({ chainId: t.chainId, address: t.address.toLowerCase() }, pass),
  );
  if (data.length === 1) return [await producer.enqueue(stage, data[0]!)];
  return producer.enqueueBulk(stage, data);
}
