import type { Server } from 'node:http';
import { eq, sql } from 'drizzle-orm';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { startService } from '../../app/service.ts';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { apiKeys, users } from '../../db/schema.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';
import { hashPassword, sha256Hex } from '../../src/accounts/credentials.ts';
import { DAY_MS } from '../../src/plans.ts';
import { closeServer, listen, TEST_JWT_SECRET, testAppDeps } from '../../test/support/api.ts';
import {
  addr,
  bearer,
  expectError,
  expectShape,
  HIGH_LIMITS,
  KNOWN_CHAINS,
  MSG,
  SQL_ATTACKS,
  type TestUser,
  useApiStack,
} from '../../test/support/api-stack.ts';
import { createTestDatabase } from '../../test/support/services.ts';
import { createAccountsProcessor } from '../../workers/accounts/index.ts';
import { ACCOUNTS_SCHEDULER } from '../../workers/jobs.ts';
import { createApp } from '../app.ts';
import * as S from '../schemas.ts';
import { signToken } from './auth.ts';

/**
 * Accounts and API keys against the real stack (docs/api.md, "Accounts and API keys"): signup,
 * signin, the JWT rules, the key object and its state machine, usage counting, the account job,
 * the rate limits, and the security cases. Two app instances share Postgres and Redis.
 */

const stack = useApiStack({ seed: false });
const call: typeof stack.call = (...args) => stack.call(...args);

describe('accounts: signup, signin, me', () => {
  it('POST /api/auth/signup → 201 {user} on plan FREE; the email is case-insensitive and unique (409)', async () => {
    const created = expectShape(
      S.signupResponse,
      await call(stack.A, 'POST', '/api/auth/signup', {
        body: { email: 'New.User@Example.com', password: 'correct horse' },
      }),
      201,
    );
    expect(created.user).toMatchObject({
      email: 'new.user@example.com',
      plan: 'FREE',
      plan_state: 'active',
      trial_ends_at: null,
    });
    expectError(
      await call(stack.A, 'POST', '/api/auth/signup', {
        body: { email: 'new.user@EXAMPLE.com', password: 'another one' },
      }),
      409,
      'Email already registered',
    );
  });

  it.each([
    [{ email: 'not-an-email', password: 'long enough' }, 'email'],
    [{ email: 'a@example.com', password: 'short' }, 'password'],
    [{ email: 'a@example.com', password: 'x'.repeat(129) }, 'password'],
    [{ email: 'a@example.com' }, 'password'],
    [{ email: 'a@example.com', password: 'long enough', plan: 'PRO' }, 'plan'],
    [[], 'request'],
  ])('signup %j → 400 naming %s', async (body, field) => {
    expect(expectError(await call(stack.A, 'POST', '/api/auth/signup', { body }), 400)).toContain(
      field,
    );
  });

  it('POST /api/auth/signin → 200 {token, token_type, expires_in, user}; the token is HS256 with an expiry', async () => {
    await call(stack.A, 'POST', '/api/auth/signup', {
      body: { email: 'signin@example.com', password: 'signin-password' },
    });
    const body = expectShape(
      S.signinResponse,
      await call(stack.A, 'POST', '/api/auth/signin', {
        body: { email: 'SIGNIN@example.com', password: 'signin-password' },
      }),
    );
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(86_400);
    expect(body.user).toMatchObject({
      email: 'signin@example.com',
      plan: 'FREE',
      trial_ends_at: null,
    });
    const decoded = jwt.decode(body.token, { complete: true })!;
    expect(decoded.header.alg).toBe('HS256');
    const payload = decoded.payload as jwt.JwtPayload;
    expect(payload.exp! - payload.iat!).toBe(86_400);
    expect(payload.sub).toBe(String(body.user.id));
    const me = expectShape(
      S.userSchema,
      await call(stack.B, 'GET', '/api/auth/me', { headers: bearer(body.token) }),
    );
    expect(me).toMatchObject({ id: body.user.id, email: 'signin@example.com', plan: 'FREE' });
  });

  it('signin with a wrong password or an unknown email → 401 with the documented message', async () => {
    expectError(
      await call(stack.A, 'POST', '/api/auth/signin', {
        body: { email: stack.pro.email, password: 'wrong password' },
      }),
      401,
      MSG.unauthorized,
    );
    expectError(
      await call(stack.A, 'POST', '/api/auth/signin', {
        body: { email: 'nobody@example.com', password: 'whatever1' },
      }),
      401,
      MSG.unauthorized,
    );
  });

  it('GET /api/auth/me → the user with plan state; without or with a bad credential → 401', async () => {
    const trial = await stack.makeUser('PRO', { trialEndsAt: new Date(Date.now() + 7 * DAY_MS) });
    const me = expectShape(
      S.userSchema,
      await call(stack.A, 'GET', '/api/auth/me', { headers: bearer(trial.jwt) }),
    );
    expect(me).toMatchObject({
      plan: 'PRO',
      plan_state: 'trialing',
      features: { pro_api: true, ws_connections: 10 },
    });
    expect(Date.parse(me.trial_ends_at!)).toBe(trial.user.trialEndsAt!.getTime());
    expectError(await call(stack.A, 'GET', '/api/auth/me'), 401, MSG.unauthorized);
    expectError(
      await call(stack.A, 'GET', '/api/auth/me', { headers: { authorization: 'Bearer nonsense' } }),
      401,
      MSG.unauthorized,
    );
    // Account routes take a JWT, not an API key.
    expectError(
      await call(stack.A, 'GET', '/api/auth/me', { headers: bearer(stack.proKey) }),
      401,
      MSG.unauthorized,
    );
  });
});

