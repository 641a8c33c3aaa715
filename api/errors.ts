import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import { isConnectionError } from '../db/client.ts';

/** Errors in the documented shape (docs/api.md): `{"error": "<message>"}`, never HTML, never a stack trace. */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const MESSAGES = {
  unauthorized: 'Unauthorized. Please log in again.',
  proRequired: 'PRO plan required',
  basicRequired: 'BASIC or PRO plan required',
  tokenNotFound: 'Token not found',
  apiKeyNotFound: 'API key not found',
  alreadyInWatchlist: 'Token already in watchlist',
  notInWatchlist: 'Token not in watchlist',
  emailTaken: 'Email already registered',
  refreshCooldown: 'Refresh cooldown active',
  creatorNotFound: 'Creator not found',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  internal: 'Internal server error',
  notFound: 'Not found',
  unavailable: 'Service temporarily unavailable',
} as const;

/** "field: why" for the first problems of a zod error. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'request'}: ${issue.message}`)
    .join('; ');
}

/** Too many connections: also a passing condition. */
const POSTGRES_TOO_MANY_CONNECTIONS = '53300';

/** Connection-level failures of Postgres or Redis: the service is degraded, not broken. */
function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; cause?: unknown; message?: string };
  if (isConnectionError(e) || e?.code === POSTGRES_TOO_MANY_CONNECTIONS) return true;
  if (
    e?.message?.includes("Stream isn't writeable") ||
    e?.message?.includes('Connection is closed')
  )
    return true;
  return e?.cause !== undefined && e.cause !== error && isUnavailable(e.cause);
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ error: MESSAGES.notFound });
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof HttpError) {
      res.set(error.headers).status(error.status).json({ error: error.message });
      return;
    }
    // body-parser errors carry a status and a type.
    const bodyError = error as { type?: string; status?: number };
    if (bodyError.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'body: malformed JSON' });
      return;
    }
    if (bodyError.type === 'entity.too.large') {
      res.status(413).json({ error: 'body: request body too large' });
      return;
    }
    if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
      res.status(bodyError.status).json({ error: `request: ${(error as Error).message}` });
      return;
    }
    if (isUnavailable(error)) {
      logger.warn({ err: (error as Error).message, path: req.path }, 'dependency unavailable');
      res.set('Retry-After', '5').status(503).json({ error: MESSAGES.unavailable });
      return;
    }
    logger.error({ err: error, path: req.path, method: req.method }, 'unhandled error');
    res.status(500).json({ error: MESSAGES.internal });
  };
}
