import type { Queue } from 'bullmq';

/**
 * A queue's backlog as operators read it on `/ready` and `/metrics`: the jobs waiting their turn
 * (BullMQ keeps them in two places: the plain list and, for jobs with a priority, the
 * `prioritized` set; both count), those parked for a retry, those running, and the age of the
 * oldest waiting job.
 */
export interface QueueBacklog {
  waiting: number;
  delayed: number;
  active: number;
  oldestWaitingSeconds: number;
}

/**
 * The next job each place hands out is its oldest: the far end of the list (BullMQ pushes new
 * jobs at the near end, so `getWaiting(0, 0)` is the newest) and the lowest score of the set.
 */
async function oldestWaitingAt(queue: Queue): Promise<number | undefined> {
  const [[listed], [prioritized]] = await Promise.all([
    queue.getJobs(['wait'], 0, 0, true),
    queue.getJobs(['prioritized'], 0, 0, true),
  ]);
  const stamps = [listed?.timestamp, prioritized?.timestamp].filter(
    (t): t is number => typeof t === 'number',
  );
  return stamps.length > 0 ? Math.min(...stamps) : undefined;
}

export async function queueBacklog(queue: Queue, now = Date.now()): Promise<QueueBacklog> {
  const [counts, oldest] = await Promise.all([
    queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active'),
    oldestWaitingAt(queue),
  ]);
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
    oldestWaitingSeconds: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000),
  };
}

/** Every queue's backlog, by queue name. */
export async function queueBacklogs(
  queues: readonly Queue[],
): Promise<Record<string, QueueBacklog>> {
  const entries = await Promise.all(
    queues.map(async (q) => [q.name, await queueBacklog(q)] as const),
  );
  return Object.fromEntries(entries);
}