describe('JWT security', () => {
  const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = () => ({
    sub: String(stack.pro.user.id),
    iss: 'token-monitor',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 600,
  });

  it('refuses alg none, a wrong secret, an expired token, another issuer, HS512, a deleted user and garbage', async () => {
    const forged = [
      `${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims())}.`,
      `${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims())}`,
      jwt.sign(claims(), 'a-completely-different-secret-of-enough-length', { algorithm: 'HS256' }),
      jwt.sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
      }),
      jwt.sign({ ...claims(), iss: 'someone-else' }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS512' }),
      jwt.sign((({ exp: _e, ...rest }) => rest)(claims()), TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign({ ...claims(), sub: '999999' }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      `eyJhbGciOiJIUzI1NiJ9.e30.${'x'.repeat(43)}`,
      'x'.repeat(5000),
    ];
    for (const token of forged) {
      for (const path of ['/api/auth/me', '/api/tokens', '/api/pro/tokens']) {
        expectError(
          await call(stack.A, 'GET', path, { headers: bearer(token) }),
          401,
          MSG.unauthorized,
        );
      }
    }
    // The genuine one passes.
    expect(
      (
        await call(stack.A, 'GET', '/api/auth/me', {
          headers: bearer(jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS256' })),
        })
      ).status,
    ).toBe(200);
  });

  it('a token expires on the injected clock too', async () => {
    const user = await stack.makeUser('FREE');
    expect((await call(stack.A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) })).status).toBe(
      200,
    );
    stack.clockOverride = new Date(Date.now() + 86_400_000 + 1_000);
    expectError(
      await call(stack.A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) }),
      401,
      MSG.unauthorized,
    );
  });
});

