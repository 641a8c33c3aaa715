import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import {
  clientAddressOf,
  createAuth,
  createFailedAuthThrottle,
  createRateLimiter,
  createUsageCounter,
  type TrustProxy,
  type UsageCounter,
} from '../api/access/index.ts';
import { createApp } from '../api/app.ts';
import { type Broadcaster, createBroadcaster } from '../api/ws/index.ts';
import { createConnectionSlots } from '../infra/connection-slots.ts';
import { queueBacklogs } from '../infra/queue-backlog.ts';
import { createRedis } from '../infra/redis.ts';
import { createStripeProcessor } from '../infra/stripe.ts';
import { createPlanAnnouncer } from '../workers/accounts/index.ts';
import { QUEUE_NAMES } from '../workers/jobs.ts';
import { createSubmitter } from '../workers/submit.ts';
import type { Shared } from './service-shared.ts';

/** The api role of app/service.ts: the HTTP API and the WebSocket on one server. */

function ephemeralSecret(logger: Logger): string {
  logger.warn('no JWT secret given: using an ephemeral one (sessions end with this process)');
  return randomBytes(48).toString('hex');
}

/** What the API and the WebSocket authenticate and count with. */
interface ApiAccess {
  apiRedis: ReturnType<typeof createRedis>;
  usage: UsageCounter;
  jwt: { secret: string };
  trustProxy: TrustProxy;
  failedAuth: ReturnType<typeof createFailedAuthThrottle>;
}

function createApiApp(
  s: Shared,
  access: ApiAccess,
  queues: ReturnType<Shared['producer']['queue']>[],
) {
  const {
    options,
    tokens,
    accounts,
    creators,
    logger,
    metrics,
    keys,
    sql,
    commandRedis,
    producer,
  } = s;
  return createApp({
    trustProxy: access.trustProxy,
    clock: s.clock,
    metricsToken: options.metricsToken,
    failedAuth: access.failedAuth,
    tokens,
    accounts,
    creators,
    knownChainIds: options.knownChainIds,
    logger,
    metrics,
    admin: { queues, credentials: options.admin },
    redis: access.apiRedis,
    redisPrefix: keys.prefix,
    jwt: access.jwt,
    usage: access.usage,
    submit: createSubmitter({
      chains: s.chains,
      tokens,
      producer,
      events: s.events,
      redis: commandRedis,
      redisPrefix: keys.prefix,
      logger,
    }),
    billing: {
      records: s.billingRecords,
      ...(options.billing
        ? { processor: createStripeProcessor(options.billing), prices: options.billing.prices }
        : {}),
      publicUrl: options.publicUrl,
    },
    announcePlanChange: createPlanAnnouncer({ redis: commandRedis, prefix: keys.prefix, producer }),
    readiness: [
      { name: 'postgres', check: async () => void (await sql`select 1`) },
      { name: 'redis', check: async () => void (await commandRedis.ping()) },
      {
        name: 'queues',
        check: async () => void (await producer.queue('detect').getJobCounts('waiting')),
      },
    ],
    backlog: () => queueBacklogs(QUEUE_NAMES.map((name) => producer.queue(name))),
  });
}

function createWebSocket(
  s: Shared,
  access: ApiAccess,
  server: Server,
  tailRedis: ReturnType<typeof createRedis>,
): Broadcaster {
  const { accounts, commandRedis, keys } = s;
  // The WebSocket authenticates like the API (same keys, JWTs and plans) and counts connections in Redis.
  const wsAuth = createAuth({
    accounts,
    jwt: access.jwt,
    usage: access.usage,
    redis: access.apiRedis,
    redisPrefix: keys.prefix,
    clock: s.clock,
    failedAuth: access.failedAuth,
    rateLimiter: createRateLimiter({
      redis: access.apiRedis,
      prefix: keys.prefix,
      clock: s.clock,
    }),
  });
  return createBroadcaster({
    server,
    redis: commandRedis,
    tailRedis,
    streamKey: keys.events,
    logger: s.logger,
    recheckIntervalMs: s.options.wsRecheckIntervalMs,
    access: {
      principalFor: (credential, address) => wsAuth.principalFor(credential, s.clock(), address),
      clientAddress: clientAddressOf(access.trustProxy),
      slots: createConnectionSlots(commandRedis, keys.prefix),
      watchlist: async (userId) =>
        new Set(
          (await accounts.watchlist(userId)).map(
            ({ entry }) => `${entry.chainId}:${entry.address}`,
          ),
        ),
    },
  });
}

export async function startApi(s: Shared) {
  const { options, logger, metrics, keys } = s;
  const queues = QUEUE_NAMES.map((name) => s.producer.queue(name));
  metrics.watchQueues(queues);
  // Auto-pipelining: the rate-limit windows, the auth generation and the cache version of many
  // concurrent requests share one write to Redis.
  const apiRedis = createRedis(options.redisUrl, 'commands', { enableAutoPipelining: true });
  const usage = createUsageCounter({
    redis: apiRedis,
    prefix: keys.prefix,
    accounts: s.accounts,
    clock: s.clock,
    logger,
  });
  usage.start();
  const access: ApiAccess = {
    apiRedis,
    usage,
    jwt: { secret: options.jwtSecret ?? ephemeralSecret(logger) },
    trustProxy: options.trustProxy ?? false,
    // One failed-authentication count per address for HTTP and WebSocket alike (it lives in Redis).
    failedAuth: createFailedAuthThrottle({ redis: apiRedis, prefix: keys.prefix }),
  };
  const server = createServer(createApiApp(s, access, queues));
  const tailRedis = createRedis(options.redisUrl, 'worker');
  const broadcaster = createWebSocket(s, access, server, tailRedis);
  metrics.watchWebSocket(() => broadcaster.clientCount());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, broadcaster, tailRedis, port, usage, apiRedis };
}
