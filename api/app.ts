import type { Queue } from 'bullmq';
import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AccountRepository } from '../db/repositories/accounts.ts';
import type { CreatorRepository } from '../db/repositories/creators.ts';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import type { Metrics } from '../infra/metrics.ts';
import { createListCache, createTokenCache } from '../infra/token-cache.ts';
import type { CompleteRecord } from '../src/tokens/complete.ts';
import { type AnnouncePlanChange, createPlanAnnouncer } from '../workers/accounts/index.ts';
import type { Submitter } from '../workers/submit.ts';
import {
  bearerGuard,
  type Clock,
  createAuth,
  createFailedAuthThrottle,
  createRateLimiter,
  createUsageCounter,
  type FailedAuthThrottle,
  type JwtConfig,
  type UsageCounter,
} from './access/index.ts';
import { adminRouter } from './admin.ts';
import { errorHandler, MESSAGES, notFoundHandler } from './errors.ts';
import { mountRoutes, type RouteSpec } from './route.ts';
import {
  authRoutes,
  type BacklogReader,
  type BillingSetup,
  billingRoutes,
  creatorsRoutes,
  docsRouter,
  healthRouter,
  preferencesRoutes,
  proRoutes,
  type ReadinessCheck,
  tokensRoutes,
  watchlistRoutes,
} from './routes/index.ts';
import { webRouter } from './web.ts';

/** The Express application: routes only; the HTTP server and WebSocket live in app/service.ts. */

const MAX_BODY_BYTES = '100kb';
/** Webhook events carry whole invoices: more room than a request of a client. */
const MAX_WEBHOOK_BYTES = '1mb';
/** No request waits longer than this for a dependency: after it, the answer is 503, not a hang. */
const REQUEST_DEADLINE_MS = 5_000;

const deadline: RequestHandler = (_req, res, next) => {
  const timer = setTimeout(() => {
    if (!res.headersSent)
      res.set('Retry-After', '5').status(503).json({ error: MESSAGES.unavailable });
  }, REQUEST_DEADLINE_MS);
  res.on('close', () => clearTimeout(timer));
  next();
};
/** The OpenAPI document's info: /docs/openapi.json and the web app's generated types (api/document.ts). */
export const API_INFO = {
  title: 'token-monitor API',
  version: '1.0.0',
  description:
    'Newly deployed EVM tokens, their risk analysis, liquidity and creators. Errors are always `{"error": "<message>"}`.',
};

export interface AppDeps {
  tokens: TokenRepository;
  accounts: AccountRepository;
  creators: CreatorRepository;
  knownChainIds: ReadonlySet<number>;
  readiness: ReadinessCheck[];
  /** Each queue's backlog, shown on `/ready` (never a reason to be not ready). */
  backlog?: BacklogReader;
  logger: Logger;
  metrics?: Metrics;
  /** Bull Board: the queues to show, and the operator login (none: the board answers 503). */
  admin?: { queues: Queue[]; credentials?: { user: string; password: string } };
  /** Rate limits, usage counters, the token cache and refresh cooldowns live here. */
  redis: Redis;
  redisPrefix: string;
  jwt: JwtConfig;
  /** Runs a contract through the pipeline (refresh). */
  submit: Submitter;
  /** Injected for tests of the day window and trials; defaults to the system clock. */
  clock?: Clock;
  /** The usage counter whose flusher the caller runs; one is made when absent. */
  usage?: UsageCounter;
  /** The web app's bundle (default web/dist); false: no web app. */
  web?: { distDir?: string } | false;
  /**
   * Express's `trust proxy` (TRUST_PROXY): which hops may set X-Forwarded-For. Off by default,
   * so the client address is the socket's and nobody can choose theirs.
   */
  trustProxy?: boolean | number | string;
  /** METRICS_TOKEN: /metrics then wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** Failed authentication per client address; one on Redis is made when absent. */
  failedAuth?: FailedAuthThrottle;
  /** Size of the per-process principal cache (tests make it small). */
  principalCacheMax?: number;
  /** Check every JSON answer against the schema its route declares (tests): a mismatch becomes a 500 naming it. */
  validateResponses?: boolean;
  /** Billing records and, when configured, the payment processor (api/routes/billing.ts). */
  billing?: BillingSetup;
  /**
   * What follows a plan change the API made (a billing webhook): the auth generation, and the
   * emails owed handed to the workers. Default: the auth generation only (the emails then wait
   * for the next maintenance run).
   */
  announcePlanChange?: AnnouncePlanChange;
}

