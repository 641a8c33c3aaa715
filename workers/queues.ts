import {
  type ConnectionOptions,
  DelayedError,
  type Job,
  Queue,
  UnrecoverableError,
  Worker,
} from 'bullmq';
import type { Logger } from 'pino';
import {
  CAPPED_BACKOFF,
  cappedBackoff,
  type JobData,
  type JobInput,
  jobCatalog,
  QUEUE_NAMES,
  type QueueName,
} from './jobs.ts';
import { NOT_YET_LIMIT_MS, NotYetError } from './not-yet.ts';
import type { PassState } from './pass-state.ts';

/** Typed producers and workers over the catalog. */

export interface EnqueueOptions {
  priority?: number;
  delay?: number;
  /** Handed to a stage that runs in process (workers/pass-state.ts); never sent to Redis. */
  state?: PassState;
}

export interface Producer {
  enqueue<N extends QueueName>(
    name: N,
    data: JobInput<N>,
    options?: EnqueueOptions,
  ): Promise<string>;
  /** One round trip for many jobs; ids stay deterministic, so duplicates are dropped by BullMQ. */
  enqueueBulk<N extends QueueName>(
    name: N,
    data: JobInput<N>[],
    options?: { priority?: number },
  ): Promise<string[]>;
  queue(name: QueueName): Queue;
  /** Whether a job of `name` runs in the enqueuing job (`inProcessProducer`): absent means never. */
  runsInProcess?(name: QueueName): boolean;
  close(): Promise<void>;
}

/** The catalog's priority for a job's data (workers/jobs.ts agePriority), unless the caller set one. */
function priorityOf<N extends QueueName>(name: N, data: JobData<N>): number | undefined {
  const entry = jobCatalog[name] as { priority?: (d: JobData<N>) => number | undefined };
  return entry.priority?.(data);
}