describe('API keys: generate, list, revoke', () => {
  it('generate needs PRO: FREE and BASIC get 403, PRO gets 201 with the documented key object', async () => {
    for (const plan of ['FREE', 'BASIC'] as const) {
      const user = await stack.makeUser(plan);
      expectError(
        await call(stack.A, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt) }),
        403,
        MSG.pro,
      );
    }
    const user = await stack.makeUser('PRO');
    const key = expectShape(
      S.apiKeyCreated,
      await call(stack.A, 'POST', '/api/auth/generate-api-key', {
        headers: bearer(user.jwt),
        body: { plan: 'pro', name: 'bot', description: 'trading bot' },
      }),
      201,
    );
    expect(key).toMatchObject({
      plan: 'pro',
      name: 'bot',
      description: 'trading bot',
      status: 'active',
      expires_at: null,
    });
    expect(key.rate_limit).toEqual({
      requests_per_day: 1000,
      requests_per_hour: 100,
      requests_per_minute: 10,
    });
    expect(key.features).toEqual([
      'complete_data_access',
      'historical_data',
      'bulk_operations',
      'data_export',
    ]);
    // Only hashes are stored.
    const [row] = await stack.handle.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, sha256Hex(key.api_key)));
    expect(row!.secretHash).toBe(sha256Hex(key.api_secret));
    const stored = JSON.stringify(
      await stack.handle.sql`select * from api_keys where user_id = ${user.user.id}`,
    );
    expect(stored).not.toContain(key.api_key);
    expect(stored).not.toContain(key.api_secret);
  });

  it('the key state machine: a new key revokes the previous one; revoked → 401; list shows active only, masked', async () => {
    const user = await stack.makeUser('PRO');
    const first = await stack.generateKey(stack.A, user);
    expect(
      (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': first } }))
        .status,
    ).toBe(200);
    const second = await stack.generateKey(stack.B, user);
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': first } }),
      401,
      MSG.unauthorized,
    );
    expectError(
      await call(stack.B, 'GET', '/api/tokens?limit=1', { headers: bearer(first) }),
      401,
      MSG.unauthorized,
    );
    expect(
      (await call(stack.B, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': second } }))
        .status,
    ).toBe(200);

    const list = expectShape(
      S.apiKeyList,
      await call(stack.A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }),
    );
    expect(list.total).toBe(1);
    const masked = `svc_pro_${second.slice(8, 12)}…${second.slice(-4)}`;
    expect(list.api_keys[0]!.api_key).toBe(masked);
    expect(list.api_keys[0]!.status).toBe('active');
    const rows = await stack.handle.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.userId, user.user.id));
    expect(rows.map((r) => r.status).sort()).toEqual(['active', 'revoked']);

    // Revoke by the masked form, exactly as listed.
    const revoked = expectShape(
      S.apiKeyRevoked,
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, {
        headers: bearer(user.jwt),
      }),
    );
    expect(revoked).toEqual({ message: expect.any(String), api_key: masked, status: 'revoked' });
    expectError(
      await call(stack.B, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': second } }),
      401,
      MSG.unauthorized,
    );
    expect(
      expectShape(
        S.apiKeyList,
        await call(stack.A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }),
      ),
    ).toEqual({ api_keys: [], total: 0 });
    // Already revoked: no active key of the caller by that name.
    expectError(
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, {
        headers: bearer(user.jwt),
      }),
      404,
      MSG.keyNotFound,
    );
    expectError(
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${second}`, { headers: bearer(user.jwt) }),
      404,
      MSG.keyNotFound,
    );
  });

  it("revokes by the full key; another user's key → 404 and it keeps working", async () => {
    const owner = await stack.makeUser('PRO');
    const stranger = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, owner);
    expectError(
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${key}`, { headers: bearer(stranger.jwt) }),
      404,
      MSG.keyNotFound,
    );
    const masked = `svc_pro_${key.slice(8, 12)}…${key.slice(-4)}`;
    expectError(
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, {
        headers: bearer(stranger.jwt),
      }),
      404,
      MSG.keyNotFound,
    );
    expect(
      (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }))
        .status,
    ).toBe(200);
    expectShape(
      S.apiKeyRevoked,
      await call(stack.A, 'DELETE', `/api/auth/api-keys/${key}`, { headers: bearer(owner.jwt) }),
    );
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }),
      401,
      MSG.unauthorized,
    );
    // Not a key at all: 400 naming the parameter.
    expect(
      expectError(
        await call(stack.A, 'DELETE', '/api/auth/api-keys/not-a-key', {
          headers: bearer(owner.jwt),
        }),
        400,
      ),
    ).toContain('apiKey');
  });

  it('two concurrent generate calls leave exactly one active key, and it is one of the two returned', async () => {
    const user = await stack.makeUser('PRO');
    await stack.generateKey(stack.A, user);
    const results = await Promise.all(
      [stack.A, stack.B, stack.A, stack.B].map((base) =>
        call(base, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt) }),
      ),
    );
    const keys = results.map((r) => expectShape(S.apiKeyCreated, r, 201).api_key);
    const active = await stack.handle.db
      .select()
      .from(apiKeys)
      .where(sql`${apiKeys.userId} = ${user.user.id} and ${apiKeys.status} = 'active'`);
    expect(active).toHaveLength(1);
    const working = [];
    for (const key of keys)
      if (
        (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }))
          .status === 200
      )
        working.push(key);
    expect(working).toHaveLength(1);
    expect(sha256Hex(working[0]!)).toBe(active[0]!.keyHash);
  });

  it('a key stops authenticating when its owner is no longer PRO (downgrade, ended trial, failed payment + 3 days)', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user);
    await stack.accounts.setPlan(user.email, 'BASIC', { now: new Date() });
    await stack.authChanged();
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }),
      401,
      MSG.unauthorized,
    );
    await stack.accounts.setPlan(user.email, 'PRO', { now: new Date() });
    await stack.authChanged();
    expect(
      (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }))
        .status,
    ).toBe(200);
    // The trial ends: FREE at once, before the scheduled job runs.
    await stack.accounts.setPlan(user.email, 'PRO', {
      now: new Date(),
      trialEndsAt: new Date(Date.now() + 60_000),
    });
    await stack.authChanged();
    expect(
      (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }))
        .status,
    ).toBe(200);
    stack.clockOverride = new Date(Date.now() + 120_000);
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }),
      401,
      MSG.unauthorized,
    );
    stack.clockOverride = undefined;
    await stack.accounts.setPlan(user.email, 'PRO', { now: new Date() });
    await stack.authChanged();
    await stack.accounts.recordPaymentFailed(user.email, new Date());
    await stack.authChanged();
    stack.clockOverride = new Date(Date.now() + 2 * DAY_MS);
    expect(
      (await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }))
        .status,
    ).toBe(200);
    stack.clockOverride = new Date(Date.now() + 3 * DAY_MS + 60_000);
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }),
      401,
      MSG.unauthorized,
    );
  });

  it('counts usage per key: requests_today, requests_this_month, total_requests, last_used (Redis, flushed to Postgres)', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user, HIGH_LIMITS);
    for (let i = 0; i < 4; i++)
      expect(
        (
          await call(i % 2 ? stack.A : stack.B, 'GET', '/api/pro/tokens?limit=1', {
            headers: { 'x-api-key': key },
          })
        ).status,
      ).toBe(200);
    // A rejected credential is not usage; a 404 with a valid key is.
    expect(
      (
        await call(stack.A, 'GET', `/api/pro/tokens/${addr(0xdead)}?chain_id=1`, {
          headers: { 'x-api-key': key },
        })
      ).status,
    ).toBe(404);
    // Each instance adds its counts to Redis within a second (the answering one at once).
    await new Promise((r) => setTimeout(r, 1_200));
    const stats = expectShape(
      S.apiKeyList,
      await call(stack.A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }),
    ).api_keys[0]!;
    expect(stats.usage_stats).toMatchObject({
      requests_today: 5,
      requests_this_month: 5,
      total_requests: 5,
    });
    expect(Date.now() - Date.parse(stats.last_used!)).toBeLessThan(10_000);
    expect(stats.usage_stats.last_used).toBe(stats.last_used);
    await stack.usageA.flush();
    const [row] = await stack.handle.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, sha256Hex(key)));
    expect(row!.totalRequests).toBe(5);
    expect(row!.lastUsed).not.toBeNull();
    // After the flush the total is unchanged (no double counting).
    expect(
      expectShape(
        S.apiKeyList,
        await call(stack.B, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }),
      ).api_keys[0]!.usage_stats.total_requests,
    ).toBe(5);
  });
});

