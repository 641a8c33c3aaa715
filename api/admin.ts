import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type RequestHandler } from 'express';

/** Bull Board at /admin/queues behind the operator login (HTTP Basic, ADMIN_USER / ADMIN_PASSWORD). */

export const ADMIN_PATH = '/admin/queues';
const REALM = 'token-monitor operators';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of equal-length digests: the answer time tells nothing about the secret. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function operatorLogin(credentials: { user: string; password: string }): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    if (scheme === 'Basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const separator = decoded.indexOf(':');
      const user = decoded.slice(0, separator);
      const password = decoded.slice(separator + 1);
      // Both comparisons always run, so a wrong user costs the same time as a wrong password.
      const userOk = sameSecret(user, credentials.user);
      const passwordOk = sameSecret(password, credentials.password);
      if (separator > 0 && userOk && passwordOk) {
        next();
        return;
      }
    }
    res.set('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`).status(401).json({ error: 'Unauthorized. Please log in again.' });
  };
}

export function adminRouter(queues: Queue[], credentials: { user: string; password: string } | undefined): Router {
  const router = Router();
  if (!credentials) {
    router.use(ADMIN_PATH, (_req, res) => {
      res.status(503).json({ error: 'Operator login is not configured: set ADMIN_USER and ADMIN_PASSWORD' });
    });
    return router;
  }
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter });
  router.use(ADMIN_PATH, operatorLogin(credentials), serverAdapter.getRouter());
  return router;
}
