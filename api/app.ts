import express, { type Express, type RequestHandler } from 'express';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Metrics } from '../infra/metrics.ts';
import { adminRouter } from './admin.ts';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import { errorHandler, MESSAGES, notFoundHandler } from './errors.ts';
import { healthRouter, type ReadinessCheck } from './routes/health.ts';
import { tokensRouter } from './routes/tokens.ts';

/** The Express application: routes only; the HTTP server and WebSocket live in api/server.ts. */

const MAX_BODY_BYTES = '100kb';
/** No request waits longer than this for a dependency: after it, the answer is 503, not a hang. */
const REQUEST_DEADLINE_MS = 5_000;

const deadline: RequestHandler = (_req, res, next) => {
  const timer = setTimeout(() => {
    if (!res.headersSent) res.set('Retry-After', '5').status(503).json({ error: MESSAGES.unavailable });
  }, REQUEST_DEADLINE_MS);
  res.on('close', () => clearTimeout(timer));
  next();
};

export interface AppDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  readiness: ReadinessCheck[];
  logger: Logger;
  metrics?: Metrics;
  /** Bull Board: the queues to show, and the operator login (none: the board answers 503). */
  admin?: { queues: Queue[]; credentials?: { user: string; password: string } };
}

function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route pattern, never the raw path: label values stay bounded.
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // Express 5 parses the query string with the simple parser: no nested objects from ?a[b]=c.
  app.set('query parser', 'simple');
  app.use(deadline);
  if (deps.metrics) {
    const metrics = deps.metrics;
    app.use(httpMetrics(metrics));
    app.get('/metrics', async (_req, res) => {
      res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  if (deps.admin) app.use(adminRouter(deps.admin.queues, deps.admin.credentials));
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  app.use(healthRouter(deps.readiness));
  app.use('/api', tokensRouter({ tokens: deps.tokens, knownChainIds: deps.knownChainIds }));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
