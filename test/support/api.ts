import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../../api/access/index.ts';
import type { AppDeps } from '../../api/app.ts';
import type { ReadinessCheck } from '../../api/routes/index.ts';
import type { Database } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createCreatorRepository } from '../../db/repositories/creators.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import type { ChainRuntime } from '../../workers/chain-runtime.ts';
import type { Producer } from '../../workers/queues.ts';
import { createSubmitter } from '../../workers/submit.ts';

/** The API's dependencies on real Postgres and Redis, for tests that build the app themselves. */

export const TEST_JWT_SECRET = randomBytes(32).toString('hex');

export function testAppDeps(options: {
  db: Database;
  redis: Redis;
  prefix: string;
  knownChainIds: ReadonlySet<number>;
  readiness?: ReadinessCheck[];
  clock?: Clock;
  logger?: Logger;
  producer?: Producer;
  chains?: ReadonlyMap<number, ChainRuntime>;
  jwtSecret?: string;
  /** Tests play many clients from one host through X-Forwarded-For, as behind a proxy on loopback. */
  trustProxy?: AppDeps['trustProxy'];
}): AppDeps {
  const tokens = createTokenRepository(options.db);
  const producer = options.producer ?? refusingProducer();
  return {
    tokens,
    accounts: createAccountRepository(options.db),
    creators: createCreatorRepository(options.db),
    knownChainIds: options.knownChainIds,
    readiness: options.readiness ?? [],
    logger: options.logger ?? silentLogger,
    redis: options.redis,
    redisPrefix: options.prefix,
    jwt: { secret: options.jwtSecret ?? TEST_JWT_SECRET },
    clock: options.clock,
    // Every answer is checked against its route's declared schema: a disagreement fails the test.
    validateResponses: true,
    trustProxy: options.trustProxy ?? 'loopback',
    submit: createSubmitter({
      chains: options.chains ?? new Map(),
      tokens,
      producer,
      events: createEventPublisher(options.redis, `${options.prefix}:events`),
      redis: options.redis,
      redisPrefix: options.prefix,
      logger: options.logger ?? silentLogger,
    }),
  };
}

/** For apps whose tests never enqueue: any attempt fails loudly. */
function refusingProducer(): Producer {
  const refuse = () => {
    throw new Error('this test app has no queue producer');
  };
  return {
    enqueue: async () => refuse(),
    enqueueBulk: async () => refuse(),
    queue: refuse,
    close: async () => {},
  };
}

export async function listen(app: RequestListener): Promise<{ server: Server; base: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface JsonResult {
  status: number;
  type: string;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function request(url: string, init?: RequestInit): Promise<JsonResult> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    headers: response.headers,
    body,
    text,
  };
}
