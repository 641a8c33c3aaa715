import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { analyzeOver, type StaticInput } from '../../src/analysis/static/index.ts';
import type { StaticAnalysis } from '../../src/analysis/types.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import { type ClientRef, type FromThread, fromWire, type ToThread, toWire } from './protocol.ts';

/**
 * The static analysis off the event loop. Its symbolic walks are synchronous JavaScript, up to a
 * few hundred milliseconds a token; on the thread that also runs detection they hold back every
 * block's `token.created` behind the analysis backlog (docs/scale.md, back-pressure). The pool
 * runs them in worker threads (thread.ts); their JSON-RPC requests come back here and go through
 * the chain's own client, so endpoints, lanes, retries and metrics stay the service's.
 */

/** What autoAnalysisThreads suggests at most: the cores beside the main thread's, up to this many. */
const MAX_AUTO_THREADS = 4;
/** A thread that has not said it is ready by then is taken for broken (stopped, not replaced). */
const THREAD_START_TIMEOUT_MS = 30_000;

/**
 * Off unless asked for: on a 2-core host that also runs the node, Postgres and Redis the threads'
 * gain was not shown (docs/scale.md, back-pressure), and a second busy thread there takes CPU
 * from the rest. `autoAnalysisThreads` is what a host with cores to spare would take.
 */
export const DEFAULT_ANALYSIS_THREADS = 0;
export const autoAnalysisThreads = () =>
  Math.max(1, Math.min(MAX_AUTO_THREADS, availableParallelism() - 1));

export type Analyze = (rpc: RpcClient, input: StaticInput) => Promise<StaticAnalysis>;

export interface AnalysisThreads {
  analyze: Analyze;
  /** Threads ready (0: the analysis runs in process). */
  readonly size: number;
  /** Rejects what is still in flight and stops the threads. */
  close(): Promise<void>;
}

interface Job {
  resolve: (analysis: StaticAnalysis) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, Job>;
}

/**
 * Threads start with the first analysis, not with the service (a process that never analyses
 * starts none); until a thread is ready, analyses run in process.
 */
export function createAnalysisThreads(options: {
  threads: number;
  logger: Logger;
}): AnalysisThreads {
  const { logger } = options;
  const clientRefs = new WeakMap<RpcClient, ClientRef>();
  const clientsById = new Map<number, RpcClient>();
  /** Ready threads, in the order they may be given analyses. */
  const threads: Thread[] = [];
  /** Every thread started and not yet stopped, ready or not. */
  const running = new Set<Worker>();
  let nextJob = 0;
  let started = false;
  let closing = false;

  const refOf = (rpc: RpcClient): ClientRef => {
    let ref = clientRefs.get(rpc);
    if (!ref) {
      ref = { id: clientsById.size, urls: [...rpc.urls] };
      clientRefs.set(rpc, ref);
      clientsById.set(ref.id, rpc);
    }
    return ref;
  };

  async function answer(thread: Thread, message: Extract<FromThread, { type: 'call' }>) {
    const rpc = clientsById.get(message.client);
    let outcome: Extract<ToThread, { type: 'answer' }>['outcome'];
    try {
      if (!rpc) throw new Error(`analysis thread asked for unknown client ${message.client}`);
      const value =
        message.rpc.method === 'request'
          ? await rpc.request(message.rpc.request.method, message.rpc.request.params)
          : (await rpc.batch(message.rpc.requests)).map((o) =>
              o.ok ? o : { ok: false as const, error: toWire(o.error) },
            );
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error: toWire(error) };
    }
    // The thread may have gone meanwhile; its jobs were rejected then.
    if (threads.includes(thread))
      thread.worker.postMessage({ type: 'answer', call: message.call, outcome } satisfies ToThread);
  }

  function spawn(): void {
    const worker = new Worker(new URL('./boot.mjs', import.meta.url));
    const thread: Thread = { worker, jobs: new Map() };
    running.add(worker);
    let ready = false;
    // Threads never keep the process alive: shutdown closes them, a crash ends with the process.
    worker.unref();
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: THREAD_START_TIMEOUT_MS }, 'analysis thread did not start');
      void worker.terminate();
    }, THREAD_START_TIMEOUT_MS);
    timer.unref();
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') {
        ready = true;
        clearTimeout(timer);
        threads.push(thread);
        logger.debug({ threads: threads.length }, 'analysis thread ready');
      } else if (message.type === 'call') void answer(thread, message);
      else {
        const job = thread.jobs.get(message.job);
        if (!job) return;
        thread.jobs.delete(message.job);
        if (message.outcome.ok) job.resolve(message.outcome.value);
        else job.reject(fromWire(message.outcome.error));
      }
    });
    worker.on('error', (error) => logger.error({ err: error }, 'analysis thread failed'));
    worker.on('exit', (code) => {
      clearTimeout(timer);
      running.delete(worker);
      const at = threads.indexOf(thread);
      if (at >= 0) threads.splice(at, 1);
      // Its analyses fail as an RPC outage would: the stage's job is retried, no token is lost.
      for (const job of thread.jobs.values())
        job.reject(new Error(`analysis thread stopped (exit code ${code})`));
      thread.jobs.clear();
      if (closing) return;
      // One that never started is not started again (the analysis stays in process); one that
      // ran is replaced.
      if (!ready) {
        logger.warn({ exit_code: code }, 'analysis thread could not start; analysing in process');
        return;
      }
      logger.warn({ exit_code: code }, 'analysis thread stopped; starting another');
      spawn();
    });
  }

  const analyze: Analyze = (rpc, input) => {
    if (!started && !closing) {
      started = true;
      for (let i = 0; i < options.threads; i++) spawn();
    }
    // The least busy thread; none (not ready yet, closing, broken): in process.
    const thread = threads.reduce<Thread | undefined>(
      (best, t) => (!best || t.jobs.size < best.jobs.size ? t : best),
      undefined,
    );
    if (!thread || closing) return analyzeOver(rpc, input);
    const job = nextJob++;
    return new Promise<StaticAnalysis>((resolve, reject) => {
      thread.jobs.set(job, { resolve, reject });
      thread.worker.postMessage({
        type: 'analyze',
        job,
        client: refOf(rpc),
        input,
      } satisfies ToThread);
    });
  };

  return {
    analyze,
    get size() {
      return threads.length;
    },
    async close() {
      closing = true;
      await Promise.all([...running].map((w) => w.terminate()));
    },
  };
}