export function createProducer(connection: ConnectionOptions, prefix: string): Producer {
  const queues = new Map<QueueName, Queue>();
  const queue = (name: QueueName) => {
    let q = queues.get(name);
    if (!q) {
      q = new Queue(name, { connection, prefix, defaultJobOptions: jobCatalog[name].options });
      q.on('error', () => {}); // surfaced by the failing enqueue call instead
      queues.set(name, q);
    }
    return q;
  };
  return {
    async enqueue(name, data, { state: _inProcessOnly, ...options } = {}) {
      const entry = jobCatalog[name];
      const parsed = entry.schema.parse(data) as JobData<typeof name>;
      const jobId = (entry.jobId as (d: JobData<typeof name>) => string)(parsed);
      const priority = options.priority ?? priorityOf(name, parsed);
      await queue(name).add(name, parsed, {
        jobId,
        ...options,
        ...(priority === undefined ? {} : { priority }),
      });
      return jobId;
    },
    async enqueueBulk(name, data, options = {}) {
      if (data.length === 0) return [];
      const entry = jobCatalog[name];
      const jobs = data.map((d) => {
        const parsed = entry.schema.parse(d) as JobData<typeof name>;
        const jobId = (entry.jobId as (d: JobData<typeof name>) => string)(parsed);
        const priority = options.priority ?? priorityOf(name, parsed);
        return {
          name,
          data: parsed,
          opts: { jobId, ...options, ...(priority === undefined ? {} : { priority }) },
        };
      });
      await queue(name).addBulk(jobs);
      return jobs.map((j) => j.opts.jobId);
    },
    queue,
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

/**
 * A producer that runs the jobs of some queues in process, inside the job that enqueues them,
 * instead of adding them to Redis: no hop, no pick-up by another worker. The data is validated as
 * an enqueue would; a failure fails the enqueuing job, whose retry runs both again (every stage
 * writes upserts). The ids returned are the ids the jobs would have had.
 */
export type InProcessRun = {
  [N in QueueName]?: (data: JobData<N>, state?: PassState) => Promise<unknown>;
};

export function inProcessProducer(producer: Producer, run: InProcessRun): Producer {
  const inProcess: Producer = {
    ...producer,
    runsInProcess: (name) => run[name] !== undefined || (producer.runsInProcess?.(name) ?? false),
    async enqueue(name, data, options) {
      const processor = run[name] as
        | ((d: JobData<typeof name>, state?: PassState) => Promise<unknown>)
        | undefined;
      if (!processor) return producer.enqueue(name, data, options);
      const entry = jobCatalog[name];
      const parsed = entry.schema.parse(data) as JobData<typeof name>;
      await processor(parsed, options?.state);
      return (entry.jobId as (d: JobData<typeof name>) => string)(parsed);
    },
    async enqueueBulk(name, data, options) {
      if (!run[name]) return producer.enqueueBulk(name, data, options);
      const ids: string[] = [];
      for (const d of data) ids.push(await inProcess.enqueue(name, d));
      return ids;
    },
  };
  return inProcess;
}

export type Processor<N extends QueueName> = (data: JobData<N>, job: Job) => Promise<unknown>;
export type Processors = { [N in QueueName]?: Processor<N> };

export interface WorkerPool {
  workers: Worker[];
  /** Stops taking jobs and waits for the active ones, up to `deadlineMs`; then hands them back. */
  close(deadlineMs?: number): Promise<void>;
}

const DEFAULT_DRAIN_DEADLINE_MS = 5_000;

export function startWorkers(options: {
  connection: ConnectionOptions;
  prefix: string;
  processors: Processors;
  logger: Logger;
  concurrency?: Partial<Record<QueueName, number>>;
  /** The queues to take (WORKER_QUEUES); absent: every queue with a processor. */
  only?: ReadonlySet<QueueName>;
  /** How long a job may wait for what it needs (workers/not-yet.ts); tests shorten it. */
  notYetLimitMs?: number;
  /** Observes every finished job (metrics). */
  onJobDone?: (queue: QueueName, status: 'completed' | 'failed', seconds: number) => void;
}): WorkerPool {
  const workers: Worker[] = [];
  for (const name of QUEUE_NAMES) {
    const processor = options.processors[name] as Processor<typeof name> | undefined;
    if (!processor || (options.only && !options.only.has(name))) continue;
    const schema = jobCatalog[name].schema;
    const log = options.logger.child({ queue: name });
    const worker = new Worker(
      name,
      async (job, token) => {
        const parsed = schema.safeParse(job.data);
        // Malformed data never becomes valid by retrying.
        if (!parsed.success)
          throw new UnrecoverableError(`invalid ${name} job data: ${parsed.error.message}`);
        const started = performance.now();
        try {
          const result = await processor(parsed.data as JobData<typeof name>, job);
          options.onJobDone?.(name, 'completed', (performance.now() - started) / 1000);
          log.debug({ job: job.id, ms: Math.round(performance.now() - started) }, 'job done');
          return result;
        } catch (error) {
          if (error instanceof NotYetError && token !== undefined) {
            const waited = Date.now() - job.timestamp;
            if (waited < (options.notYetLimitMs ?? NOT_YET_LIMIT_MS)) {
              // Waiting is not failing: back to the delayed set, its attempts untouched.
              await job.moveToDelayed(Date.now() + error.retryInMs, token);
              log.debug({ job: job.id, waitedMs: waited, reason: error.message }, 'job waits');
              throw new DelayedError();
            }
            if (error.afterLimit === 'skip') {
              log.warn({ job: job.id, waitedMs: waited, reason: error.message }, 'job skipped');
              options.onJobDone?.(name, 'completed', (performance.now() - started) / 1000);
              return { status: 'skipped', reason: error.message };
            }
          }
          options.onJobDone?.(name, 'failed', (performance.now() - started) / 1000);
          throw error;
        }
      },
      {
        connection: options.connection,
        prefix: options.prefix,
        concurrency: options.concurrency?.[name] ?? jobCatalog[name].concurrency,
        // Stalled-job recovery: a job whose worker died is handed to another after this interval.
        stalledInterval: 15_000,
        maxStalledCount: 3,
        settings: {
          backoffStrategy: (attemptsMade, type, _error, job) => {
            const base = (job?.opts.backoff as { delay?: number } | undefined)?.delay ?? 1_000;
            return type === CAPPED_BACKOFF ? cappedBackoff(attemptsMade, base) : base;
          },
        },
      },
    );
    worker.on('error', (error) => log.error({ err: error.message }, 'worker error'));
    worker.on('failed', (job, error) =>
      log.warn({ job: job?.id, attempts: job?.attemptsMade, err: error.message }, 'job failed'),
    );
    workers.push(worker);
  }
  return {
    workers,
    async close(deadlineMs = DEFAULT_DRAIN_DEADLINE_MS) {
      const graceful = Promise.all(workers.map((w) => w.close()));
      const timedOut = await Promise.race([
        graceful.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), deadlineMs)),
      ]);
      // Past the deadline, force-close: active jobs are not lost, their locks expire and
      // stalled-job recovery gives them back to the queue.
      if (timedOut) await Promise.all(workers.map((w) => w.close(true)));
    },
  };
}