describe('API keys: the body and names of docs/api.md', () => {
  it('generate takes {plan: "pro", name, description}; any other plan is a 400 naming plan', async () => {
    const user = await stack.makeUser('PRO');
    const key = expectShape(
      S.apiKeyCreated,
      await call(stack.A, 'POST', '/api/auth/generate-api-key', {
        headers: bearer(user.jwt),
        body: { plan: 'pro', name: 'n', description: 'd' },
      }),
      201,
    );
    expect(Object.keys(key)).toEqual([
      'api_key',
      'api_secret',
      'plan',
      'name',
      'description',
      'rate_limit',
      'features',
      'status',
      'created_at',
      'expires_at',
    ]);
    expect(key.api_key).toMatch(/^svc_pro_[0-9a-f]+$/);
    expect(key.api_secret).toMatch(/^svc_secret_[0-9a-f]+$/);
    expect(key.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    for (const plan of ['PRO', 'basic', 'free', 'enterprise', 1, null]) {
      expect(
        expectError(
          await call(stack.A, 'POST', '/api/auth/generate-api-key', {
            headers: bearer(user.jwt),
            body: { plan },
          }),
          400,
        ),
      ).toContain('plan');
    }
    // Without a body, the plan is pro and the name a default.
    expect(
      expectShape(
        S.apiKeyCreated,
        await call(stack.A, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt) }),
        201,
      ),
    ).toMatchObject({ plan: 'pro', description: '' });
  });

  it('the list shows {api_keys: [{api_key, name, plan, status, created_at, last_used, usage_stats}], total}', async () => {
    const user = await stack.makeUser('PRO');
    await stack.generateKey(stack.A, user);
    const list = expectShape(
      S.apiKeyList,
      await call(stack.A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }),
    );
    expect(Object.keys(list)).toEqual(['api_keys', 'total']);
    expect(Object.keys(list.api_keys[0]!)).toEqual([
      'api_key',
      'name',
      'plan',
      'status',
      'created_at',
      'last_used',
      'usage_stats',
    ]);
    expect(list.api_keys[0]).toMatchObject({
      plan: 'pro',
      status: 'active',
      last_used: null,
      usage_stats: { requests_today: 0, requests_this_month: 0, total_requests: 0 },
    });
  });

  it('revoke: any svc_pro_<hex> naming no active key of the caller is 404 API key not found, whatever its length', async () => {
    const user = await stack.makeUser('PRO');
    for (const hex of ['0'.repeat(32), 'ab'.repeat(20), 'f', 'a'.repeat(128)]) {
      expectError(
        await call(stack.A, 'DELETE', `/api/auth/api-keys/svc_pro_${hex}`, {
          headers: bearer(user.jwt),
        }),
        404,
        MSG.keyNotFound,
      );
    }
    for (const bad of ['svc_pro_', 'svc_pro_XYZ', 'svc_secret_00', `svc_pro_${'a'.repeat(129)}`]) {
      expect(
        expectError(
          await call(stack.A, 'DELETE', `/api/auth/api-keys/${bad}`, { headers: bearer(user.jwt) }),
          400,
        ),
      ).toContain('apiKey');
    }
    // A key is no credential for key management.
    expectError(
      await call(stack.A, 'DELETE', `/api/auth/api-keys/svc_pro_${'0'.repeat(32)}`, {
        headers: bearer(stack.proKey),
      }),
      401,
      MSG.unauthorized,
    );
  });
});

