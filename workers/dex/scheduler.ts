import { type ConnectionOptions, type Job, Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { DexRepository } from '../../db/repositories/dex.ts';
import { bucketStart, REFRESH_INTERVAL_MS } from '../../src/dex/refresh.ts';
import { startPasses } from '../pipeline.ts';
import type { Producer } from '../queues.ts';

/**
 * The 60-second DEX refresh: one BullMQ job scheduler (upsertJobScheduler: idempotent, so every
 * scheduler-role process may upsert it and BullMQ still produces one job per interval) whose
 * tick fans out `dex` jobs for the tokens that are due. Job ids carry the bucket (run key
 * r<bucket seconds>), so a tick delivered twice, or a refresh retried, neither duplicates the
 * job nor the bucket's snapshot.
 */

export const DEX_REFRESH_QUEUE = 'dex-refresh';
const SCHEDULER_ID = 'dex-refresh';
/** Tokens read and enqueued per page of the fan-out. */
const FANOUT_PAGE_SIZE = 1_000;
/** A token's real holders' sells are simulated again at most once per this many refresh ticks. */
export const HOLDER_SELLS_EVERY_TICKS = 5;
const TICK_RETENTION = { removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } };

export interface DexScheduler {
  /** Fans out the bucket containing `atMs` now (also what each scheduled tick does). */
  tick(atMs: number): Promise<{ bucketMs: number; enqueued: number }>;
  close(): Promise<void>;
}

export interface DexSchedulerDeps {
  /** A blocking connection (maxRetriesPerRequest null) for the tick worker. */
  workerConnection: ConnectionOptions;
  producerConnection: ConnectionOptions;
  prefix: string;
  dex: DexRepository;
  producer: Producer;
  chainIds: number[];
  logger: Logger;
  intervalMs?: number;
  /**
   * Tokens whose owner can still change fees, limits or trading, last simulated before `before`:
   * they are simulated again on the refresh cadence (analyses repository, dueForResimulation).
   */
  dueForResimulation?: (
    chainId: number,
    before: Date,
    limit: number,
  ) => Promise<{ address: string }[]>;
  /**
   * Tokens whose holder count moved since their real holders' sells were last simulated, last
   * scored before `before` (analyses repository, dueForHolderSells): simulated again, at most once
   * every HOLDER_SELLS_EVERY_TICKS ticks.
   */
  dueForHolderSells?: (
    chainId: number,
    before: Date,
    limit: number,
  ) => Promise<{ address: string }[]>;
  /** Observes each processed tick (tests measure the cadence). */
  onTick?: (info: { bucketMs: number; enqueued: number; scheduledMs: number }) => void;
}

/**
 * When a scheduler's iteration was due: BullMQ names each iteration `repeat:<scheduler>:<millis>`;
 * a job without that id (never expected) counts from its creation.
 */
export function scheduledTime(job: Pick<Job, 'id' | 'timestamp'>): number {
  const millis = Number(/:(\d{10,16})$/.exec(job.id ?? '')?.[1]);
  return Number.isFinite(millis) && millis > 0 ? millis : job.timestamp;
}

export async function startDexScheduler(deps: DexSchedulerDeps): Promise<DexScheduler> {
  const intervalMs = deps.intervalMs ?? REFRESH_INTERVAL_MS;
  const log = deps.logger.child({ role: 'scheduler', queue: DEX_REFRESH_QUEUE });
  const queue = new Queue(DEX_REFRESH_QUEUE, {
    connection: deps.producerConnection,
    prefix: deps.prefix,
  });
  queue.on('error', (error) => log.warn({ err: error.message }, 'queue error'));

  async function tick(atMs: number) {
    const bucketMs = bucketStart(atMs, intervalMs);
    const until = new Date(bucketMs);
    let enqueued = 0;
    let after: { chainId: number; address: string } | undefined;
    for (;;) {
      const due = await deps.dex.dueTokens(deps.chainIds, until, FANOUT_PAGE_SIZE, after);
      if (due.length === 0) break;
      await startPasses(deps.producer, 'dex', due, { kind: 'scheduled-refresh', bucketMs });
      enqueued += due.length;
      after = due[due.length - 1];
      if (due.length < FANOUT_PAGE_SIZE) break;
    }
    if (deps.dueForResimulation || deps.dueForHolderSells) {
      const holdersBefore = new Date(bucketMs - HOLDER_SELLS_EVERY_TICKS * intervalMs);
      for (const chainId of deps.chainIds) {
        const [fees, sells] = await Promise.all([
          deps.dueForResimulation?.(chainId, until, FANOUT_PAGE_SIZE) ?? [],
          deps.dueForHolderSells?.(chainId, holdersBefore, FANOUT_PAGE_SIZE) ?? [],
        ]);
        const changeable = [...new Map([...fees, ...sells].map((t) => [t.address, t])).values()];
        // Same bucketed run key: a tick delivered twice re-simulates nothing twice.
        await startPasses(
          deps.producer,
          'simulate',
          changeable.map((t) => ({ chainId, address: t.address })),
          { kind: 'scheduled-refresh', bucketMs },
        );
        enqueued += changeable.length;
      }
    }
    return { bucketMs, enqueued };
  }

  // Upserting an existing scheduler restarts its series with an immediate iteration; a second
  // scheduler process leaves an identical one alone. (Were two to upsert at once, the extra tick
  // falls in the same bucket, and bucketed job ids make its fan-out a no-op.)
  const existing = await queue.getJobScheduler(SCHEDULER_ID);
  if (existing?.every !== intervalMs) {
    await queue.upsertJobScheduler(
      SCHEDULER_ID,
      { every: intervalMs },
      { name: 'tick', data: {}, opts: TICK_RETENTION },
    );
  }
  const worker = new Worker(
    DEX_REFRESH_QUEUE,
    async (job) => {
      const scheduledMs = scheduledTime(job);
      const result = await tick(scheduledMs);
      deps.onTick?.({ ...result, scheduledMs });
      if (result.enqueued > 0) log.debug(result, 'refresh fan-out');
      return result;
    },
    {
      connection: deps.workerConnection,
      prefix: deps.prefix,
      concurrency: 1,
      stalledInterval: 15_000,
    },
  );
  worker.on('error', (error) => log.error({ err: error.message }, 'tick worker error'));
  worker.on('failed', (job, error) =>
    log.warn({ job: job?.id, err: error.message }, 'tick failed'),
  );

  return {
    tick,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
