import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../db/client.ts';
import {
  type AccountRepository,
  createAccountRepository,
  type UserRow,
} from '../db/repositories/accounts.ts';
import { createRedis } from '../infra/redis.ts';
import { generateApiKey, hashPassword } from '../src/accounts/credentials.ts';
import type { Plan } from '../src/plans.ts';
import { closeServer, listen, request, TEST_JWT_SECRET, testAppDeps } from '../test/support/api.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import { FAILED_AUTH_LIMIT, signToken } from './access/index.ts';
import type { AppDeps } from './app.ts';
import { createApp } from './app.ts';

/**
 * Limits that cannot be walked around (docs/security.md), each shown by the request that must be
 * refused: the account's windows survive a key rotation and also count a JWT on the PRO
 * operations; failed authentication is throttled per client address before the database is
 * touched (API keys, JWTs, Bull Board logins); random keys cannot push real users out of the
 * principal cache; X-Forwarded-For is ignored unless TRUST_PROXY says otherwise; /ready names the
 * dependency that is down without its error text; /metrics can want a bearer token.
 */

const KNOWN_CHAINS = new Set([1, 56]);
const RATE_LIMITED = { error: 'Rate limit exceeded. Please try again later.' };
const UNAUTHORIZED = { error: 'Unauthorized. Please log in again.' };
const METRICS_TOKEN = 'metrics-token-0123456789';
const ADMIN = { user: 'operator', password: 'operator-password-1' };
const SMALL_CACHE = 8;

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let accounts: AccountRepository;
let redis: ReturnType<typeof createRedis>;
const servers: Server[] = [];
/** Lookups that reached the database, per repository method. */
const lookups = { principalByKeyHash: [] as string[], userById: 0 };
let serial = 0;

/** The account repository with its credential lookups counted: proof of what touched the database. */
function countingAccounts(inner: AccountRepository): AccountRepository {
  return {
    ...inner,
    principalByKeyHash: async (hash) => {
      lookups.principalByKeyHash.push(hash);
      return inner.principalByKeyHash(hash);
    },
    userById: async (id) => {
      lookups.userById += 1;
      return inner.userById(id);
    },
  };
}

async function startApp(extra: Partial<AppDeps> = {}): Promise<string> {
  const deps = testAppDeps({
    db: handle.db,
    redis,
    prefix: `${testRedis.prefix}:${++serial}`,
    knownChainIds: KNOWN_CHAINS,
  });
  const { server, base } = await listen(
    createApp({ ...deps, accounts: countingAccounts(accounts), ...extra }),
  );
  servers.push(server);
  return base;
}

async function makeUser(plan: Plan): Promise<{ user: UserRow; jwt: string }> {
  const user = (await accounts.createUser({
    email: `sec${++serial}@example.com`,
    passwordHash: await hashPassword('a long password'),
    plan,
  }))!;
  return { user, jwt: signToken(user, { secret: TEST_JWT_SECRET }, new Date()).token };
}

const from = (address: string, headers: Record<string, string> = {}) => ({
  'x-forwarded-for': address,
  ...headers,
});
const get = (base: string, path: string, headers: Record<string, string>) =>
  request(`${base}${path}`, { headers });