describe('scheduled account job', () => {
  it('downgrades ended trials and payments failed 3+ days ago, purges watchlist and preferences 30 days later, idempotently', async () => {
    const now = new Date('2031-03-01T00:00:00.000Z');
    const trial = await stack.makeUser('BASIC', { trialEndsAt: new Date(now.getTime() - 1) });
    const ongoing = await stack.makeUser('PRO', { trialEndsAt: new Date(now.getTime() + DAY_MS) });
    const failedLong = await stack.makeUser('PRO', {
      paymentFailedAt: new Date(now.getTime() - 3 * DAY_MS - 1),
    });
    const failedRecent = await stack.makeUser('PRO', {
      paymentFailedAt: new Date(now.getTime() - 2 * DAY_MS),
    });
    for (const u of [trial, failedLong]) {
      await stack.accounts.addToWatchlist(u.user.id, 1, addr(0xa001));
      await stack.handle.db
        .update(users)
        .set({ preferences: { theme: 'dark' }, emailAlerts: true })
        .where(eq(users.id, u.user.id));
    }
    const run = createAccountsProcessor({
      accounts: stack.accounts,
      logger: silentLogger,
      clock: () => now,
    });
    const first = await run({ task: 'maintenance' });
    expect(first.downgraded).toBeGreaterThanOrEqual(2);
    const state = async (u: TestUser) => (await stack.accounts.userById(u.user.id))!;
    expect((await state(trial)).plan).toBe('FREE');
    expect((await state(failedLong)).plan).toBe('FREE');
    expect((await state(ongoing)).plan).toBe('PRO');
    expect((await state(failedRecent)).plan).toBe('PRO');
    expect(await stack.accounts.watchlistCount(trial.user.id)).toBe(1);
    // Kept for 30 days.
    await createAccountsProcessor({
      accounts: stack.accounts,
      logger: silentLogger,
      clock: () => new Date(now.getTime() + 29 * DAY_MS),
    })({ task: 'maintenance' });
    expect(await stack.accounts.watchlistCount(trial.user.id)).toBe(1);
    const later = createAccountsProcessor({
      accounts: stack.accounts,
      logger: silentLogger,
      clock: () => new Date(now.getTime() + 30 * DAY_MS),
    });
    await later({ task: 'maintenance' });
    for (const u of [trial, failedLong]) {
      expect(await stack.accounts.watchlistCount(u.user.id)).toBe(0);
      expect(await state(u)).toMatchObject({ preferences: {}, emailAlerts: false });
      expect((await state(u)).purgedAt).not.toBeNull();
    }
    const again = await later({ task: 'maintenance' });
    expect(again).toMatchObject({ downgraded: 0, purged: 0 });
  });

  it('the scheduler role registers a BullMQ job scheduler (upsertJobScheduler), idempotently', async () => {
    const options = {
      roles: new Set(['scheduler'] as const),
      databaseUrl: stack.database.url,
      redisUrl: stack.testRedis.url,
      redisPrefix: stack.testRedis.prefix,
      chains: [],
      knownChainIds: KNOWN_CHAINS,
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: 1,
    };
    for (let i = 0; i < 2; i++) {
      const service = await startService(options);
      await service.stop();
    }
    const queue = stack.producer.queue('accounts');
    const scheduler = await queue.getJobScheduler(ACCOUNTS_SCHEDULER.id);
    expect(scheduler).toMatchObject({
      key: ACCOUNTS_SCHEDULER.id,
      every: ACCOUNTS_SCHEDULER.everyMs,
    });
    expect(await queue.getJobSchedulersCount()).toBe(1);
  });
});

