import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import { healthRouter, type ReadinessCheck } from './routes/health.ts';
import { tokensRouter } from './routes/tokens.ts';

/** The Express application: routes only; the HTTP server and WebSocket live in api/server.ts. */

const MAX_BODY_BYTES = '100kb';

export interface AppDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  readiness: ReadinessCheck[];
  logger: Logger;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // Express 5 parses the query string with the simple parser: no nested objects from ?a[b]=c.
  app.set('query parser', 'simple');
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  app.use(healthRouter(deps.readiness));
  app.use('/api', tokensRouter({ tokens: deps.tokens, knownChainIds: deps.knownChainIds }));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
