import type { Logger } from 'pino';
import type { HolderRepository } from '../../db/repositories/holders.ts';
import type { ReplayRepository } from '../../db/repositories/replay.ts';
import { type BlockRange, pendingChunks } from '../../src/evm/ranges.ts';
import type { ChainRuntime } from '../chain-runtime.ts';
import type { Producer } from '../queues.ts';
import { handOffToAnalysis } from './handoff.ts';

/**
 * Replays a historical block range in the `replay` queue, one job per batch of blocks
 * (workers/replay/detect.ts). A few batches are in flight at a time; each is recorded as finished
 * (the persisted cursor) as soon as its job completed, so an interrupted replay resumes with the
 * batches it had not finished. Re-running a half-done batch is harmless: job ids are
 * deterministic and writes are upserts. Detection runs ahead; the tokens it recorded are handed
 * to analysis once a minute and at the end (workers/replay/handoff.ts).
 */

export const DEFAULT_BATCH_BLOCKS = 100;
/**
 * Batches queued at once: enough that the replay workers never wait for the driver to notice
 * finished batches and queue more (empty batches take a few milliseconds each).
 */
const BATCHES_IN_FLIGHT = 16;
const POLL_MS = 10;
const PROGRESS_LOG_MS = 5_000;
/** How far analysis of replayed tokens trails detection, at most. */
const ANALYSIS_HANDOFF_MS = 60_000;
/** How long the replay rides out a Redis or Postgres outage before giving up (it can be resumed). */
const OUTAGE_PATIENCE_MS = 120_000;
const OUTAGE_RETRY_MS = 500;

class ReplayJobFailed extends Error {}

/** Retries `fn` through transient failures (a restarting Redis, an unreachable Postgres). */
async function patiently<T>(what: string, fn: () => Promise<T>, logger: Logger): Promise<T> {
  const deadline = Date.now() + OUTAGE_PATIENCE_MS;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline || error instanceof ReplayJobFailed) throw error;
      logger.warn({ err: (error as Error).message }, `replay: ${what} failed, retrying`);
      await new Promise((r) => setTimeout(r, OUTAGE_RETRY_MS));
    }
  }
}

export interface ReplayProgress {
  done: number;
  total: number;
  blocksPerSecond: number;
  etaSeconds: number | null;
}

export type ReplayResult =
  | {
      status: 'finished';
      from: number;
      to: number;
      blocks: number;
      skipped: number;
      seconds: number;
      clippedTo: number | null;
    }
  | { status: 'nothing-to-do'; from: number; to: number; clippedTo: number | null }
  | { status: 'interrupted'; done: number; total: number }
  | { status: 'failed'; error: string; at: BlockRange };

export interface ReplayDeps {
  chain: ChainRuntime;
  producer: Producer;
  ranges: ReplayRepository;
  logger: Logger;
  /** Blocks per replay job. */
  chunkSize?: number;
  /** Batches queued at once (BATCHES_IN_FLIGHT by default). */
  batchesInFlight?: number;
  onProgress?: (progress: ReplayProgress) => void;
  /** Checked between batches: lets Ctrl-C stop the replay cleanly, to be resumed later. */
  shouldStop?: () => boolean;
  /** With it, the replay track of the holders starts at the run's first batch (its jobs apply it). */
  holders?: Pick<HolderRepository, 'startReplay'>;
}

type RunOutcome = { done: number } | { done: number; failed: string; at: BlockRange };

/** The state of one batch's job: finished, still running, or failed for good. */
async function batchState(producer: Producer, id: string): Promise<'done' | 'running' | string> {
  const queue = producer.queue('replay');
  const state = await queue.getJobState(id);
  // A job removed by retention completed earlier.
  if (state === 'completed' || state === 'unknown') return 'done';
  // A job with attempts left waits in `delayed` for its retry: `failed` is final (attempts
  // spent, or an unrecoverable error).
  if (state !== 'failed') return 'running';
  const job = await queue.getJob(id);
  return `job ${id} failed: ${job?.failedReason ?? 'unknown reason'}`;
}

