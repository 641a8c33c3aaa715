import type { Logger } from 'pino';
import type { TrustProxy } from '../api/access/index.ts';
import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createAnalysisRepository } from '../db/repositories/analyses.ts';
import { createBillingRepository } from '../db/repositories/billing.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { createDexRepository } from '../db/repositories/dex.ts';
import { createHolderRepository } from '../db/repositories/holders.ts';
import { createScanRepository } from '../db/repositories/scan.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { createDetectionSignal } from '../infra/detection-signal.ts';
import { createEventPublisher } from '../infra/events.ts';
import { createMetrics } from '../infra/metrics.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { bumpTokenVersion } from '../infra/token-cache.ts';
import type { BillingConfig } from '../src/billing/index.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import { createMailer } from '../workers/alerts.ts';
import { createChainRuntimes } from '../workers/chain-runtime.ts';
import { ANALYSIS_LANE_QUEUES, DETECTION_LANE_QUEUES, type QueueName } from '../workers/jobs.ts';
import { createProducer } from '../workers/queues.ts';

/**
 * What every role of one process shares (app/service.ts assembles the roles): its options and the
 * connections, repositories, producer and chain runtimes opened once for all of them. A leaf of
 * the service's files, so that the roles' files import it without importing the assembly.
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
  /** WORKER_QUEUES: the queues this process's worker role takes; absent: all. */
  workerQueues?: readonly QueueName[];
  /** ANALYSIS_THREADS: threads for the static analysis (0: in process); absent: the default. */
  analysisThreads?: number;
  /**
   * SMTP_URL: the worker role's emails (alerts, and plan notices: a failed payment, a downgrade);
   * without it alerts are recorded only and no email is sent.
   */
  smtpUrl?: string;
  /** ALERT_EMAIL_FROM. */
  alertEmailFrom?: string;
  /** Tests shorten how long a failed alert event stays pending before it is retried. */
  alertsClaimIdleMs?: number;
  /** Billing through Stripe (STRIPE_…); absent: not configured, plans change by the operator only. */
  billing?: BillingConfig;
  /** PUBLIC_URL: where Checkout and the billing portal send the browser back. */
  publicUrl?: string;
  /** Operator login for Bull Board; without it the board answers 503. */
  admin?: { user: string; password: string };
  /** TRUST_PROXY (Express's `trust proxy`); off by default: the client address is the socket's. */
  trustProxy?: TrustProxy;
  /** METRICS_TOKEN: /metrics wants it as a Bearer token. */
  metricsToken?: string;
  /** The time plans are judged by (trials, failed-payment grace, cancellations); tests move it. */
  clock?: () => Date;
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

/** What every role shares: the database, the Redis connections, repositories, producer and chains. */
export function openShared(options: ServiceOptions) {
  const { logger, roles } = options;
  const keys = keySpace(options.redisPrefix);
  const { db, sql, close: closeDb } = createDb(options.databaseUrl, { max: options.poolMax });
  const commandRedis = createRedis(options.redisUrl, 'commands');
  const producerConnection = createRedis(options.redisUrl, 'producer');
  const workerConnection = roles.has('worker')
    ? createRedis(options.redisUrl, 'worker')
    : undefined;
  const producer = createProducer(producerConnection, keys.prefix);
  const tokens = createTokenRepository(db);
  const accounts = createAccountRepository(db);
  const analyses = createAnalysisRepository(db);
  const creators = createCreatorRepository(db);
  const scan = createScanRepository(db);
  const holders = createHolderRepository(db);
  const events = createEventPublisher(commandRedis, keys.events);
  const metrics = createMetrics();
  const takes = (queue: QueueName) =>
    roles.has('worker') && (!options.workerQueues || options.workerQueues.includes(queue));
  // Detection and analysis in different processes (WORKER_QUEUES) share the node through it.
  const detectionSignal =
    DETECTION_LANE_QUEUES.some(takes) || ANALYSIS_LANE_QUEUES.some(takes)
      ? createDetectionSignal({
          publisher: commandRedis,
          subscriber: ANALYSIS_LANE_QUEUES.some(takes)
            ? createRedis(options.redisUrl, 'worker')
            : undefined,
          channel: keys.key('detecting'),
          logger,
        })
      : undefined;
  const chains = createChainRuntimes(options.chains, logger, metrics, detectionSignal);
  const dexRepo = createDexRepository(db);
  const tokenChanged = (chainId: number, address: string) =>
    bumpTokenVersion(commandRedis, keys.prefix, { chainId, address });
  // The worker role's emails: alerts and plan notices share one transport.
  const mailer = options.smtpUrl && roles.has('worker') ? createMailer(options.smtpUrl) : undefined;
  return {
    options,
    clock: options.clock ?? (() => new Date()),
    logger,
    keys,
    db,
    sql,
    closeDb,
    commandRedis,
    producerConnection,
    workerConnection,
    producer,
    tokens,
    accounts,
    billingRecords: createBillingRepository(db),
    mailer,
    analyses,
    creators,
    scan,
    holders,
    events,
    metrics,
    detectionSignal,
    chains,
    dexRepo,
    dexOptions: options.dex ?? {},
    tokenChanged,
  };
}

export type Shared = ReturnType<typeof openShared>;
