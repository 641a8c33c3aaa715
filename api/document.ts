import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { API_INFO, createApp } from './app.ts';
import { openApiDocument } from './openapi.ts';
import type { RouteSpec } from './route.ts';

/**
 * The API's OpenAPI document built in this process, with no service running: the app is
 * assembled as a server assembles it (the same route declarations /docs/openapi.json renders),
 * over a Postgres pool and a Redis connection that are never opened. Declaring routes runs no
 * query and sends no command; both clients connect lazily, on a first request that never comes.
 * Used by `npm run generate:api-types` and by the test that keeps web/src/api-types.ts current.
 */

/** Port 1 on loopback: nothing listens there, so a stray query would fail at once, never reach a real service. */
const NOWHERE_POSTGRES = 'postgres://document@127.0.0.1:1/document';
const NOWHERE_REDIS = 'redis://127.0.0.1:1';

export type ApiDocument = ReturnType<typeof openApiDocument>;

export async function apiDocument(): Promise<ApiDocument> {
  const handle = createDb(NOWHERE_POSTGRES, { max: 1 });
  const redis = createRedis(NOWHERE_REDIS, 'commands', {
    lazyConnect: true,
    enableOfflineQueue: false,
  });
  try {
    const app = createApp({
      tokens: createTokenRepository(handle.db),
      accounts: createAccountRepository(handle.db),
      creators: createCreatorRepository(handle.db),
      knownChainIds: new Set(),
      readiness: [],
      logger: silentLogger,
      redis,
      redisPrefix: 'document:',
      jwt: { secret: 'document-only: signs nothing' },
      submit: () => Promise.reject(new Error('the in-process document answers no request')),
      web: false,
    });
    return openApiDocument(app.locals.routes as RouteSpec[], API_INFO);
  } finally {
    redis.disconnect();
    await handle.close();
  }
}
