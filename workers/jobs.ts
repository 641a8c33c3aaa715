import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { INITIAL_RUN, PASS_REASONS, RUN_KEY_PATTERN } from '../src/run-key.ts';

/**
 * The job catalog: every queue's name, the schema of its job data, its options and its
 * deterministic job id. Producers and processors share it, so that a job enqueued with the
 * wrong shape fails at the producer, and scanning or replaying a block twice enqueues nothing new.
 */

const address = z.string().regex(/^0x[0-9a-f]{40}$/, 'lower-case 0x address');
const hash = z.string().regex(/^0x[0-9a-f]{64}$/, 'lower-case 0x 32-byte hash');
const chainId = z.number().int().positive();

const SECOND = 1_000;
const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 86_400;

/** The longest wait between two attempts: an outage of minutes is ridden out, not waited out for hours. */
export const MAX_BACKOFF_MS = 30_000;
export const CAPPED_BACKOFF = 'capped-exponential';

/**
 * Exponential backoff with jitter (so a recovered RPC or database is not hit by a thundering
 * herd), capped at MAX_BACKOFF_MS. Workers implement the strategy (workers/queues.ts).
 */
export function cappedBackoff(attemptsMade: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const retrying = (attempts: number, delayMs: number): JobsOptions => ({
  attempts,
  backoff: { type: CAPPED_BACKOFF, delay: delayMs },
  // Bounded retention; failed jobs are kept longer than completed ones, for operators to inspect.
  removeOnComplete: { age: HOUR_SECONDS, count: 5_000 },
  removeOnFail: { age: 7 * DAY_SECONDS, count: 20_000 },
});

/**
 * Token-stage jobs: one pass of the pipeline over a token, named by its run key and started for a
 * reason (src/run-key.ts mints both; workers/pipeline.ts routes them).
 */
const tokenStage = z.object({
  chainId,
  address,
  reason: z.enum(PASS_REASONS).default('pipeline'),
  run: z.string().regex(RUN_KEY_PATTERN).default(INITIAL_RUN),
  bucketMs: z.number().int().min(0).optional(),
  atBlock: z.number().int().min(0).optional(),
  /** The creation block's timestamp (seconds) of a detected token: orders the analysis backlog. */
  bornAt: z.number().int().min(0).optional(),
});
type TokenStageData = { chainId: number; address: string; run: string; bornAt?: number };

/** BullMQ's largest priority (lower runs first; 0 or none: the plain FIFO list, taken before any priority). */
const MAX_BULLMQ_PRIORITY = 2 ** 21;
/** One priority step per minute of token age: 2^21 minutes is about four years before it wraps. */
const PRIORITY_BUCKET_SECONDS = 60;

/**
 * The analysis backlog drains oldest token first. BullMQ takes a plain queue in the order jobs
 * were added, but a retried job goes back behind every job added meanwhile (its backoff parks it
 * in `delayed`, whence it is pushed to the far end of the list), and detect jobs, sixteen at a
 * time, hand tokens on out of block order. A priority from the creation block's minute puts a
 * token back among the tokens of its own minute; within a minute BullMQ keeps insertion order.
 * The value wraps every ~4 years: a replay of older history interleaves with live tokens then,
 * which orders nothing wrongly that matters (neither is waited for). Passes without a birth time
 * (manual re-analysis, the replay's hand-off) stay in the plain list, taken first.
 */
export function agePriority(bornAt: number | undefined): number | undefined {
  if (bornAt === undefined) return undefined;
  return 1 + (Math.floor(bornAt / PRIORITY_BUCKET_SECONDS) % (MAX_BULLMQ_PRIORITY - 1));
}
const byAge = (d: TokenStageData) => agePriority(d.bornAt);
const tokenStageId = (stage: string) => (d: TokenStageData) =>
  `${stage}-${d.chainId}-${d.address}-${d.run}`;

export const jobCatalog = {
  /**
   * A live block, or, while the scanner catches up, a run of consecutive blocks: `hashes` names
   * each block from `blockNumber` on (the first is `blockHash`), so that their receipts and traces
   * are read in one pipelined pass (workers/scan/detect.ts).
   */
  detect: {
    schema: z
      .object({
        chainId,
        blockNumber: z.number().int().min(0),
        blockHash: hash,
        source: z.enum(['live', 'replay']),
        hashes: z.array(hash).min(2).max(100).optional(),
      })
      .refine((d) => !d.hashes || d.hashes[0] === d.blockHash, 'hashes[0] must be blockHash'),
    options: retrying(12, SECOND),
    // A job mostly waits (receipts, traces, probes, Postgres): five busy chains bring about 6.5
    // blocks a second (Arbitrum alone 4), which 4 at a time could not follow (bench chains).
    concurrency: 16,
    jobId: (d: { chainId: number; blockNumber: number; blockHash: string; hashes?: string[] }) =>
      d.hashes
        ? `detect-${d.chainId}-${d.blockNumber}-${d.blockNumber + d.hashes.length - 1}-${d.hashes.at(-1)}`
        : `detect-${d.chainId}-${d.blockNumber}-${d.blockHash}`,
  },
  /**
   * A replay job is a range of final historical blocks (workers/replay/detect.ts): the detect
   * stage's code, batched, in a queue of its own with fewer workers, so live scanning is never
   * starved. Final blocks do not change, so the range alone names the job.
   */
  replay: {
    schema: z.object({
      chainId,
      fromBlock: z.number().int().min(0),
      toBlock: z.number().int().min(0),
      source: z.literal('replay'),
    }),
    options: retrying(12, SECOND),
    concurrency: 2,
    jobId: (d: { chainId: number; fromBlock: number; toBlock: number }) =>
      `replay-${d.chainId}-${d.fromBlock}-${d.toBlock}`,
  },
  bytecode: {
    schema: tokenStage,
    options: retrying(8, SECOND),
    concurrency: 8,
    priority: byAge,
    // The initial pass's id has no run suffix (ids of jobs already queued stay valid).
    jobId: (d: TokenStageData) =>
      `bytecode-${d.chainId}-${d.address}${d.run === INITIAL_RUN ? '' : `-${d.run}`}`,
  },
  /** Its job also runs simulate and risk (workers/pipeline.ts chainStages): their concurrency too. */
  selectors: {
    schema: tokenStage,
    options: retrying(8, SECOND),
    concurrency: 16,
    priority: byAge,
    jobId: tokenStageId('selectors'),
  },
  /** Its job also runs risk (workers/pipeline.ts chainStages): risk's concurrency too. */
  simulate: {
    schema: tokenStage,
    options: retrying(8, SECOND),
    concurrency: 12,
    jobId: tokenStageId('simulate'),
  },
  risk: {
    schema: tokenStage,
    options: retrying(8, SECOND),
    concurrency: 8,
    jobId: tokenStageId('risk'),
  },
  dex: {
    schema: tokenStage,
    options: retrying(6, SECOND),
    concurrency: 8,
    jobId: tokenStageId('dex'),
  },
  /**
   * Account maintenance (docs/api.md): downgrades and purges, run by a BullMQ job scheduler that the
   * scheduler role upserts (ACCOUNTS_SCHEDULER); and the emails a plan change owes (`notices`),
   * enqueued by the change, named by its first notice (account_notices): each such job sends every
   * notice still pending, so a later one finds nothing left to do.
   */
  accounts: {
    schema: z.discriminatedUnion('task', [
      z.object({ task: z.literal('maintenance') }),
      z.object({ task: z.literal('notices'), noticeId: z.number().int().positive() }),
    ]),
    options: retrying(5, 10 * SECOND),
    concurrency: 1,
    jobId: (d: { task: string; noticeId?: number }) =>
      `accounts-${d.task}${d.noticeId === undefined ? '' : `-${d.noticeId}`}`,
  },
} as const;

/** The scheduler role keeps one job scheduler per entry (upsertJobScheduler: idempotent across restarts and instances). */
export const ACCOUNTS_SCHEDULER = {
  id: 'accounts-maintenance',
  everyMs: 15 * 60 * SECOND,
  data: { task: 'maintenance' as const },
};

export type QueueName = keyof typeof jobCatalog;
export type JobData<N extends QueueName> = z.infer<(typeof jobCatalog)[N]['schema']>;
/** What a producer passes: defaults (reason, run) are filled in by the schema. */
export type JobInput<N extends QueueName> = z.input<(typeof jobCatalog)[N]['schema']>;
export const QUEUE_NAMES = Object.keys(jobCatalog) as QueueName[];

/**
 * The queues whose jobs detect blocks, which other processes hear of (infra/detection-signal.ts),
 * and those whose requests take the analysis lane of a chain's endpoints (workers/chain-runtime.ts).
 * The bytecode stage is in neither: its code read takes detection's lane but detects no block.
 */
export const DETECTION_LANE_QUEUES = ['detect', 'replay'] as const satisfies QueueName[];
export const ANALYSIS_LANE_QUEUES = [
  'selectors',
  'simulate',
  'risk',
  'dex',
] as const satisfies QueueName[];
