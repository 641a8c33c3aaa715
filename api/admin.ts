import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { type RequestHandler, Router } from 'express';
import type { FailedAuthThrottle } from './access/index.ts';
import { sameSecret } from './access/index.ts';
import { MESSAGES } from './errors.ts';

/**
 * Bull Board at /admin/queues behind the operator login (HTTP Basic, ADMIN_USER / ADMIN_PASSWORD).
 * Wrong logins count per client address (api/access/auth-throttle.ts, scope `admin`): past the limit the
 * board answers 429 to that address, right password or not, until the window ends.
 */

export const ADMIN_PATH = '/admin/queues';
const REALM = 'token-monitor operators';

function loginMatches(header: string, credentials: { user: string; password: string }): boolean {
  const [scheme, encoded] = header.split(' ');
  if (scheme !== 'Basic' || !encoded) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  // Both comparisons always run, so a wrong user costs the same time as a wrong password.
  const userOk = sameSecret(decoded.slice(0, separator), credentials.user);
  const passwordOk = sameSecret(decoded.slice(separator + 1), credentials.password);
  return separator > 0 && userOk && passwordOk;
}

export function operatorLogin(
  credentials: { user: string; password: string },
  throttle?: FailedAuthThrottle,
): RequestHandler {
  return async (req, res, next) => {
    const address = req.ip ?? 'unknown';
    const tooMany = (retryAfterSeconds: number) => {
      res
        .set('Retry-After', String(retryAfterSeconds))
        .status(429)
        .json({ error: MESSAGES.rateLimited });
    };
    const before = await throttle?.blocked(address);
    if (before?.blocked) return tooMany(before.retryAfterSeconds);
    if (loginMatches(req.headers.authorization ?? '', credentials)) return next();
    // A browser's first visit carries no credential yet: only a wrong one counts as a failure.
    const after = req.headers.authorization ? await throttle?.fail(address) : undefined;
    if (after?.blocked) return tooMany(after.retryAfterSeconds);
    res
      .set('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`)
      .status(401)
      .json({ error: MESSAGES.unauthorized });
  };
}

export function adminRouter(
  queues: Queue[],
  credentials: { user: string; password: string } | undefined,
  throttle?: FailedAuthThrottle,
): Router {
  const router = Router();
  if (!credentials) {
    router.use(ADMIN_PATH, (_req, res) => {
      res
        .status(503)
        .json({ error: 'Operator login is not configured: set ADMIN_USER and ADMIN_PASSWORD' });
    });
    return router;
  }
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter });
  router.use(ADMIN_PATH, operatorLogin(credentials, throttle), serverAdapter.getRouter());
  return router;
}
