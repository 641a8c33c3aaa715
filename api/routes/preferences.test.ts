import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { type AccountRepository, createAccountRepository } from '../../db/repositories/accounts.ts';
import { createRedis } from '../../infra/redis.ts';
import { generateApiKey } from '../../src/accounts/credentials.ts';
import { ALERT_KINDS } from '../../src/alerts.ts';
import type { Plan } from '../../src/plans.ts';
import {
  closeServer,
  type JsonResult,
  listen,
  request,
  TEST_JWT_SECRET,
  testAppDeps,
} from '../../test/support/api.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { signToken } from '../access/index.ts';
import { createApp } from '../app.ts';
import { preferencesResponse } from '../schemas.ts';

/** GET and PUT /api/preferences: shapes, validation, authentication and plan gating (real Postgres and Redis). */

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let accounts: AccountRepository;
let redis: ReturnType<typeof createRedis>;
let server: Server;
let base: string;
let serial = 0;

async function jwtFor(plan: Plan): Promise<{ id: number; jwt: string }> {
  const user = (await accounts.createUser({
    email: `prefs${++serial}@example.com`,
    passwordHash: 'x',
    plan,
  }))!;
  return { id: user.id, jwt: signToken(user, { secret: TEST_JWT_SECRET }, new Date()).token };
}

function call(
  method: string,
  credential: string | undefined,
  body?: unknown,
  raw?: string,
): Promise<JsonResult> {
  const headers: Record<string, string> = { 'x-forwarded-for': `10.9.0.${++serial % 250}` };
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
  return request(`${base}/api/preferences`, {
    method,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
}

function expectError(result: JsonResult, status: number, message?: string): void {
  expect(result.status, result.text).toBe(status);
  expect(Object.keys(result.body as object)).toEqual(['error']);
  if (message) expect((result.body as { error: string }).error).toBe(message);
}

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 4 });
  accounts = createAccountRepository(handle.db);
  redis = createRedis(testRedis.url, 'commands');
  ({ server, base } = await listen(
    createApp(
      testAppDeps({ db: handle.db, redis, prefix: testRedis.prefix, knownChainIds: new Set([1]) }),
    ),
  ));
});

afterAll(async () => {
  await closeServer(server);
  redis?.disconnect();
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('/api/preferences', () => {
  it('GET: email alerts off and every kind by default', async () => {
    const { jwt } = await jwtFor('BASIC');
    const result = await call('GET', jwt);
    expect(result.status, result.text).toBe(200);
    expect(preferencesResponse.parse(result.body)).toEqual({
      email_alerts: false,
      alert_kinds: [...ALERT_KINDS],
    });
  });

  it('PUT switches email alerts on, narrows the kinds, and GET reads them back', async () => {
    const { id, jwt } = await jwtFor('BASIC');
    const put = await call('PUT', jwt, {
      email_alerts: true,
      alert_kinds: ['honeypot', 'rug', 'honeypot'],
    });
    expect(put.status, put.text).toBe(200);
    expect(preferencesResponse.parse(put.body)).toEqual({
      email_alerts: true,
      alert_kinds: ['honeypot', 'rug'],
    });
    // alert_kinds absent: unchanged.
    const again = await call('PUT', jwt, { email_alerts: false });
    expect(again.body).toEqual({ email_alerts: false, alert_kinds: ['honeypot', 'rug'] });
    expect((await call('GET', jwt)).body).toEqual({
      email_alerts: false,
      alert_kinds: ['honeypot', 'rug'],
    });
    const row = (await accounts.userById(id))!;
    expect(row.emailAlerts).toBe(false);
    expect(row.preferences).toEqual({ alert_kinds: ['honeypot', 'rug'] });
  });

  it('accepts a PRO API key', async () => {
    const { id } = await jwtFor('PRO');
    const key = generateApiKey();
    await accounts.generateKey(id, key, {
      name: 'k',
      description: null,
      plan: 'PRO',
      now: new Date(),
      expiresAt: null,
    });
    const result = await call('PUT', key.apiKey, { email_alerts: true });
    expect(result.status, result.text).toBe(200);
    expect((result.body as { email_alerts: boolean }).email_alerts).toBe(true);
  });

  it('400 for a bad body', async () => {
    const { jwt } = await jwtFor('PRO');
    expectError(await call('PUT', jwt, {}), 400);
    expectError(await call('PUT', jwt, { email_alerts: 'yes' }), 400);
    expectError(await call('PUT', jwt, { email_alerts: true, alert_kinds: ['bogus'] }), 400);
    expectError(await call('PUT', jwt, { email_alerts: true, extra: 1 }), 400);
    expectError(await call('PUT', jwt, undefined, '{not json'), 400);
  });

  it('401 without or with a bad credential', async () => {
    expectError(await call('GET', undefined), 401);
    expectError(await call('PUT', undefined, { email_alerts: true }), 401);
    expectError(await call('GET', 'not-a-jwt'), 401);
  });

  it('403 for FREE', async () => {
    const { jwt } = await jwtFor('FREE');
    expectError(await call('GET', jwt), 403, 'BASIC or PRO plan required');
    expectError(await call('PUT', jwt, { email_alerts: true }), 403, 'BASIC or PRO plan required');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await request(`${base}/docs/openapi.json`)).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.paths['/api/preferences']?.get).toBeDefined();
    expect(doc.paths['/api/preferences']?.put).toBeDefined();
  });
});