describe('rate limits', () => {
  it('the 11th request in a minute → 429 with Retry-After, counted across two app instances; headers on every response', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user);
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await call(i % 2 ? stack.B : stack.A, 'GET', '/api/pro/tokens?limit=1', {
        headers: { 'x-api-key': key },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      remaining.push(Number(r.headers.get('x-ratelimit-remaining')));
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset * 1000).toBeGreaterThan(Date.now() - 1_000);
      expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const base of [stack.A, stack.B]) {
      const refused = await call(base, 'GET', '/api/pro/tokens?limit=1', {
        headers: { 'x-api-key': key },
      });
      expectError(refused, 429, MSG.rateLimited);
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Refused requests did not use up the hour window: 100 - 10.
    // Counted per account, across all of its keys.
    const hourKey = await stack.redisA.get(
      `${stack.testRedis.prefix}:rl:hour:account:${user.user.id}`,
    );
    expect(Number(hourKey)).toBe(10);
  });

  it('the day window resets at midnight UTC (injected clock)', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user);
    await stack.accounts.setKeyLimits(
      { keyHash: sha256Hex(key) },
      { requestsPerMinute: 1_000, requestsPerHour: 1_000, requestsPerDay: 3 },
    );
    await stack.authChanged();
    stack.clockOverride = new Date('2031-06-30T23:59:58.000Z');
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 3; i++) {
      const r = await call(i % 2 ? stack.B : stack.A, 'GET', '/api/pro/tokens?limit=1', {
        headers,
      });
      expect(r.status).toBe(200);
      // The day window is now the tightest: its reset is midnight UTC.
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2031, 6, 1) / 1000));
    }
    const refused = await call(stack.A, 'GET', '/api/pro/tokens?limit=1', { headers });
    expectError(refused, 429, MSG.rateLimited);
    expect(refused.headers.get('retry-after')).toBe('2');
    stack.clockOverride = new Date('2031-06-30T23:59:59.500Z');
    expectError(
      await call(stack.B, 'GET', '/api/pro/tokens?limit=1', { headers }),
      429,
      MSG.rateLimited,
    );
    stack.clockOverride = new Date('2031-07-01T00:00:01.000Z');
    const next = await call(stack.B, 'GET', '/api/pro/tokens?limit=1', { headers });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    // requests_today follows the same UTC date (B's count reaches Redis within a second).
    await new Promise((r) => setTimeout(r, 1_200));
    const list = expectShape(
      S.apiKeyList,
      await call(stack.A, 'GET', '/api/auth/api-keys', {
        headers: bearer(signToken(user.user, { secret: TEST_JWT_SECRET }, stack.clock()).token),
      }),
    );
    expect(list.api_keys[0]!.usage_stats.requests_today).toBe(1);
  });

  it('JWT callers are limited per user (60/minute), and signin per client address (20/minute)', async () => {
    const user = await stack.makeUser('FREE');
    const r = await call(stack.A, 'GET', '/api/tokens?limit=1', { headers: bearer(user.jwt) });
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    const client = { 'x-forwarded-for': '192.0.2.77' };
    for (let i = 0; i < 20; i++) {
      const signin = await call(i % 2 ? stack.A : stack.B, 'POST', '/api/auth/signin', {
        headers: client,
        body: { email: user.email, password: i < 19 ? 'wrong password' : user.password },
      });
      expect(signin.status).toBe(i < 19 ? 401 : 200);
      expect(signin.headers.get('x-ratelimit-limit')).toBe('20');
    }
    const refused = await call(stack.A, 'POST', '/api/auth/signin', {
      headers: client,
      body: { email: user.email, password: user.password },
    });
    expectError(refused, 429, MSG.rateLimited);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect(
      (
        await call(stack.A, 'POST', '/api/auth/signin', {
          body: { email: user.email, password: user.password },
        })
      ).status,
    ).toBe(200);
  });
});

describe('500 Internal server error', () => {
  it('a real failure that is not an outage (a missing table) answers 500 with no detail, and the service goes on', async () => {
    const broken = await createTestDatabase();
    const brokenHandle = createDb(broken.url, { max: 1 });
    const redis = createRedis(stack.testRedis.url, 'commands');
    let s: Server | undefined;
    try {
      const brokenAccounts = createAccountRepository(brokenHandle.db);
      const owner = await brokenAccounts.createUser({
        email: 'broken@example.com',
        passwordHash: await hashPassword('broken-password'),
        plan: 'PRO',
      });
      const user = {
        user: owner!,
        jwt: signToken(owner!, { secret: TEST_JWT_SECRET }, new Date()).token,
      };
      await brokenHandle.sql`drop table token_history`;
      const started = await listen(
        createApp(
          testAppDeps({
            db: brokenHandle.db,
            redis,
            prefix: `${stack.testRedis.prefix}:broken`,
            knownChainIds: KNOWN_CHAINS,
          }),
        ),
      );
      s = started.server;
      await brokenHandle.sql`insert into tokens (chain_id, address, detection_source) values (1, ${addr(0xa001)}, 'receipt')`;
      const failed = await call(started.base, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, {
        headers: bearer(user.jwt),
      });
      expectError(failed, 500, 'Internal server error');
      expect(failed.text).not.toMatch(/token_history|relation|select/i);
      expect(
        (await call(started.base, 'GET', '/api/tokens', { headers: bearer(user.jwt) })).status,
      ).toBe(200);
    } finally {
      await closeServer(s);
      redis.disconnect();
      await brokenHandle.close();
      await broken.drop();
    }
  });
});

