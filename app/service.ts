import { hostname } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ChainConfig } from '../src/config/chains.ts';
import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createAnalysisRepository } from '../db/repositories/analyses.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { createScanRepository } from '../db/repositories/scan.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { createDexRepository } from '../db/repositories/dex.ts';
import { createAggregatorClient } from '../src/dex/aggregator.ts';
import { createDexProcessor } from '../workers/dex.ts';
import { startDexScheduler, type DexScheduler } from '../workers/dex-scheduler.ts';
import { startHistoryMaintenance, type HistoryMaintenance } from '../workers/history-maintenance.ts';
import { createHistoryRepository } from '../db/repositories/history.ts';
import { createEventPublisher } from '../infra/events.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { createMetrics, type Metrics } from '../infra/metrics.ts';
import { bumpTokenVersion } from '../infra/token-cache.ts';
import { bumpAuthGeneration } from '../infra/auth-generation.ts';
import { createApp } from '../api/app.ts';
import { createUsageCounter, type UsageCounter } from '../api/usage.ts';
import { createBroadcaster, type Broadcaster } from '../api/ws.ts';
import { createAuth } from '../api/auth.ts';
import { createFailedAuthThrottle } from '../api/auth-throttle.ts';
import { clientAddressOf, type TrustProxy } from '../api/client-address.ts';
import { createRateLimiter } from '../api/rate-limit.ts';
import { createConnectionSlots } from '../infra/connection-slots.ts';
import { createAccountsProcessor } from '../workers/accounts.ts';
import { createAlertRepository } from '../db/repositories/alerts.ts';
import { createMailer, startAlertsConsumer, type AlertsConsumer, type Mailer } from '../workers/alerts.ts';
import { createBytecodeProcessor } from '../workers/bytecode.ts';
import { ACCOUNTS_SCHEDULER, jobCatalog, QUEUE_NAMES } from '../workers/catalog.ts';
import { createSubmitter } from '../workers/submit.ts';
import { checkDexFactories } from '../workers/dex-factories.ts';
import { createDetectProcessor } from '../workers/detect.ts';
import { createChainRuntimes, type ChainRuntime } from '../workers/chain-runtime.ts';
import { createLiquidityInput, createRiskProcessor } from '../workers/risk.ts';
import { createSelectorsProcessor } from '../workers/selectors.ts';
import { createResimulate, createSimulateProcessor, type ResimulateReason } from '../workers/simulate.ts';
import { createProducer } from '../workers/queues.ts';
import { startWorkers, type WorkerPool } from '../workers/queues.ts';
import { createScanner, type Scanner } from '../workers/scanner.ts';

/**
 * Assembles the roles of one process (docs/architecture.md): api, worker, scanner, scheduler, or all.
 * The same code serves every role; `stop` shuts them down in dependency order.
 */

