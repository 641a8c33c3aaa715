import type { Logger } from 'pino';
import type { ReplayRepository } from '../db/repositories/replay.ts';
import { type BlockRange, pendingChunks } from '../src/evm/ranges.ts';
import { fromQuantity, toQuantity } from '../src/evm/rpc.ts';
import type { RpcBlockHeader } from '../src/evm/types.ts';
import type { ChainRuntime } from './chain-runtime.ts';
import type { Producer } from './queues.ts';

/**
 * Replays a historical block range through the same detect code as live scanning, in the
 * `replay` queue. Chunks are enqueued a few at a time; a chunk is recorded as finished once all
 * its jobs completed, so an interrupted replay resumes with the chunks it had not finished
 * (re-running a half-done chunk is harmless: job ids are deterministic and writes are upserts).
 */

const DEFAULT_CHUNK_SIZE = 50;
const CHUNKS_IN_FLIGHT = 4;
const POLL_MS = 50;
/** How long the replay rides out a Redis or Postgres outage before giving up (it can be resumed). */
const OUTAGE_PATIENCE_MS = 120_000;
const OUTAGE_RETRY_MS = 500;

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

class ReplayJobFailed extends Error {}

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
  chunkSize?: number;
  onProgress?: (progress: ReplayProgress) => void;
  /** Checked between chunks: lets Ctrl-C stop the replay cleanly, to be resumed later. */
  shouldStop?: () => boolean;
}

export async function replayRange(
  deps: ReplayDeps,
  from: number,
  requestedTo: number,
): Promise<ReplayResult> {
  const { chain, producer } = deps;
  const chainId = chain.config.chainId;
  // Only final blocks are replayed: what is still within reorg reach belongs to live scanning.
  const finalized = (await chain.reader.blockNumber()) - chain.config.finalityDepth;
  const to = Math.min(requestedTo, finalized);
  const clippedTo = to < requestedTo ? to : null;
  if (to < from) return { status: 'nothing-to-do', from, to, clippedTo };

  const finished = await patiently(
    'read progress',
    () => deps.ranges.finishedRanges(chainId),
    deps.logger,
  );
  const chunks = pendingChunks(from, to, deps.chunkSize ?? DEFAULT_CHUNK_SIZE, finished);
  const total = chunks.reduce((sum, c) => sum + c.to - c.from + 1, 0);
  const skipped = to - from + 1 - total;
  if (total === 0) return { status: 'nothing-to-do', from, to, clippedTo };

  const started = performance.now();
  let done = 0;
  const report = () => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    deps.onProgress?.({
      done,
      total,
      blocksPerSecond: rate,
      etaSeconds: rate > 0 ? (total - done) / rate : null,
    });
  };

  async function enqueueChunk(chunk: BlockRange): Promise<string[]> {
    const numbers = Array.from({ length: chunk.to - chunk.from + 1 }, (_, i) => chunk.from + i);
    const outcomes = await chain.rpc.batch<RpcBlockHeader | null>(
      numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })),
    );
    const jobs = outcomes.map((o, i) => {
      if (!o.ok) throw o.error;
      if (!o.result) throw new Error(`block ${numbers[i]} not available`);
      if (fromQuantity(o.result.number) !== numbers[i])
        throw new Error(`asked for block ${numbers[i]}, got ${o.result.number}`);
      return {
        chainId,
        blockNumber: numbers[i]!,
        blockHash: o.result.hash.toLowerCase(),
        source: 'replay' as const,
      };
    });
    return producer.enqueueBulk('replay', jobs);
  }

  /**
   * Resolves when every job is done; removed jobs (retention) count as completed. Jobs finish
   * roughly in order, so each poll walks the pending ids from the front and stops at the first
   * unfinished one: a handful of Redis calls per poll instead of one per job of the chunk.
   */
  async function waitForChunk(ids: string[]): Promise<void> {
    const queue = producer.queue('replay');
    let pending = ids;
    while (pending.length > 0) {
      let finished = 0;
      for (const id of pending) {
        const state = await queue.getJobState(id);
        if (state === 'completed' || state === 'unknown') {
          finished++;
          continue;
        }
        if (state === 'failed') {
          const job = await queue.getJob(id);
          // A failed job with attempts left is retried by BullMQ; only a final failure stops the replay.
          if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
            throw new ReplayJobFailed(`job ${id} failed: ${job.failedReason}`);
        }
        break;
      }
      pending = pending.slice(finished);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  const inFlight: { chunk: BlockRange; ids: Promise<string[]> }[] = [];
  let nextChunk = 0;
  try {
    while (nextChunk < chunks.length || inFlight.length > 0) {
      while (
        inFlight.length < CHUNKS_IN_FLIGHT &&
        nextChunk < chunks.length &&
        !deps.shouldStop?.()
      ) {
        const chunk = chunks[nextChunk++]!;
        inFlight.push({ chunk, ids: patiently('enqueue', () => enqueueChunk(chunk), deps.logger) });
      }
      const head = inFlight.shift();
      if (!head) break;
      try {
        const ids = await head.ids;
        await patiently('wait for jobs', () => waitForChunk(ids), deps.logger);
        await patiently(
          'record progress',
          () => deps.ranges.markFinished(chainId, head.chunk.from, head.chunk.to),
          deps.logger,
        );
      } catch (error) {
        return { status: 'failed', error: (error as Error).message, at: head.chunk };
      }
      done += head.chunk.to - head.chunk.from + 1;
      report();
      deps.logger.debug(
        { chain: chainId, from: head.chunk.from, to: head.chunk.to },
        'replay chunk finished',
      );
    }
  } finally {
    // Chunks still being enqueued must settle before the caller closes the connections.
    await Promise.allSettled(inFlight.map((c) => c.ids));
  }
  if (done < total) return { status: 'interrupted', done, total };
  return {
    status: 'finished',
    from,
    to,
    blocks: done,
    skipped,
    seconds: (performance.now() - started) / 1000,
    clippedTo,
  };
}