describe('security', () => {
  it('SQL injection in every path, query and body parameter: 400 (or an honest empty answer), and every table intact', async () => {
    const before = await stack.handle.sql<
      { t: number; u: number; k: number }[]
    >`select (select count(*)::int from tokens) t, (select count(*)::int from users) u, (select count(*)::int from api_keys) k`;
    const pk = { 'x-api-key': stack.proKey };
    for (const attack of SQL_ATTACKS) {
      // A user per attack: each round stays within the per-user JWT limit.
      const hh = bearer((await stack.makeUser('PRO')).jwt);
      const e = encodeURIComponent(attack);
      const four = [
        call(stack.A, 'GET', `/api/tokens/${e}`, { headers: hh }),
        call(stack.A, 'GET', `/api/pro/tokens/${e}`, { headers: pk }),
        call(stack.A, 'GET', `/api/creators/${e}`, { headers: hh }),
        call(stack.A, 'DELETE', `/api/watchlist/${e}`, { headers: hh }),
        call(stack.A, 'DELETE', `/api/auth/api-keys/${e}`, { headers: hh }),
        call(stack.A, 'POST', `/api/tokens/${e}/refresh?chain_id=1`, { headers: hh }),
        call(stack.A, 'POST', `/api/tokens/${addr(0xa001)}/refresh?chain_id=${e}`, { headers: hh }),
        call(stack.A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=${e}`, { headers: pk }),
        call(stack.A, 'GET', `/api/pro/tokens/${addr(0xa001)}?include_history=${e}`, {
          headers: pk,
        }),
        call(stack.A, 'GET', `/api/watchlist/x?chain_id=${e}`, { headers: hh }),
        call(stack.A, 'POST', '/api/watchlist', {
          headers: hh,
          body: { address: attack, chain_id: 1 },
        }),
        call(stack.A, 'POST', '/api/watchlist', {
          headers: hh,
          body: { address: addr(0xa001), chain_id: attack },
        }),
        call(stack.A, 'POST', '/api/pro/tokens/bulk', {
          headers: pk,
          body: { tokens: [{ address: attack, chain_id: 1 }] },
        }),
        call(stack.A, 'POST', '/api/auth/signup', {
          body: { email: attack, password: 'long enough' },
        }),
        call(stack.A, 'POST', '/api/auth/generate-api-key', {
          headers: hh,
          body: { name: 1, description: attack, expires_in_days: attack },
        }),
        ...[
          'chain_id',
          'page',
          'limit',
          'risk_level',
          'min_risk_score',
          'max_risk_score',
          'is_honeypot',
          'min_liquidity_usd',
          'created_after',
          'created_before',
          'sort',
        ].map((p) => call(stack.A, 'GET', `/api/tokens?${p}=${e}`, { headers: hh })),
        ...['addresses', 'chain_ids', 'min_liquidity', 'max_risk_score', 'limit', 'offset'].map(
          (p) => call(stack.A, 'GET', `/api/pro/tokens?${p}=${e}`, { headers: pk }),
        ),
        call(stack.A, 'GET', `/api/pro/tokens?fields=${e}`, { headers: pk }),
        ...['chain_id', 'page', 'limit', 'sort'].map((p) =>
          call(stack.A, 'GET', `/api/creators?${p}=${e}`, { headers: hh }),
        ),
      ];
      for (const r of await Promise.all(four)) expect([400, 404], r.text).toContain(r.status);
      // Free text is searched for literally, and finds nothing.
      expect(
        expectShape(S.tokenList, await call(stack.A, 'GET', `/api/tokens?q=${e}`, { headers: hh }))
          .items,
      ).toEqual([]);
      expectError(
        await call(stack.A, 'POST', '/api/auth/signin', {
          body: { email: attack, password: attack },
        }),
        401,
        MSG.unauthorized,
      );
    }
    const after = await stack.handle.sql<
      { t: number; u: number; k: number }[]
    >`select (select count(*)::int from tokens) t, (select count(*)::int from users) u, (select count(*)::int from api_keys) k`;
    expect(after[0]!.t).toBe(before[0]!.t);
    expect(after[0]!.u).toBe(before[0]!.u + SQL_ATTACKS.length);
    expect(after[0]!.k).toBe(before[0]!.k);
  });

  it('oversized (413) and malformed (400) JSON bodies on every POST route', async () => {
    const routes: [string, Record<string, string>][] = [
      ['/api/auth/signup', {}],
      ['/api/auth/signin', {}],
      ['/api/auth/generate-api-key', bearer(stack.pro.jwt)],
      ['/api/watchlist', bearer(stack.pro.jwt)],
      ['/api/pro/tokens/bulk', { 'x-api-key': stack.proKey }],
    ];
    for (const [path, headers] of routes) {
      expectError(
        await call(stack.A, 'POST', path, {
          headers,
          raw: JSON.stringify({ padding: 'x'.repeat(120 * 1024) }),
        }),
        413,
      );
      for (const raw of ['{"email": ', '{"tokens": [1,2,', 'null', '"just a string"', '\u0000']) {
        expectError(await call(stack.A, 'POST', path, { headers, raw }), 400);
      }
    }
    // Deeply nested JSON is refused by the schema, not by a crash.
    const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expectError(
      await call(stack.A, 'POST', '/api/pro/tokens/bulk', {
        headers: { 'x-api-key': stack.proKey },
        raw: `{"tokens": ${nested}}`,
      }),
      400,
    );
  });

  it('an API key in the wrong header → 401', async () => {
    const paths = ['/api/pro/tokens?limit=1', '/api/tokens?limit=1'];
    for (const path of paths) {
      const wrong: Record<string, string>[] = [
        { authorization: stack.proKey },
        { authorization: `Token ${stack.proKey}` },
        { 'x-api-token': stack.proKey },
        { 'x-api-secret': stack.proKey },
        {},
      ];
      for (const headers of wrong) {
        expectError(await call(stack.A, 'GET', path, { headers }), 401, MSG.unauthorized);
      }
      expectError(
        await call(stack.A, 'GET', `${path}&api_key=${stack.proKey}`),
        401,
        MSG.unauthorized,
      );
    }
    // X-API-Key belongs to the PRO operations only.
    expectError(
      await call(stack.A, 'GET', '/api/tokens?limit=1', { headers: { 'x-api-key': stack.proKey } }),
      401,
      MSG.unauthorized,
    );
    // A JWT is not an API key.
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens?limit=1', {
        headers: { 'x-api-key': stack.pro.jwt },
      }),
      401,
      MSG.unauthorized,
    );
    expect(
      (
        await call(stack.A, 'GET', '/api/pro/tokens?limit=1', {
          headers: { 'x-api-key': stack.proKey },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(stack.A, 'GET', '/api/tokens?limit=1', { headers: bearer(stack.proKey) })).status,
    ).toBe(200);
  });

  it("a FREE user's JWT on every PRO route → 403 PRO plan required", async () => {
    const free = await stack.makeUser('FREE');
    const hh = bearer(free.jwt);
    expectError(
      await call(stack.A, 'GET', `/api/pro/tokens/${addr(0xa001)}`, { headers: hh }),
      403,
      MSG.pro,
    );
    expectError(await call(stack.A, 'GET', '/api/pro/tokens', { headers: hh }), 403, MSG.pro);
    expectError(
      await call(stack.A, 'POST', '/api/pro/tokens/bulk', { headers: hh, body: { tokens: [] } }),
      403,
      MSG.pro,
    );
    expectError(
      await call(stack.A, 'POST', '/api/auth/generate-api-key', { headers: hh }),
      403,
      MSG.pro,
    );
    // The free user's JWT in the X-API-Key header is no key at all.
    expectError(
      await call(stack.A, 'GET', '/api/pro/tokens', { headers: { 'x-api-key': free.jwt } }),
      401,
      MSG.unauthorized,
    );
  });

  it('the database holds no plain password, key or secret', async () => {
    const dump =
      JSON.stringify(await stack.handle.sql`select * from users`) +
      JSON.stringify(await stack.handle.sql`select * from api_keys`);
    expect(dump).not.toContain(stack.pro.password);
    expect(dump).not.toContain(stack.proKey);
    expect(dump).not.toMatch(/svc_secret_[0-9a-f]{64}/);
    expect(dump).toMatch(/scrypt\$16384\$8\$1\$/);
  });
});