export const ROLES = ['api', 'worker', 'scanner', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

export interface ServiceOptions {
  roles: ReadonlySet<Role>;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  chains: ChainConfig[];
  knownChainIds: ReadonlySet<number>;
  port: number;
  host: string;
  logger: Logger;
  /** HS256 secret of the API's JWTs (app/jwt-secret.ts); an ephemeral one when absent. */
  jwtSecret?: string;
  /** Database pool size; keep it within an embedded PGlite's connection slots. */
  poolMax?: number;
  workerDrainDeadlineMs?: number;
  /** SMTP_URL: alert emails of the worker role's alerts consumer; without it alerts are recorded only. */
  smtpUrl?: string;
  /** ALERT_EMAIL_FROM. */
  alertEmailFrom?: string;
  /** Tests shorten how long a failed alert event stays pending before it is retried. */
  alertsClaimIdleMs?: number;
  /** Operator login for Bull Board; without it the board answers 503. */
  admin?: { user: string; password: string };
  /** TRUST_PROXY (Express's `trust proxy`); off by default: the client address is the socket's. */
  trustProxy?: TrustProxy;
  /** METRICS_TOKEN: /metrics wants it as a Bearer token. */
  metricsToken?: string;
  /** How often open WebSockets are judged again (tests shorten it). */
  wsRecheckIntervalMs?: number;
  /** DEX refresh settings (docs/dex.md: every 60 s); tests shorten the interval. */
  dex?: {
    intervalMs?: number;
    /** DEX_IDLE_AFTER_MINUTES in ms. */
    idleAfterMs?: number;
    /** DEXSCREENER_URL: a DexScreener-compatible API to fill gaps in chain data. */
    aggregatorUrl?: string;
    aggregatorRequestsPerMinute?: number;
    /** false: plain JSON-RPC batches instead of Multicall3 (benchmark baseline). */
    multicall?: boolean;
  };
}

/** Default of DEX_IDLE_AFTER_MINUTES when a caller sets nothing. */
const DEFAULT_DEX_IDLE_AFTER_MS = 6 * 3_600_000;

export interface Service {
  /** The API's base URL when the api role runs. */
  url?: string;
  port?: number;
  chains: ReadonlyMap<number, ChainRuntime>;
  scanners: Scanner[];
  metrics: Metrics;
  /** Runs simulate → risk again for a token under a new run key (first liquidity, refresh). */
  resimulate(chainId: number, address: string, reason: ResimulateReason): Promise<string>;
  stop(): Promise<void>;
}

function ephemeralSecret(logger: Logger): string {
  logger.warn('no JWT secret given: using an ephemeral one (sessions end with this process)');
  return randomBytes(48).toString('hex');
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { logger, roles } = options;
  const keys = keySpace(options.redisPrefix);
  const { db, sql, close: closeDb } = createDb(options.databaseUrl, { max: options.poolMax });
  const commandRedis = createRedis(options.redisUrl, 'commands');
  const producerConnection = createRedis(options.redisUrl, 'producer');
  const workerConnection = roles.has('worker') ? createRedis(options.redisUrl, 'worker') : undefined;
  const producer = createProducer(producerConnection, keys.prefix);
  const tokens = createTokenRepository(db);
  const accounts = createAccountRepository(db);
  const analyses = createAnalysisRepository(db);
  const creators = createCreatorRepository(db);
  const scan = createScanRepository(db);
  const events = createEventPublisher(commandRedis, keys.events);
  const metrics = createMetrics();
  const chains = createChainRuntimes(options.chains, logger, metrics);
  const dexRepo = createDexRepository(db);
  const dexOptions = options.dex ?? {};
  const tokenChanged = (chainId: number, address: string) => bumpTokenVersion(commandRedis, keys.prefix, { chainId, address });

  let pool: WorkerPool | undefined;
  if (workerConnection) {
    // Advisory and in the background: a slow node must not hold up the start.
    void checkDexFactories(chains, logger).catch((error: unknown) => logger.warn({ err: error }, 'DEX factory check failed'));
    const processDetect = createDetectProcessor({ chains, tokens, producer, events, logger, dex: dexRepo, onChanged: tokenChanged });
    pool = startWorkers({
      connection: workerConnection,
      prefix: keys.prefix,
      logger,
      onJobDone: (queue, status, seconds) => metrics.stageDuration.observe({ queue, status }, seconds),
      processors: {
        detect: processDetect,
        replay: processDetect,
        bytecode: createBytecodeProcessor({ chains, tokens, producer, logger, onChanged: tokenChanged }),
        selectors: createSelectorsProcessor({ chains, analyses, producer, logger }),
        simulate: createSimulateProcessor({ chains, analyses, tokens, producer, logger }),
        risk: createRiskProcessor({
          chains, analyses, tokens, creators, events, logger, producer, onChanged: tokenChanged,
          liquidity: createLiquidityInput(tokens),
        }),
        accounts: createAccountsProcessor({ accounts, logger, onPlansChanged: () => bumpAuthGeneration(commandRedis, keys.prefix) }),
        dex: createDexProcessor({
          chains, dex: dexRepo, producer, events, logger,
          onLiquidityPulled: (chainId, address) => creators.recordLiquidityPulled(chainId, address),
          idleAfterMs: dexOptions.idleAfterMs ?? DEFAULT_DEX_IDLE_AFTER_MS,
          intervalMs: dexOptions.intervalMs,
          multicall: dexOptions.multicall,
          aggregator: dexOptions.aggregatorUrl
            ? createAggregatorClient({ baseUrl: dexOptions.aggregatorUrl, requestsPerMinute: dexOptions.aggregatorRequestsPerMinute })
            : undefined,
        }),
      },
    });
  }

  // The alerts consumer (workers/alerts.ts) runs with the worker role, on a connection of its own.
  let alertsConsumer: AlertsConsumer | undefined;
  let alertsRedis: ReturnType<typeof createRedis> | undefined;
  let mailer: Mailer | undefined;
  if (workerConnection) {
    alertsRedis = createRedis(options.redisUrl, 'worker');
    mailer = options.smtpUrl ? createMailer(options.smtpUrl) : undefined;
    alertsConsumer = await startAlertsConsumer({
      redis: alertsRedis, streamKey: keys.events, prefix: keys.prefix, alerts: createAlertRepository(db), events, logger,
      mailer, from: options.alertEmailFrom, claimIdleMs: options.alertsClaimIdleMs,
    });
  }

  const scanners: Scanner[] = [];
  if (roles.has('scanner')) {
    const holderId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    for (const chain of chains.values()) {
      const label = { chain: String(chain.config.chainId) };
      const scanner = createScanner({
        chain, scan, producer, redis: commandRedis, events, leaseKey: keys.lease(`scanner:${chain.config.chainId}`), holderId, logger,
        onLag: (blocks) => metrics.scannerLag.set(label, blocks),
        onReorg: () => metrics.reorgs.inc(label),
      });
      scanner.start();
      scanners.push(scanner);
    }
  }

  let server: Server | undefined;
  let broadcaster: Broadcaster | undefined;
  let tailRedis: ReturnType<typeof createRedis> | undefined;
  let port: number | undefined;
  let usage: UsageCounter | undefined;
  let apiRedis: ReturnType<typeof createRedis> | undefined;
  if (roles.has('api')) {
    const queues = QUEUE_NAMES.map((name) => producer.queue(name));
    metrics.watchQueues(queues);
    // Auto-pipelining: the rate-limit windows, the auth generation and the cache version of many
    // concurrent requests share one write to Redis.
    apiRedis = createRedis(options.redisUrl, 'commands', { enableAutoPipelining: true });
    usage = createUsageCounter({ redis: apiRedis, prefix: keys.prefix, accounts, clock: () => new Date(), logger });
    usage.start();
    const jwt = { secret: options.jwtSecret ?? ephemeralSecret(logger) };
    const trustProxy = options.trustProxy ?? false;
    // One failed-authentication count per address for HTTP and WebSocket alike (it lives in Redis).
    const failedAuth = createFailedAuthThrottle({ redis: apiRedis, prefix: keys.prefix });
    const app = createApp({
      trustProxy,
      metricsToken: options.metricsToken,
      failedAuth,
      tokens,
      accounts,
      creators,
      knownChainIds: options.knownChainIds,
      logger,
      metrics,
      admin: { queues, credentials: options.admin },
      redis: apiRedis,
      redisPrefix: keys.prefix,
      jwt,
      usage,
      submit: createSubmitter({ chains, tokens, producer, events, redis: commandRedis, redisPrefix: keys.prefix, logger }),
      readiness: [
        { name: 'postgres', check: async () => void (await sql`select 1`) },
        { name: 'redis', check: async () => void (await commandRedis.ping()) },
        { name: 'queues', check: async () => void (await producer.queue('detect').getJobCounts('waiting')) },
      ],
    });
    server = createServer(app);
    tailRedis = createRedis(options.redisUrl, 'worker');
    // The WebSocket authenticates like the API (same keys, JWTs and plans) and counts connections in Redis.
    const wsAuth = createAuth({
      accounts, jwt, usage, redis: apiRedis, redisPrefix: keys.prefix, clock: () => new Date(), failedAuth,
      rateLimiter: createRateLimiter({ redis: apiRedis, prefix: keys.prefix, clock: () => new Date() }),
    });
    broadcaster = createBroadcaster({
      server, redis: commandRedis, tailRedis, streamKey: keys.events, logger, recheckIntervalMs: options.wsRecheckIntervalMs,
      access: {
        principalFor: (credential, address) => wsAuth.principalFor(credential, new Date(), address),
        clientAddress: clientAddressOf(trustProxy),
        slots: createConnectionSlots(commandRedis, keys.prefix),
        watchlist: async (userId) => new Set((await accounts.watchlist(userId)).map(({ entry }) => `${entry.chainId}:${entry.address}`)),
      },
    });
    const counted = broadcaster;
    metrics.watchWebSocket(() => counted.clientCount());
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(options.port, options.host, () => resolve());
    });
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : options.port;
  }
  let dexScheduler: DexScheduler | undefined;
  let schedulerConnection: ReturnType<typeof createRedis> | undefined;
  let historyMaintenance: HistoryMaintenance | undefined;
  if (roles.has('scheduler')) {
    historyMaintenance = startHistoryMaintenance({ history: createHistoryRepository(db), logger });
    schedulerConnection = createRedis(options.redisUrl, 'worker');
    dexScheduler = await startDexScheduler({
      workerConnection: schedulerConnection, producerConnection, prefix: keys.prefix, dex: dexRepo, producer,
      chainIds: [...chains.keys()], logger, intervalMs: dexOptions.intervalMs,
      dueForResimulation: (chainId, before, limit) => analyses.dueForResimulation(chainId, before, limit),
    });
    // A job scheduler, not a legacy repeatable job: upserting is idempotent across restarts and instances.
    await producer.queue('accounts').upsertJobScheduler(ACCOUNTS_SCHEDULER.id, { every: ACCOUNTS_SCHEDULER.everyMs }, {
      name: 'accounts',
      data: ACCOUNTS_SCHEDULER.data,
      opts: jobCatalog.accounts.options,
    });
    logger.info({ scheduler: ACCOUNTS_SCHEDULER.id, every_ms: ACCOUNTS_SCHEDULER.everyMs }, 'account maintenance scheduled');
  }

  const displayHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: port === undefined ? undefined : `http://${displayHost}:${port}`,
    port,
    chains,
    scanners,
    metrics,
    resimulate: createResimulate(producer),
    async stop() {
      // Order matters: no new blocks, then no new jobs, then no clients, then the pools.
      await Promise.all(scanners.map((s) => s.stop()));
      await dexScheduler?.close();
      await historyMaintenance?.close();
      await pool?.close(options.workerDrainDeadlineMs);
      await alertsConsumer?.stop();
      mailer?.close();
      await broadcaster?.close();
      await usage?.stop();
      if (server) {
        server.closeIdleConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
      await producer.close();
      for (const connection of [commandRedis, producerConnection, workerConnection, tailRedis, schedulerConnection, apiRedis, alertsRedis]) {
        connection?.disconnect();
      }
      await closeDb();
    },
  };
}