async function generateKey(base: string, jwt: string): Promise<string> {
  const created = await request(`${base}/api/auth/generate-api-key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(created.status, created.text).toBe(201);
  return (created.body as { api_key: string }).api_key;
}

/** Well-formed keys nobody holds: each one costs a lookup unless the throttle stops it. */
const randomKey = () => generateApiKey().apiKey;

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  accounts = createAccountRepository(handle.db);
  redis = createRedis(testRedis.url, 'commands');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => closeServer(s)));
  redis?.disconnect();
  await handle?.close();
  await Promise.all([database?.drop(), testRedis?.cleanup()]);
});

describe('rate limits belong to the account', () => {
  it('a freshly generated key inherits the account windows: the 11th request of the minute is refused', async () => {
    const base = await startApp();
    const { jwt } = await makeUser('PRO');
    const first = await generateKey(base, jwt);
    for (let i = 0; i < 6; i++)
      expect((await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': first })).status).toBe(200);
    const second = await generateKey(base, jwt);
    expect((await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': first })).status).toBe(401);
    for (let i = 0; i < 4; i++) {
      const r = await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': second });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
    }
    const refused = await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': second });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(RATE_LIMITED);
    // Usage stays per key: the new key counts its own 4 requests only.
    const list = await get(base, '/api/auth/api-keys', { authorization: `Bearer ${jwt}` });
    const stats = (list.body as { api_keys: { usage_stats: { requests_today: number } }[] })
      .api_keys[0]!.usage_stats;
    expect(stats.requests_today).toBe(4);
  });

  it('a JWT on the PRO operations counts in the same account windows as the key', async () => {
    const base = await startApp();
    const { jwt } = await makeUser('PRO');
    const key = await generateKey(base, jwt);
    for (let i = 0; i < 5; i++)
      expect((await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': key })).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect(
        (await get(base, '/api/pro/tokens?limit=1', { authorization: `Bearer ${jwt}` })).status,
      ).toBe(200);
    for (const headers of [{ authorization: `Bearer ${jwt}` }, { 'x-api-key': key }] as Record<
      string,
      string
    >[]) {
      const refused = await get(base, '/api/pro/tokens?limit=1', headers);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(RATE_LIMITED);
    }
  });

  it('a PRO JWT without any key is held to the default key limits on the PRO operations', async () => {
    const base = await startApp();
    const { jwt } = await makeUser('PRO');
    for (let i = 0; i < 10; i++)
      expect(
        (await get(base, '/api/pro/tokens?limit=1', { authorization: `Bearer ${jwt}` })).status,
      ).toBe(200);
    expect(
      (await get(base, '/api/pro/tokens?limit=1', { authorization: `Bearer ${jwt}` })).status,
    ).toBe(429);
  });

  it('the web app JWT limit (60/minute) refuses the 61st request', async () => {
    const base = await startApp();
    const { jwt } = await makeUser('FREE');
    for (let i = 0; i < 60; i++)
      expect(
        (await get(base, '/api/tokens?limit=1', { authorization: `Bearer ${jwt}` })).status,
      ).toBe(200);
    const refused = await get(base, '/api/tokens?limit=1', { authorization: `Bearer ${jwt}` });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('failed authentication is throttled per client address', () => {
  it('random svc_pro_ keys: 401 up to the limit, then 429 without a database lookup, even for a valid key', async () => {
    const base = await startApp();
    const { jwt } = await makeUser('PRO');
    const key = await generateKey(base, jwt);
    const attacker = '198.51.100.7';
    lookups.principalByKeyHash = [];
    for (let i = 0; i < FAILED_AUTH_LIMIT; i++) {
      const r = await get(base, '/api/pro/tokens', from(attacker, { 'x-api-key': randomKey() }));
      expect(r.status).toBe(401);
    }
    expect(lookups.principalByKeyHash).toHaveLength(FAILED_AUTH_LIMIT);
    const blocked = await get(
      base,
      '/api/pro/tokens',
      from(attacker, { 'x-api-key': randomKey() }),
    );
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(RATE_LIMITED);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Not even a valid key of someone else is looked up from that address.
    expect((await get(base, '/api/pro/tokens', from(attacker, { 'x-api-key': key }))).status).toBe(
      429,
    );
    expect(lookups.principalByKeyHash).toHaveLength(FAILED_AUTH_LIMIT);
    // Another address is not affected.
    expect(
      (await get(base, '/api/pro/tokens?limit=1', from('198.51.100.8', { 'x-api-key': key })))
        .status,
    ).toBe(200);
  });

  it('bad JWTs count as well', async () => {
    const base = await startApp();
    const attacker = '198.51.100.9';
    const forged = signToken(
      { id: 1, email: 'x@example.com' },
      { secret: 'a-different-secret-of-enough-length-0123' },
      new Date(),
    ).token;
    for (let i = 0; i < FAILED_AUTH_LIMIT; i++) {
      expect(
        (await get(base, '/api/tokens', from(attacker, { authorization: `Bearer ${forged}` })))
          .status,
      ).toBe(401);
    }
    expect(
      (await get(base, '/api/tokens', from(attacker, { authorization: `Bearer ${forged}` }))).body,
    ).toEqual(RATE_LIMITED);
  });

  it('Bull Board logins: wrong passwords are throttled, and then even the right one waits', async () => {
    const base = await startApp({ admin: { queues: [], credentials: ADMIN } });
    const basic = (user: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    });
    const attacker = '198.51.100.10';
    expect(
      (await get(base, '/admin/queues', from(attacker, basic(ADMIN.user, ADMIN.password)))).status,
    ).toBe(200);
    for (let i = 0; i < FAILED_AUTH_LIMIT; i++) {
      expect(
        (await get(base, '/admin/queues', from(attacker, basic(ADMIN.user, `guess-${i}`)))).status,
      ).toBe(401);
    }
    const blocked = await get(
      base,
      '/admin/queues',
      from(attacker, basic(ADMIN.user, ADMIN.password)),
    );
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(RATE_LIMITED);
    expect(
      (await get(base, '/admin/queues', from('198.51.100.11', basic(ADMIN.user, ADMIN.password))))
        .status,
    ).toBe(200);
  });

  it('random keys do not push a real user out of the principal cache', async () => {
    const base = await startApp({ principalCacheMax: SMALL_CACHE });
    const { jwt } = await makeUser('PRO');
    const key = await generateKey(base, jwt);
    expect((await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': key })).status).toBe(200);
    lookups.principalByKeyHash = [];
    // Many addresses, each under its own failure limit: the cache sees far more keys than it holds.
    for (let i = 0; i < SMALL_CACHE * 3; i++) {
      expect(
        (
          await get(
            base,
            '/api/pro/tokens',
            from(`203.0.113.${i + 1}`, { 'x-api-key': randomKey() }),
          )
        ).status,
      ).toBe(401);
    }
    expect(lookups.principalByKeyHash).toHaveLength(SMALL_CACHE * 3);
    expect((await get(base, '/api/pro/tokens?limit=1', { 'x-api-key': key })).status).toBe(200);
    // The real key was still cached: no new lookup for it.
    expect(lookups.principalByKeyHash).toHaveLength(SMALL_CACHE * 3);
  });

  it('without TRUST_PROXY, X-Forwarded-For does not make a new client: signin stays limited per socket address', async () => {
    const base = await startApp({ trustProxy: false });
    const { user } = await makeUser('FREE');
    const signin = (i: number) =>
      request(`${base}/api/auth/signin`, {
        method: 'POST',
        headers: from(`192.0.2.${i}`, { 'content-type': 'application/json' }),
        body: JSON.stringify({ email: user.email, password: 'a long password' }),
      });
    for (let i = 0; i < 20; i++) expect((await signin(i + 1)).status).toBe(200);
    expect((await signin(99)).status).toBe(429);
  });
});

describe('operational endpoints keep secrets', () => {
  it('/ready names the dependency that is down, not its error text', async () => {
    const base = await startApp({
      readiness: [
        {
          name: 'postgres',
          check: async () => {
            throw new Error('connect ECONNREFUSED postgres://app:hunter2@db.internal:5432/tm');
          },
        },
        { name: 'redis', check: async () => {} },
      ],
    });
    const ready = await get(base, '/ready', {});
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      error: 'Service not ready',
      status: 'not-ready',
      checks: { postgres: 'unavailable', redis: 'ok' },
    });
    expect(ready.text).not.toContain('hunter2');
    expect(ready.text).not.toContain('db.internal');
  });

  it('/metrics wants the bearer METRICS_TOKEN when one is set', async () => {
    const { createMetrics } = await import('../infra/metrics.ts');
    const base = await startApp({
      metrics: createMetrics({ defaultMetrics: false }),
      metricsToken: METRICS_TOKEN,
    });
    const open = await get(base, '/metrics', {});
    expect(open.status).toBe(401);
    expect(open.body).toEqual(UNAUTHORIZED);
    expect(
      (await get(base, '/metrics', { authorization: 'Bearer wrong-token-0123456789' })).status,
    ).toBe(401);
    const scraped = await get(base, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('tm_http_request_duration_seconds');
  });
});
