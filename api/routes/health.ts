import { Router } from 'express';
import type { Logger } from 'pino';
import type { QueueBacklog } from '../../infra/queue-backlog.ts';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

/** Reads every queue's backlog (infra/queue-backlog.ts). */
export type BacklogReader = () => Promise<Record<string, QueueBacklog>>;

/** The backlog as `/ready` shows it: snake_case, ages to the tenth of a second. */
function backlogBody(backlog: Record<string, QueueBacklog>) {
  return Object.fromEntries(
    Object.entries(backlog).map(([queue, b]) => [
      queue,
      {
        waiting: b.waiting,
        delayed: b.delayed,
        active: b.active,
        oldest_waiting_seconds: Math.round(b.oldestWaitingSeconds * 10) / 10,
      },
    ]),
  );
}

/** A check or read that takes longer than CHECK_TIMEOUT_MS counts as failed. */
async function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function readBacklog(read: BacklogReader): Promise<Record<string, QueueBacklog> | undefined> {
  try {
    return await withDeadline(read());
  } catch {
    return undefined;
  }
}

/**
 * `/health`: the process answers. `/ready`: its dependencies answer too. A failing dependency is
 * named (`"postgres": "unavailable"`), its error text goes to the log only: driver errors carry
 * hosts, users and sometimes passwords.
 *
 * With a `backlog` reader, `/ready` also shows each queue's backlog (`backlog`). A backlog never
 * makes the service not ready: it is work accepted and kept in Redis, which the workers drain in
 * the order of the tokens' age; a load balancer that took the API out of service for it would
 * hide the very tokens the backlog is about. Operators alert on `tm_queue_oldest_waiting_seconds`
 * instead (docs/operations.md). A backlog that cannot be read is left out (the `queues` check
 * says why).
 */
export function healthRouter(
  checks: ReadinessCheck[],
  logger?: Logger,
  backlog?: BacklogReader,
): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const read = backlog ? readBacklog(backlog) : Promise.resolve(undefined);
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await withDeadline(check());
          return [name, 'ok'] as const;
        } catch (error) {
          logger?.warn(
            { dependency: name, err: (error as Error).message },
            'readiness check failed',
          );
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, status]) => status === 'ok');
    const queues = await read;
    const body = {
      status: ready ? 'ready' : 'not-ready',
      checks: Object.fromEntries(results),
      ...(queues ? { backlog: backlogBody(queues) } : {}),
    };
    res.status(ready ? 200 : 503).json(ready ? body : { error: 'Service not ready', ...body });
  });
  return router;
}