/** Queues the next batches, up to BATCHES_IN_FLIGHT in flight (none once told to stop). */
async function topUp(
  deps: ReplayDeps,
  inFlight: Map<string, BlockRange>,
  pending: BlockRange[],
): Promise<void> {
  const window = deps.batchesInFlight ?? BATCHES_IN_FLIGHT;
  if (pending.length === 0 || inFlight.size >= window || deps.shouldStop?.()) return;
  const chainId = deps.chain.config.chainId;
  const batch = pending.splice(0, window - inFlight.size);
  const ids = await patiently(
    'enqueue',
    () =>
      deps.producer.enqueueBulk(
        'replay',
        batch.map((c) => ({ chainId, fromBlock: c.from, toBlock: c.to, source: 'replay' })),
      ),
    deps.logger,
  );
  for (const [i, id] of ids.entries()) inFlight.set(id, batch[i]!);
}

/** States of a job that no worker has taken yet: withdrawing it loses nothing. */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Told to stop: the batches no worker has started are taken back out of the queue (the next run
 * queues them again), so a stop waits only for the batches being worked, not for the whole
 * window. A job a worker takes meanwhile is locked and cannot be removed: it is waited for.
 */
async function withdrawNotStarted(deps: ReplayDeps, inFlight: Map<string, BlockRange>) {
  const queue = deps.producer.queue('replay');
  for (const id of [...inFlight.keys()]) {
    if (!NOT_STARTED.has(await queue.getJobState(id))) continue;
    if ((await queue.remove(id)) === 1) inFlight.delete(id);
  }
}

/**
 * Keeps BATCHES_IN_FLIGHT jobs queued and reports the finished ones. The next batches are queued
 * before the finished ones are recorded, so the workers never wait for the bookkeeping.
 */
async function runBatches(
  deps: ReplayDeps,
  chunks: readonly BlockRange[],
  onBatchesDone: (chunks: BlockRange[]) => Promise<void>,
): Promise<RunOutcome> {
  const inFlight = new Map<string, BlockRange>();
  const pending = [...chunks];
  let done = 0;
  let withdrawn = false;
  await topUp(deps, inFlight, pending);
  while (inFlight.size > 0) {
    if (!withdrawn && deps.shouldStop?.()) {
      withdrawn = true;
      await patiently('withdraw batches', () => withdrawNotStarted(deps, inFlight), deps.logger);
      if (inFlight.size === 0) break;
    }
    const ids = [...inFlight.keys()];
    const states = await patiently(
      'wait for jobs',
      () => Promise.all(ids.map((id) => batchState(deps.producer, id))),
      deps.logger,
    );
    const finished: BlockRange[] = [];
    for (const [i, id] of ids.entries()) {
      const state = states[i]!;
      if (state === 'running') continue;
      if (state !== 'done') return { done, failed: state, at: inFlight.get(id)! };
      finished.push(inFlight.get(id)!);
      inFlight.delete(id);
    }
    await topUp(deps, inFlight, pending);
    if (finished.length === 0) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    await patiently('record progress', () => onBatchesDone(finished), deps.logger);
    done += finished.reduce((sum, c) => sum + c.to - c.from + 1, 0);
  }
  return { done };
}

/**
 * Batches whose job failed for good in an earlier run are retried: their deterministic job id
 * would otherwise make every later enqueue a no-op, and the replay could never get past them.
 */
async function retryFailedBatches(producer: Producer, chainId: number): Promise<number> {
  const failed = await producer.queue('replay').getJobs(['failed']);
  const ours = failed.filter((job) => job?.id?.startsWith(`replay-${chainId}-`));
  for (const job of ours) await job.retry('failed');
  return ours.length;
}

