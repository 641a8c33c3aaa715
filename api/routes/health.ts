import { Router } from 'express';
import type { Logger } from 'pino';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

/**
 * `/health`: the process answers. `/ready`: its dependencies answer too. A failing dependency is
 * named (`"postgres": "unavailable"`), its error text goes to the log only: driver errors carry
 * hosts, users and sometimes passwords.
 */
export function healthRouter(checks: ReadinessCheck[], logger?: Logger): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
            }),
          ]);
          return [name, 'ok'] as const;
        } catch (error) {
          logger?.warn(
            { dependency: name, err: (error as Error).message },
            'readiness check failed',
          );
          return [name, 'unavailable'] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const ready = results.every(([, status]) => status === 'ok');
    const body = { status: ready ? 'ready' : 'not-ready', checks: Object.fromEntries(results) };
    res.status(ready ? 200 : 503).json(ready ? body : { error: 'Service not ready', ...body });
  });
  return router;
}