function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route pattern, never the raw path: label values stay bounded.
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      metrics.httpDuration.observe(
        { method: req.method, route, status: String(res.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}

/** Prometheus metrics: every request timed, and /metrics behind its bearer token. */
function mountMetrics(app: Express, deps: AppDeps) {
  if (!deps.metrics) return;
  const metrics = deps.metrics;
  app.use(httpMetrics(metrics));
  app.get('/metrics', bearerGuard(deps.metricsToken), async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/** The queue dashboard, with its own failed-login throttle. */
function mountAdmin(app: Express, deps: AppDeps) {
  if (!deps.admin) return;
  const adminThrottle = createFailedAuthThrottle({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    scope: 'admin',
  });
  app.use(adminRouter(deps.admin.queues, deps.admin.credentials, adminThrottle));
}

/** Authentication with what it counts against: rate limits, usage and failed attempts. */
function createAuthStack(deps: AppDeps, clock: Clock) {
  const failedAuth =
    deps.failedAuth ?? createFailedAuthThrottle({ redis: deps.redis, prefix: deps.redisPrefix });
  const rateLimiter = createRateLimiter({ redis: deps.redis, prefix: deps.redisPrefix, clock });
  const usage =
    deps.usage ??
    createUsageCounter({
      redis: deps.redis,
      prefix: deps.redisPrefix,
      accounts: deps.accounts,
      clock,
      logger: deps.logger,
    });
  const auth = createAuth({
    accounts: deps.accounts,
    jwt: deps.jwt,
    rateLimiter,
    usage,
    clock,
    redis: deps.redis,
    redisPrefix: deps.redisPrefix,
    failedAuth,
    principalCacheMax: deps.principalCacheMax,
  });
  return { auth, usage, failedAuth };
}

/** Every route, declared once: mounted, validated and documented from the same declaration. */
function declareRoutes(
  deps: AppDeps,
  { auth, usage, failedAuth }: ReturnType<typeof createAuthStack>,
  clock: Clock,
): RouteSpec[] {
  const common = { knownChainIds: deps.knownChainIds, auth };
  const listCache = createListCache(deps.redis, deps.redisPrefix);
  return [
    ...authRoutes({
      accounts: deps.accounts,
      auth,
      jwt: deps.jwt,
      usage,
      clock,
      redis: deps.redis,
      redisPrefix: deps.redisPrefix,
    }),
    ...proRoutes({
      ...common,
      tokens: deps.tokens,
      cache: createTokenCache<CompleteRecord>(deps.redis, deps.redisPrefix),
      listCache,
      logger: deps.logger,
    }),
    ...tokensRoutes({
      ...common,
      tokens: deps.tokens,
      submit: deps.submit,
      redis: deps.redis,
      redisPrefix: deps.redisPrefix,
      listCache,
    }),
    ...creatorsRoutes({ ...common, creators: deps.creators }),
    ...watchlistRoutes({ ...common, accounts: deps.accounts, tokens: deps.tokens }),
    ...preferencesRoutes({ accounts: deps.accounts, auth, clock }),
    ...billingRoutes({
      auth,
      accounts: deps.accounts,
      setup: deps.billing,
      announce:
        deps.announcePlanChange ??
        createPlanAnnouncer({ redis: deps.redis, prefix: deps.redisPrefix }),
      failedAuth,
      clock,
      logger: deps.logger,
    }),
  ];
}

export function createApp(deps: AppDeps): Express {
  const clock = deps.clock ?? (() => new Date());
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  // Express 5 parses the query string with the simple parser: no nested objects from ?a[b]=c.
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.use(deadline);
  mountMetrics(app, deps);
  mountAdmin(app, deps);
  const routes = declareRoutes(deps, createAuthStack(deps, clock), clock);
  // Raw bytes where a signature covers them; body-parser then leaves those requests alone.
  for (const spec of routes.filter((r) => r.rawBody))
    app.use(spec.path, express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }));
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  app.locals.routes = routes;

  app.use(healthRouter(deps.readiness, deps.logger, deps.backlog));
  app.use(docsRouter(routes, API_INFO));
  mountRoutes(app, routes, { validateResponses: deps.validateResponses });

  // The web app (docs/web.md) last: any GET the API does not answer is a page of the app.
  if (deps.web !== false) app.use(webRouter(deps.web?.distDir));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