/** The requested range clipped to the finalized head: what is within reorg reach is live scanning's. */
async function finalRange(chain: ChainRuntime, requestedTo: number) {
  const finalized = (await chain.reader.blockNumber()) - chain.config.finalityDepth;
  const to = Math.min(requestedTo, finalized);
  return { to, clippedTo: to < requestedTo ? to : null };
}

export async function replayRange(
  deps: ReplayDeps,
  from: number,
  requestedTo: number,
): Promise<ReplayResult> {
  const chainId = deps.chain.config.chainId;
  const { to, clippedTo } = await finalRange(deps.chain, requestedTo);
  if (to < from) return { status: 'nothing-to-do', from, to, clippedTo };
  const handOff = () =>
    patiently(
      'hand off to analysis',
      () => handOffToAnalysis(deps, chainId, { from, to }),
      deps.logger,
    );

  const retried = await patiently(
    'retry failed batches',
    () => retryFailedBatches(deps.producer, chainId),
    deps.logger,
  );
  if (retried > 0)
    deps.logger.info({ chain: chainId, batches: retried }, 'replay: failed batches retried');
  // The previous runs' batches, merged into their union (read and rewritten in one step).
  const finished = await patiently(
    'read progress',
    () => deps.ranges.compact(chainId),
    deps.logger,
  );
  const chunks = pendingChunks(from, to, deps.chunkSize ?? DEFAULT_BATCH_BLOCKS, finished);
  const total = chunks.reduce((sum, c) => sum + c.to - c.from + 1, 0);
  if (total === 0) {
    await handOff();
    return { status: 'nothing-to-do', from, to, clippedTo };
  }

  await deps.holders?.startReplay(chainId, chunks[0]!.from);
  const warnHandOff = (error: unknown) =>
    deps.logger.warn({ err: (error as Error).message, chain: chainId }, 'replay: hand-off failed');
  const started = performance.now();
  let done = 0;
  let lastLog = started;
  let lastHandOff = started;
  const onBatchesDone = async (finished: BlockRange[]) => {
    await deps.ranges.markFinished(chainId, finished);
    done += finished.reduce((sum, c) => sum + c.to - c.from + 1, 0);
    const now = performance.now();
    const rate = done / ((now - started) / 1000);
    const eta = rate > 0 ? (total - done) / rate : null;
    deps.onProgress?.({ done, total, blocksPerSecond: rate, etaSeconds: eta });
    if (now - lastLog >= PROGRESS_LOG_MS || done === total) {
      lastLog = now;
      const block = Math.max(...finished.map((c) => c.to));
      const fields = { chain: chainId, block, done, total, blocksPerSecond: rate };
      deps.logger.info(fields, 'replay progress');
    }
    if (now - lastHandOff >= ANALYSIS_HANDOFF_MS) {
      lastHandOff = now;
      // Never thrown: this callback is retried as a whole, which would count the batches twice;
      // a hand-off that failed is repeated at the end or by the next run.
      await handOff().catch(warnHandOff);
    }
  };
  let outcome: RunOutcome;
  try {
    outcome = await runBatches(deps, chunks, onBatchesDone);
  } catch (error) {
    // Past the outage patience: what finished is recorded; the same command resumes.
    return { status: 'failed', error: (error as Error).message, at: { from, to } };
  }
  // Whatever was detected is handed off, also when the replay stops early; if that fails, the
  // next run of the command hands the same tokens off (and merges this run's batches).
  await handOff().catch(warnHandOff);
  await deps.ranges
    .compact(chainId)
    .catch((error: unknown) =>
      deps.logger.warn(
        { err: (error as Error).message, chain: chainId },
        'replay: compaction failed',
      ),
    );
  if ('failed' in outcome) return { status: 'failed', error: outcome.failed, at: outcome.at };
  if (outcome.done < total) return { status: 'interrupted', done: outcome.done, total };
  const seconds = (performance.now() - started) / 1000;
  const skipped = to - from + 1 - total;
  return { status: 'finished', from, to, blocks: outcome.done, skipped, seconds, clippedTo };
}
