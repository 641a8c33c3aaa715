import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import type { z } from 'zod';
import { eq, sql } from 'drizzle-orm';
import { createDb, type DbHandle } from '../db/client.ts';
import { createAccountRepository, type AccountRepository, type UserRow } from '../db/repositories/accounts.ts';
import { createTokenRepository, type DetectedToken, type TokenRepository } from '../db/repositories/tokens.ts';
import { analyses, apiKeys, tokenHistory, tokens as tokensTable, users, watchlist as watchlistTable, creators as creatorsTable } from '../db/schema.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { bumpTokenVersion } from '../infra/token-cache.ts';
import { bumpAuthGeneration } from '../infra/auth-generation.ts';
import { hashPassword, sha256Hex } from '../src/accounts/credentials.ts';
import { DAY_MS, type Plan } from '../src/plans.ts';
import { createAccountsProcessor } from '../workers/accounts.ts';
import { ACCOUNTS_SCHEDULER } from '../workers/catalog.ts';
import { createProducer, type Producer } from '../workers/queues.ts';
import { startService } from '../app/service.ts';
import { closeServer, listen, request, TEST_JWT_SECRET, testAppDeps, type JsonResult } from '../test/support/api.ts';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '../test/support/services.ts';
import { createApp } from './app.ts';
import { signToken } from './auth.ts';
import * as S from './schemas.ts';
import { createUsageCounter, type UsageCounter } from './usage.ts';

/**
 * The conformance suite of docs/api.md: every endpoint's success shape (strict schemas:
 * exact field names and types), every error status with its message, the API key state machine,
 * plan gating, rate limits across two app instances sharing Redis, the daily reset on an
 * injected clock, and the security cases. Real Postgres, real Redis, real HTTP servers.
 */

const KNOWN_CHAINS = new Set([1, 56, 137, 42161, 8453, 31337]);
const MSG = {
  unauthorized: 'Unauthorized. Please log in again.',
  pro: 'PRO plan required',
  basic: 'BASIC or PRO plan required',
  tokenNotFound: 'Token not found',
  keyNotFound: 'API key not found',
  inWatchlist: 'Token already in watchlist',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  cooldown: 'Refresh cooldown active',
};
const SQL_ATTACKS = ["' OR 1=1--", '1; drop table tokens', "0x' OR '1'='1", "'); delete from users; --", '1 union select * from api_keys'];
const HIGH_LIMITS = { requestsPerMinute: 1_000_000, requestsPerHour: 1_000_000, requestsPerDay: 1_000_000 };

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let accounts: AccountRepository;
let tokenRepo: TokenRepository;
let redisA: ReturnType<typeof createRedis>;
let redisB: ReturnType<typeof createRedis>;
let producerConnection: ReturnType<typeof createRedis>;
let producer: Producer;
let usageA: UsageCounter;
let serverA: Server;
let serverB: Server;
/** Two app instances sharing Postgres and Redis, as two API processes would. */
let A: string;
let B: string;
/** The injected clock: real time plus an offset, or a fixed instant. */
let clockOverride: Date | undefined;
const clock = () => clockOverride ?? new Date();

/** Recent snapshots: history retention (docs/scale.md) keeps 60 s snapshots for 24 h only. */
const HISTORY_START = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 3_600_000;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const CREATOR = addr(0xc0ffee);
let serial = 0;

function detected(chainId: number, address: string, symbol: string, extra: Partial<DetectedToken> = {}): DetectedToken {
  return {
    chainId, address, name: `${symbol} Token`, symbol, decimals: 18, totalSupply: '1000000000000000000000000',
    creationTxHash: `0x${'ab'.repeat(32)}`, creator: CREATOR, creatorIsContract: false, txOrigin: null, creationBlockNumber: 100,
    creationBlockHash: `0x${'cd'.repeat(32)}`, creationTimestamp: new Date('2024-05-01T12:00:00.000Z'), creationGasUsed: 1000,
    detectionSource: 'receipt', ...extra,
  };
}

interface TestUser {
  user: UserRow;
  jwt: string;
  email: string;
  password: string;
}

async function makeUser(plan: Plan, extra: { trialEndsAt?: Date; paymentFailedAt?: Date } = {}): Promise<TestUser> {
  const email = `user${++serial}-${plan.toLowerCase()}@example.com`;
  const password = `password-${serial}`;
  let user = (await accounts.createUser({ email, passwordHash: await hashPassword(password), plan, trialEndsAt: extra.trialEndsAt ?? null }))!;
  if (extra.paymentFailedAt) user = (await accounts.recordPaymentFailed(email, extra.paymentFailedAt))!;
  return { user, email, password, jwt: signToken(user, { secret: TEST_JWT_SECRET }, clock()).token };
}

/** Tests change accounts through the repository, as an operator command does; it announces the change too. */
const authChanged = () => bumpAuthGeneration(redisA, testRedis.prefix);

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

let clientSerial = 0;

/**
 * One request. Anonymous limits are per client address; requests carry a fresh one
 * (X-Forwarded-For, trusted from loopback) unless a test sets it, so tests do not share a budget.
 */
async function call(base: string, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; raw?: string } = {}): Promise<JsonResult> {
  clientSerial += 1;
  const headers: Record<string, string> = { 'x-forwarded-for': `10.${(clientSerial >> 16) & 255}.${(clientSerial >> 8) & 255}.${clientSerial & 255}`, ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return request(`${base}${path}`, { method, headers, body });
}

function expectError(result: JsonResult, status: number, message?: string | RegExp): string {
  expect(result.status, result.text).toBe(status);
  expect(result.type).toMatch(/^application\/json/);
  expect(result.text).not.toMatch(/<html|<!DOCTYPE|<pre>|\bat .*\.(ts|js):\d+/i);
  expect(Object.keys(result.body as object)).toEqual(['error']);
  const error = (result.body as { error: string }).error;
  expect(typeof error).toBe('string');
  if (typeof message === 'string') expect(error).toBe(message);
  else if (message) expect(error).toMatch(message);
  return error;
}

function expectShape<T extends z.ZodType>(schema: T, result: JsonResult, status = 200): z.infer<T> {
  expect(result.status, result.text).toBe(status);
  const parsed = schema.safeParse(result.body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues ?? [])).toBe(true);
  return parsed.data as z.infer<T>;
}

async function generateKey(base: string, user: TestUser, limits?: typeof HIGH_LIMITS): Promise<string> {
  const result = await call(base, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt), body: {} });
  const key = expectShape(S.apiKeyCreated, result, 201).api_key;
  if (limits) {
    await accounts.setKeyLimits({ keyHash: sha256Hex(key) }, limits);
    await authChanged();
  }
  return key;
}

let pro: TestUser;
let proKey: string;

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 6 });
  accounts = createAccountRepository(handle.db);
  tokenRepo = createTokenRepository(handle.db);
  redisA = createRedis(testRedis.url, 'commands');
  redisB = createRedis(testRedis.url, 'commands');
  producerConnection = createRedis(testRedis.url, 'producer');
  producer = createProducer(producerConnection, testRedis.prefix);
  const deps = (redis: typeof redisA) => testAppDeps({ db: handle.db, redis, prefix: testRedis.prefix, knownChainIds: KNOWN_CHAINS, clock, producer });
  const depsA = deps(redisA);
  usageA = createUsageCounter({ redis: redisA, prefix: testRedis.prefix, accounts, clock, logger: silentLogger });
  ({ server: serverA, base: A } = await listen(createApp({ ...depsA, usage: usageA })));
  ({ server: serverB, base: B } = await listen(createApp(deps(redisB))));

  // Tokens: oldest first. Risk and liquidity as the later stages would write them.
  const plan: [number, number, string, Partial<{ score: number; level: string; liquidity: string; name: string }>][] = [
    [1, 0xa001, 'SAFE', { score: 10, level: 'low', liquidity: '250000.50' }],
    [1, 0xa002, 'MEDI', { score: 45, level: 'medium', liquidity: '1000' }],
    [56, 0xa003, 'HONY', { score: 98, level: 'honeypot', liquidity: '50' }],
    [137, 0xa004, 'NEWT', {}],
    [1, 0xa005, 'PEPE', { score: 70, level: 'high', liquidity: '5000', name: 'Pepe Classic' }],
  ];
  for (const [chainId, n, symbol, risk] of plan) {
    await tokenRepo.upsertDetected(detected(chainId, addr(n), symbol, risk.name ? { name: risk.name } : {}));
    if (risk.score !== undefined) {
      await handle.db.update(tokensTable).set({ currentRiskScore: risk.score, currentRiskLevel: risk.level, currentLiquidityUsd: risk.liquidity, isActivelyTraded: true })
        .where(eq(tokensTable.address, addr(n)));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await tokenRepo.updateBytecode(1, addr(0xa001), { bytecodeHash: `0x${'ee'.repeat(32)}`, codeLength: 1234, proxyLike: false });
  await handle.db.update(creatorsTable).set({ successCount: 1, scamCount: 1, reputationScore: 40 }).where(eq(creatorsTable.address, CREATOR));
  // A full analysis for SAFE, and 120 history snapshots (more than either limit).
  await handle.db.insert(analyses).values({
    chainId: 1, address: addr(0xa001), inputHash: 'h1', riskScore: 10, riskLevel: 'low',
    riskFactors: [{ code: 'owner_renounced', points: -5, severity: 'info', message: 'ownership renounced', evidence: [{ kind: 'call', detail: 'owner() returns 0x0' }] }],
    actionableInsights: ['Looks fine'], alerts: [],
    details: {
      trading_simulation: { is_buyable: true, is_sellable: true, buy_tax_pct: 0, sell_tax_pct: 0, transfer_tax_pct: 0, max_tx_amount: null, simulated_at: '2024-05-01T12:05:00.000Z', error: null, is_honeypot: false, amounts: [] },
      security_hints: { is_proxy: false, is_mintable: false, can_blacklist: false, can_pause: false, fee_modifiable: false, has_max_tx_limit: false, trading_restricted: false, owner_can_change_balance: false, hidden_owner: false, ownership_renounced: true, owner_address: null, liquidity_lock: { locked_pct: 80, burned_pct: 15, lockers: ['unicrypt'] } },
      dex_hints: { is_tradable: true, has_liquidity: true, total_liquidity_usd: 250000.5 },
    },
  });
  await handle.db.insert(tokenHistory).values(Array.from({ length: 120 }, (_, i) => ({
    chainId: 1, address: addr(0xa001), bucketAt: new Date(HISTORY_START + i * 60_000), riskScore: 10, priceUsd: String(1 + i / 1000), liquidityUsd: '250000', volume24hUsd: '100', marketCapUsd: '1000000',
  })));

  pro = await makeUser('PRO');
  proKey = await generateKey(A, pro, HIGH_LIMITS);
});

afterAll(async () => {
  await Promise.all([closeServer(serverA), closeServer(serverB)]);
  await usageA?.stop();
  await producer?.close();
  for (const r of [redisA, redisB, producerConnection]) r?.disconnect();
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
});

beforeEach(() => {
  clockOverride = undefined;
});

describe('accounts: signup, signin, me', () => {
  it('POST /api/auth/signup → 201 {user} on plan FREE; the email is case-insensitive and unique (409)', async () => {
    const created = expectShape(S.signupResponse, await call(A, 'POST', '/api/auth/signup', { body: { email: 'New.User@Example.com', password: 'correct horse' } }), 201);
    expect(created.user).toMatchObject({ email: 'new.user@example.com', plan: 'FREE', plan_state: 'active', trial_ends_at: null });
    expectError(await call(A, 'POST', '/api/auth/signup', { body: { email: 'new.user@EXAMPLE.com', password: 'another one' } }), 409, 'Email already registered');
  });

  it.each([
    [{ email: 'not-an-email', password: 'long enough' }, 'email'],
    [{ email: 'a@example.com', password: 'short' }, 'password'],
    [{ email: 'a@example.com', password: 'x'.repeat(129) }, 'password'],
    [{ email: 'a@example.com' }, 'password'],
    [{ email: 'a@example.com', password: 'long enough', plan: 'PRO' }, 'plan'],
    [[], 'request'],
  ])('signup %j → 400 naming %s', async (body, field) => {
    expect(expectError(await call(A, 'POST', '/api/auth/signup', { body }), 400)).toContain(field);
  });

  it('POST /api/auth/signin → 200 {token, token_type, expires_in, user}; the token is HS256 with an expiry', async () => {
    await call(A, 'POST', '/api/auth/signup', { body: { email: 'signin@example.com', password: 'signin-password' } });
    const body = expectShape(S.signinResponse, await call(A, 'POST', '/api/auth/signin', { body: { email: 'SIGNIN@example.com', password: 'signin-password' } }));
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(86_400);
    expect(body.user).toMatchObject({ email: 'signin@example.com', plan: 'FREE', trial_ends_at: null });
    const decoded = jwt.decode(body.token, { complete: true })!;
    expect(decoded.header.alg).toBe('HS256');
    const payload = decoded.payload as jwt.JwtPayload;
    expect(payload.exp! - payload.iat!).toBe(86_400);
    expect(payload.sub).toBe(String(body.user.id));
    const me = expectShape(S.userSchema, await call(B, 'GET', '/api/auth/me', { headers: bearer(body.token) }));
    expect(me).toMatchObject({ id: body.user.id, email: 'signin@example.com', plan: 'FREE' });
  });

  it('signin with a wrong password or an unknown email → 401 with the documented message', async () => {
    expectError(await call(A, 'POST', '/api/auth/signin', { body: { email: pro.email, password: 'wrong password' } }), 401, MSG.unauthorized);
    expectError(await call(A, 'POST', '/api/auth/signin', { body: { email: 'nobody@example.com', password: 'whatever1' } }), 401, MSG.unauthorized);
  });

  it('GET /api/auth/me → the user with plan state; without or with a bad credential → 401', async () => {
    const trial = await makeUser('PRO', { trialEndsAt: new Date(Date.now() + 7 * DAY_MS) });
    const me = expectShape(S.userSchema, await call(A, 'GET', '/api/auth/me', { headers: bearer(trial.jwt) }));
    expect(me).toMatchObject({ plan: 'PRO', plan_state: 'trialing', features: { pro_api: true, ws_connections: 10 } });
    expect(Date.parse(me.trial_ends_at!)).toBe(trial.user.trialEndsAt!.getTime());
    expectError(await call(A, 'GET', '/api/auth/me'), 401, MSG.unauthorized);
    expectError(await call(A, 'GET', '/api/auth/me', { headers: { authorization: 'Bearer nonsense' } }), 401, MSG.unauthorized);
    // Account routes take a JWT, not an API key.
    expectError(await call(A, 'GET', '/api/auth/me', { headers: bearer(proKey) }), 401, MSG.unauthorized);
  });
});

describe('JWT security', () => {
  const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = () => ({ sub: String(pro.user.id), iss: 'token-monitor', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 });

  it('refuses alg none, a wrong secret, an expired token, another issuer, HS512, a deleted user and garbage', async () => {
    const forged = [
      `${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims())}.`,
      `${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims())}`,
      jwt.sign(claims(), 'a-completely-different-secret-of-enough-length', { algorithm: 'HS256' }),
      jwt.sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign({ ...claims(), iss: 'someone-else' }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS512' }),
      jwt.sign((({ exp: _e, ...rest }) => rest)(claims()), TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign({ ...claims(), sub: '999999' }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      `eyJhbGciOiJIUzI1NiJ9.e30.${'x'.repeat(43)}`,
      'x'.repeat(5000),
    ];
    for (const token of forged) {
      for (const path of ['/api/auth/me', '/api/tokens', '/api/pro/tokens']) {
        expectError(await call(A, 'GET', path, { headers: bearer(token) }), 401, MSG.unauthorized);
      }
    }
    // The genuine one passes.
    expect((await call(A, 'GET', '/api/auth/me', { headers: bearer(jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS256' })) })).status).toBe(200);
  });

  it('a token expires on the injected clock too', async () => {
    const user = await makeUser('FREE');
    expect((await call(A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) })).status).toBe(200);
    clockOverride = new Date(Date.now() + 86_400_000 + 1_000);
    expectError(await call(A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) }), 401, MSG.unauthorized);
  });
});

describe('API keys: generate, list, revoke', () => {
  it('generate needs PRO: FREE and BASIC get 403, PRO gets 201 with the documented key object', async () => {
    for (const plan of ['FREE', 'BASIC'] as const) {
      const user = await makeUser(plan);
      expectError(await call(A, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt) }), 403, MSG.pro);
    }
    const user = await makeUser('PRO');
    const key = expectShape(S.apiKeyCreated, await call(A, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt), body: { name: 'bot', description: 'trading bot' } }), 201);
    expect(key).toMatchObject({ plan: 'PRO', name: 'bot', description: 'trading bot', status: 'active', expires_at: null });
    expect(key.rate_limit).toEqual({ requests_per_day: 1000, requests_per_hour: 100, requests_per_minute: 10 });
    expect(key.features.length).toBeGreaterThan(0);
    // Only hashes are stored.
    const [row] = await handle.db.select().from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(key.api_key)));
    expect(row!.secretHash).toBe(sha256Hex(key.api_secret));
    const stored = JSON.stringify(await handle.sql`select * from api_keys where user_id = ${user.user.id}`);
    expect(stored).not.toContain(key.api_key);
    expect(stored).not.toContain(key.api_secret);
  });

  it('the key state machine: a new key revokes the previous one; revoked → 401; list shows active only, masked', async () => {
    const user = await makeUser('PRO');
    const first = await generateKey(A, user);
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': first } })).status).toBe(200);
    const second = await generateKey(B, user);
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': first } }), 401, MSG.unauthorized);
    expectError(await call(B, 'GET', '/api/tokens?limit=1', { headers: bearer(first) }), 401, MSG.unauthorized);
    expect((await call(B, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': second } })).status).toBe(200);

    const list = expectShape(S.apiKeyList, await call(A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }));
    expect(list.total).toBe(1);
    const masked = `svc_pro_${second.slice(8, 12)}…${second.slice(-4)}`;
    expect(list.api_keys[0]!.api_key).toBe(masked);
    expect(list.api_keys[0]!.status).toBe('active');
    const rows = await handle.db.select().from(apiKeys).where(eq(apiKeys.userId, user.user.id));
    expect(rows.map((r) => r.status).sort()).toEqual(['active', 'revoked']);

    // Revoke by the masked form, exactly as listed.
    const revoked = expectShape(S.apiKeyRevoked, await call(A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, { headers: bearer(user.jwt) }));
    expect(revoked).toEqual({ message: expect.any(String), api_key: masked, status: 'revoked' });
    expectError(await call(B, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': second } }), 401, MSG.unauthorized);
    expect(expectShape(S.apiKeyList, await call(A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) }))).toEqual({ api_keys: [], total: 0 });
    // Already revoked: no active key of the caller by that name.
    expectError(await call(A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, { headers: bearer(user.jwt) }), 404, MSG.keyNotFound);
    expectError(await call(A, 'DELETE', `/api/auth/api-keys/${second}`, { headers: bearer(user.jwt) }), 404, MSG.keyNotFound);
  });

  it('revokes by the full key; another user\'s key → 404 and it keeps working', async () => {
    const owner = await makeUser('PRO');
    const stranger = await makeUser('PRO');
    const key = await generateKey(A, owner);
    expectError(await call(A, 'DELETE', `/api/auth/api-keys/${key}`, { headers: bearer(stranger.jwt) }), 404, MSG.keyNotFound);
    const masked = `svc_pro_${key.slice(8, 12)}…${key.slice(-4)}`;
    expectError(await call(A, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(masked)}`, { headers: bearer(stranger.jwt) }), 404, MSG.keyNotFound);
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status).toBe(200);
    expectShape(S.apiKeyRevoked, await call(A, 'DELETE', `/api/auth/api-keys/${key}`, { headers: bearer(owner.jwt) }));
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }), 401, MSG.unauthorized);
    // Not a key at all: 400 naming the parameter.
    expect(expectError(await call(A, 'DELETE', '/api/auth/api-keys/not-a-key', { headers: bearer(owner.jwt) }), 400)).toContain('apiKey');
  });

  it('two concurrent generate calls leave exactly one active key, and it is one of the two returned', async () => {
    const user = await makeUser('PRO');
    await generateKey(A, user);
    const results = await Promise.all([A, B, A, B].map((base) => call(base, 'POST', '/api/auth/generate-api-key', { headers: bearer(user.jwt) })));
    const keys = results.map((r) => expectShape(S.apiKeyCreated, r, 201).api_key);
    const active = await handle.db.select().from(apiKeys).where(sql`${apiKeys.userId} = ${user.user.id} and ${apiKeys.status} = 'active'`);
    expect(active).toHaveLength(1);
    const working = [];
    for (const key of keys) if ((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status === 200) working.push(key);
    expect(working).toHaveLength(1);
    expect(sha256Hex(working[0]!)).toBe(active[0]!.keyHash);
  });

  it('a key stops authenticating when its owner is no longer PRO (downgrade, ended trial, failed payment + 3 days)', async () => {
    const user = await makeUser('PRO');
    const key = await generateKey(A, user);
    await accounts.setPlan(user.email, 'BASIC', { now: new Date() });
    await authChanged();
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }), 401, MSG.unauthorized);
    await accounts.setPlan(user.email, 'PRO', { now: new Date() });
    await authChanged();
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status).toBe(200);
    // The trial ends: FREE at once, before the scheduled job runs.
    await accounts.setPlan(user.email, 'PRO', { now: new Date(), trialEndsAt: new Date(Date.now() + 60_000) });
    await authChanged();
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status).toBe(200);
    clockOverride = new Date(Date.now() + 120_000);
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }), 401, MSG.unauthorized);
    clockOverride = undefined;
    await accounts.setPlan(user.email, 'PRO', { now: new Date() });
    await authChanged();
    await accounts.recordPaymentFailed(user.email, new Date());
    await authChanged();
    clockOverride = new Date(Date.now() + 2 * DAY_MS);
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status).toBe(200);
    clockOverride = new Date(Date.now() + 3 * DAY_MS + 60_000);
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } }), 401, MSG.unauthorized);
  });

  it('counts usage per key: requests_today, requests_this_month, total_requests, last_used (Redis, flushed to Postgres)', async () => {
    const user = await makeUser('PRO');
    const key = await generateKey(A, user, HIGH_LIMITS);
    for (let i = 0; i < 4; i++) expect((await call(i % 2 ? A : B, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } })).status).toBe(200);
    // A rejected credential is not usage; a 404 with a valid key is.
    expect((await call(A, 'GET', `/api/pro/tokens/${addr(0xdead)}?chain_id=1`, { headers: { 'x-api-key': key } })).status).toBe(404);
    // Each instance adds its counts to Redis within a second (the answering one at once).
    await new Promise((r) => setTimeout(r, 1_200));
    const stats = expectShape(S.apiKeyList, await call(A, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) })).api_keys[0]!;
    expect(stats.usage_stats).toMatchObject({ requests_today: 5, requests_this_month: 5, total_requests: 5 });
    expect(Date.now() - Date.parse(stats.last_used!)).toBeLessThan(10_000);
    expect(stats.usage_stats.last_used).toBe(stats.last_used);
    await usageA.flush();
    const [row] = await handle.db.select().from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(key)));
    expect(row!.totalRequests).toBe(5);
    expect(row!.lastUsed).not.toBeNull();
    // After the flush the total is unchanged (no double counting).
    expect(expectShape(S.apiKeyList, await call(B, 'GET', '/api/auth/api-keys', { headers: bearer(user.jwt) })).api_keys[0]!.usage_stats.total_requests).toBe(5);
  });
});

describe('plan gating for JWT callers', () => {
  const gated = async (user: TestUser) => {
    const h = bearer(user.jwt);
    return {
      tokens: await call(A, 'GET', '/api/tokens', { headers: h }),
      detail: await call(A, 'GET', `/api/tokens/${addr(0xa001)}?chain_id=1`, { headers: h }),
      riskFilter: await call(A, 'GET', '/api/tokens?risk_level=low', { headers: h }),
      watchlist: await call(A, 'GET', '/api/watchlist', { headers: h }),
      watchAdd: await call(A, 'POST', '/api/watchlist', { headers: h, body: { address: addr(0xa001), chain_id: 1 } }),
      watchDelete: await call(A, 'DELETE', `/api/watchlist/${addr(0xa001)}?chain_id=1`, { headers: h }),
      creators: await call(A, 'GET', '/api/creators', { headers: h }),
      creator: await call(A, 'GET', `/api/creators/${CREATOR}`, { headers: h }),
      pro: await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, { headers: h }),
      proList: await call(A, 'GET', '/api/pro/tokens', { headers: h }),
      bulk: await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h, body: { tokens: [{ address: addr(0xa001), chain_id: 1 }] } }),
    };
  };

  const expectFree = (r: Awaited<ReturnType<typeof gated>>) => {
    const list = expectShape(S.tokenList, r.tokens);
    for (const item of list.items) {
      expect(item).not.toHaveProperty('current_risk_score');
      expect(item).not.toHaveProperty('current_risk_level');
    }
    const detail = expectShape(S.tokenDetail, r.detail);
    expect(detail).not.toHaveProperty('current_risk_score');
    expectError(r.riskFilter, 403, MSG.basic);
    for (const x of [r.watchlist, r.watchAdd, r.watchDelete, r.creators, r.creator]) expectError(x, 403, MSG.basic);
    for (const x of [r.pro, r.proList, r.bulk]) expectError(x, 403, MSG.pro);
  };

  it('FREE: tokens without risk fields; 403 on risk filters, watchlist, creators and PRO routes', async () => {
    expectFree(await gated(await makeUser('FREE')));
  });

  it('BASIC: risk fields, watchlist and creators; 403 PRO plan required on PRO routes', async () => {
    const r = await gated(await makeUser('BASIC'));
    const list = expectShape(S.tokenList, r.tokens);
    expect(list.items.find((i) => i.symbol === 'SAFE')).toMatchObject({ current_risk_score: 10, current_risk_level: 'low' });
    expect(expectShape(S.tokenDetail, r.detail).current_risk_score).toBe(10);
    expect(expectShape(S.tokenList, r.riskFilter).items.map((i) => i.symbol)).toEqual(['SAFE']);
    expectShape(S.watchlistResponse, r.watchlist);
    expectShape(S.watchlistItem, r.watchAdd, 201);
    expectShape(S.watchlistRemoved, r.watchDelete);
    expectShape(S.creatorList, r.creators);
    expectShape(S.creatorDetail, r.creator);
    for (const x of [r.pro, r.proList, r.bulk]) expectError(x, 403, MSG.pro);
  });

  it('PRO: everything, the PRO routes included with a Bearer JWT', async () => {
    const r = await gated(await makeUser('PRO'));
    expectShape(S.tokenList, r.tokens);
    expectShape(S.watchlistItem, r.watchAdd, 201);
    expectShape(S.creatorList, r.creators);
    expectShape(S.completeToken, r.pro);
    expectShape(S.proTokenList, r.proList);
    expectShape(S.bulkResponse, r.bulk);
  });

  it('an expired trial is FREE at once, and the scheduled job records the downgrade', async () => {
    const user = await makeUser('PRO', { trialEndsAt: new Date(Date.now() - 1_000) });
    expectFree(await gated(user));
    const me = expectShape(S.userSchema, await call(A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) }));
    expect(me).toMatchObject({ plan: 'FREE', plan_state: 'trial_expired' });
    await createAccountsProcessor({ accounts, logger: silentLogger })({ task: 'maintenance' });
    const row = await accounts.userById(user.user.id);
    expect(row).toMatchObject({ plan: 'FREE', downgradedFrom: 'PRO' });
    expect(row!.downgradedAt).not.toBeNull();
  });
});

describe('scheduled account job', () => {
  it('downgrades ended trials and payments failed 3+ days ago, purges watchlist and preferences 30 days later, idempotently', async () => {
    const now = new Date('2031-03-01T00:00:00.000Z');
    const trial = await makeUser('BASIC', { trialEndsAt: new Date(now.getTime() - 1) });
    const ongoing = await makeUser('PRO', { trialEndsAt: new Date(now.getTime() + DAY_MS) });
    const failedLong = await makeUser('PRO', { paymentFailedAt: new Date(now.getTime() - 3 * DAY_MS - 1) });
    const failedRecent = await makeUser('PRO', { paymentFailedAt: new Date(now.getTime() - 2 * DAY_MS) });
    for (const u of [trial, failedLong]) {
      await accounts.addToWatchlist(u.user.id, 1, addr(0xa001));
      await handle.db.update(users).set({ preferences: { theme: 'dark' }, emailAlerts: true }).where(eq(users.id, u.user.id));
    }
    const run = createAccountsProcessor({ accounts, logger: silentLogger, clock: () => now });
    const first = await run({ task: 'maintenance' });
    expect(first.downgraded).toBeGreaterThanOrEqual(2);
    const state = async (u: TestUser) => (await accounts.userById(u.user.id))!;
    expect((await state(trial)).plan).toBe('FREE');
    expect((await state(failedLong)).plan).toBe('FREE');
    expect((await state(ongoing)).plan).toBe('PRO');
    expect((await state(failedRecent)).plan).toBe('PRO');
    expect(await accounts.watchlistCount(trial.user.id)).toBe(1);
    // Kept for 30 days.
    await createAccountsProcessor({ accounts, logger: silentLogger, clock: () => new Date(now.getTime() + 29 * DAY_MS) })({ task: 'maintenance' });
    expect(await accounts.watchlistCount(trial.user.id)).toBe(1);
    const later = createAccountsProcessor({ accounts, logger: silentLogger, clock: () => new Date(now.getTime() + 30 * DAY_MS) });
    await later({ task: 'maintenance' });
    for (const u of [trial, failedLong]) {
      expect(await accounts.watchlistCount(u.user.id)).toBe(0);
      expect(await state(u)).toMatchObject({ preferences: {}, emailAlerts: false });
      expect((await state(u)).purgedAt).not.toBeNull();
    }
    const again = await later({ task: 'maintenance' });
    expect(again).toMatchObject({ downgraded: 0, purged: 0 });
  });

  it('the scheduler role registers a BullMQ job scheduler (upsertJobScheduler), idempotently', async () => {
    const options = {
      roles: new Set(['scheduler'] as const), databaseUrl: database.url, redisUrl: testRedis.url, redisPrefix: testRedis.prefix,
      chains: [], knownChainIds: KNOWN_CHAINS, port: 0, host: '127.0.0.1', logger: silentLogger, poolMax: 1,
    };
    for (let i = 0; i < 2; i++) {
      const service = await startService(options);
      await service.stop();
    }
    const queue = producer.queue('accounts');
    const scheduler = await queue.getJobScheduler(ACCOUNTS_SCHEDULER.id);
    expect(scheduler).toMatchObject({ key: ACCOUNTS_SCHEDULER.id, every: ACCOUNTS_SCHEDULER.everyMs });
    expect(await queue.getJobSchedulersCount()).toBe(1);
  });
});

describe('rate limits', () => {
  it('the 11th request in a minute → 429 with Retry-After, counted across two app instances; headers on every response', async () => {
    const user = await makeUser('PRO');
    const key = await generateKey(A, user);
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await call(i % 2 ? B : A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      remaining.push(Number(r.headers.get('x-ratelimit-remaining')));
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset * 1000).toBeGreaterThan(Date.now() - 1_000);
      expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const base of [A, B]) {
      const refused = await call(base, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': key } });
      expectError(refused, 429, MSG.rateLimited);
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Refused requests did not use up the hour window: 100 - 10.
    const hourKey = await redisA.get(`${testRedis.prefix}:rl:hour:key:${(await handle.db.select().from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(key))))[0]!.id}`);
    expect(Number(hourKey)).toBe(10);
  });

  it('the day window resets at midnight UTC (injected clock)', async () => {
    const user = await makeUser('PRO');
    const key = await generateKey(A, user);
    await accounts.setKeyLimits({ keyHash: sha256Hex(key) }, { requestsPerMinute: 1_000, requestsPerHour: 1_000, requestsPerDay: 3 });
    await authChanged();
    clockOverride = new Date('2031-06-30T23:59:58.000Z');
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 3; i++) {
      const r = await call(i % 2 ? B : A, 'GET', '/api/pro/tokens?limit=1', { headers });
      expect(r.status).toBe(200);
      // The day window is now the tightest: its reset is midnight UTC.
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2031, 6, 1) / 1000));
    }
    const refused = await call(A, 'GET', '/api/pro/tokens?limit=1', { headers });
    expectError(refused, 429, MSG.rateLimited);
    expect(refused.headers.get('retry-after')).toBe('2');
    clockOverride = new Date('2031-06-30T23:59:59.500Z');
    expectError(await call(B, 'GET', '/api/pro/tokens?limit=1', { headers }), 429, MSG.rateLimited);
    clockOverride = new Date('2031-07-01T00:00:01.000Z');
    const next = await call(B, 'GET', '/api/pro/tokens?limit=1', { headers });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    // requests_today follows the same UTC date (B's count reaches Redis within a second).
    await new Promise((r) => setTimeout(r, 1_200));
    const list = expectShape(S.apiKeyList, await call(A, 'GET', '/api/auth/api-keys', { headers: bearer(signToken(user.user, { secret: TEST_JWT_SECRET }, clock()).token) }));
    expect(list.api_keys[0]!.usage_stats.requests_today).toBe(1);
  });

  it('JWT callers are limited per user (60/minute), and signin per client address (20/minute)', async () => {
    const user = await makeUser('FREE');
    const r = await call(A, 'GET', '/api/tokens?limit=1', { headers: bearer(user.jwt) });
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    const client = { 'x-forwarded-for': '192.0.2.77' };
    for (let i = 0; i < 20; i++) {
      const signin = await call(i % 2 ? A : B, 'POST', '/api/auth/signin', { headers: client, body: { email: user.email, password: i < 19 ? 'wrong password' : user.password } });
      expect(signin.status).toBe(i < 19 ? 401 : 200);
      expect(signin.headers.get('x-ratelimit-limit')).toBe('20');
    }
    const refused = await call(A, 'POST', '/api/auth/signin', { headers: client, body: { email: user.email, password: user.password } });
    expectError(refused, 429, MSG.rateLimited);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await call(A, 'POST', '/api/auth/signin', { body: { email: user.email, password: user.password } })).status).toBe(200);
  });
});

describe('tokens: list filters and detail', () => {
  const list = async (query: string) => expectShape(S.tokenList, await call(A, 'GET', `/api/tokens?${query}`, { headers: bearer(proKey) }));
  const symbols = async (query: string) => (await list(query)).items.map((i) => i.symbol);

  it('filters: chain_id, risk_level, min/max_risk_score, is_honeypot, min_liquidity_usd, created_after/before, q, sort', async () => {
    expect(await symbols('chain_id=1')).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expect(await symbols('risk_level=honeypot')).toEqual(['HONY']);
    expect(await symbols('min_risk_score=40&max_risk_score=80')).toEqual(['PEPE', 'MEDI']);
    expect(await symbols('is_honeypot=true')).toEqual(['HONY']);
    expect(await symbols('is_honeypot=false')).toEqual(['PEPE', 'NEWT', 'MEDI', 'SAFE']);
    expect(await symbols('min_liquidity_usd=1000')).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expect(await symbols('created_after=2024-05-01T12:00:00Z')).toHaveLength(5);
    expect(await symbols('created_before=2024-05-01')).toEqual([]);
    expect(await symbols('q=pepe')).toEqual(['PEPE']);
    expect(await symbols('q=classic')).toEqual(['PEPE']);
    expect(await symbols(`q=${addr(0xa003)}`)).toEqual(['HONY']);
    expect(await symbols('q=0x0000')).toHaveLength(5);
    expect(await symbols(`q=${addr(0xa003).toUpperCase().replace('0X', '0x')}`)).toEqual(['HONY']);
    expect(await symbols('q=%25')).toEqual([]);
    expect(await symbols('q=_')).toEqual([]);
    expect(await symbols('sort=current_risk_score')).toEqual(['SAFE', 'MEDI', 'PEPE', 'HONY', 'NEWT']);
    expect(await symbols('sort=-current_liquidity_usd')).toEqual(['SAFE', 'PEPE', 'MEDI', 'HONY', 'NEWT']);
    expect(await symbols('sort=detected_at')).toEqual(['SAFE', 'MEDI', 'HONY', 'NEWT', 'PEPE']);
    const page = await list('limit=2&page=2');
    expect(page).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(page.items.map((i) => i.symbol)).toEqual(['HONY', 'MEDI']);
  });

  it.each([
    ['risk_level=extreme', 'risk_level'], ['min_risk_score=101', 'min_risk_score'], ['max_risk_score=-1', 'max_risk_score'],
    ['min_risk_score=50&max_risk_score=10', 'min_risk_score'], ['is_honeypot=yes', 'is_honeypot'], ['min_liquidity_usd=abc', 'min_liquidity_usd'],
    ['created_after=yesterday', 'created_after'], ['created_after=2024-13-45', 'created_after'], ['q=', 'q'], [`q=${'x'.repeat(65)}`, 'q'],
    ['sort=price', 'sort'], ['limit=101', 'limit'], ['chain_id=999', 'chain_id'],
  ])('?%s → 400 naming %s', async (query, field) => {
    expect(expectError(await call(A, 'GET', `/api/tokens?${query}`, { headers: bearer(proKey) }), 400)).toContain(field);
  });

  it('detail → 200; unknown → 404 Token not found; addresses case-insensitive, answered lower-case', async () => {
    const detail = expectShape(S.tokenDetail, await call(A, 'GET', `/api/tokens/${addr(0xa001).toUpperCase().replace('0X', '0x')}?chain_id=1`, { headers: bearer(proKey) }));
    expect(detail).toMatchObject({ contract_address: addr(0xa001), symbol: 'SAFE', current_risk_score: 10, code_length: 1234 });
    expectError(await call(A, 'GET', `/api/tokens/${addr(0xdead)}?chain_id=1`, { headers: bearer(proKey) }), 404, MSG.tokenNotFound);
  });
});

describe('PRO operations', () => {
  const h = () => ({ 'x-api-key': proKey });

  it('GET /api/pro/tokens/{address}: the complete token object; include_* flags; history ≤ 100, most recent first', async () => {
    const base = expectShape(S.completeToken, await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, { headers: h() }));
    expect(base).not.toHaveProperty('history');
    expect(base.trading_simulation).toEqual({ is_buyable: true, is_sellable: true, buy_tax_pct: 0, sell_tax_pct: 0, transfer_tax_pct: 0, max_tx_amount: null, simulated_at: '2024-05-01T12:05:00.000Z', error: null });
    expect(base.security_hints).toMatchObject({ ownership_renounced: true, fee_modifiable: false, creator_reputation_score: 40, liquidity_lock: { locked_pct: 80, burned_pct: 15, lockers: ['unicrypt'] } });
    expect(base.is_honeypot).toBe(false);
    expect(base.risk_analysis).toMatchObject({ risk_score: 10, risk_level: 'low', actionable_insights: ['Looks fine'] });
    expect(base.dex_hints).toMatchObject({ is_tradable: true, has_liquidity: true, buy_url: null });
    const full = expectShape(S.completeToken, await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1&include_history=true&include_analysis=false&include_dex=false`, { headers: h() }));
    expect(full).not.toHaveProperty('risk_analysis');
    expect(full).not.toHaveProperty('dex_hints');
    expect(full.history).toHaveLength(100);
    const times = full.history!.map((x) => Date.parse(x.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(full.history![0]!.timestamp).toBe(new Date(HISTORY_START + 119 * 60_000).toISOString());
  });

  it('a token the analysis stages have not reached: every analysis part null, never absent', async () => {
    const token = expectShape(S.completeToken, await call(B, 'GET', `/api/pro/tokens/${addr(0xa004)}`, { headers: h() }));
    expect(token).toMatchObject({ chain_id: 137, trading_simulation: null, risk_analysis: null, dex_hints: null, is_honeypot: null });
    expect(Object.values(token.security_hints).filter((v) => v !== null)).toEqual([40]);
  });

  it('errors: unknown token 404, bad flags and chains 400', async () => {
    expectError(await call(A, 'GET', `/api/pro/tokens/${addr(0xdead)}?chain_id=1`, { headers: h() }), 404, MSG.tokenNotFound);
    expectError(await call(A, 'GET', `/api/pro/tokens/${addr(0xdead)}`, { headers: h() }), 404, MSG.tokenNotFound);
    expect(expectError(await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?include_history=1`, { headers: h() }), 400)).toContain('include_history');
    expect(expectError(await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=999`, { headers: h() }), 400)).toContain('chain_id');
  });

  it('GET /api/pro/tokens: filters, pagination and `fields` selection', async () => {
    const all = expectShape(S.proTokenList, await call(A, 'GET', '/api/pro/tokens?chain_id=1&sort=current_risk_score', { headers: h() }));
    expect(all.items.map((i) => i.symbol)).toEqual(['SAFE', 'MEDI', 'PEPE']);
    expect(Object.keys(all.items[0]!)).toEqual(expect.arrayContaining(['security_hints', 'trading_simulation', 'is_honeypot', 'total_supply']));
    const narrow = expectShape(S.proTokenList, await call(A, 'GET', '/api/pro/tokens?fields=symbol,current_risk_score&limit=2', { headers: h() }));
    expect(narrow).toMatchObject({ total: 5, page: 1, limit: 2 });
    for (const item of narrow.items) expect(Object.keys(item).sort()).toEqual(['chain_id', 'contract_address', 'current_risk_score', 'symbol']);
    expect(expectError(await call(A, 'GET', '/api/pro/tokens?fields=symbol,password_hash', { headers: h() }), 400)).toMatch(/fields.*password_hash/);
    expect(expectError(await call(A, 'GET', '/api/pro/tokens?fields=,', { headers: h() }), 400)).toContain('fields');
  });

  it('POST /api/pro/tokens/bulk: found tokens, not_found, metadata, history ≤ 50, the cache and its invalidation', async () => {
    const body = { tokens: [{ address: addr(0xa001), chain_id: 1 }, { address: addr(0xa003).toUpperCase().replace('0X', '0x'), chain_id: 56 }, { address: addr(0xbeef), chain_id: 1 }, { address: addr(0xa001), chain_id: 1 }], include_history: true };
    await bumpTokenVersion(redisA, testRedis.prefix, { chainId: 1, address: addr(0xa001) });
    await bumpTokenVersion(redisA, testRedis.prefix, { chainId: 56, address: addr(0xa003) });
    const first = expectShape(S.bulkResponse, await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h(), body }));
    expect(first.tokens.map((t) => t.contract_address)).toEqual([addr(0xa001), addr(0xa003)]);
    expect(first.metadata).toMatchObject({ total_tokens: 2, requested: 3, cache_hit_rate: 0, not_found: [{ address: addr(0xbeef), chain_id: 1 }] });
    expect(first.metadata.processing_time_ms).toBeGreaterThan(0);
    expect(first.tokens[0]!.history).toHaveLength(50);
    const second = expectShape(S.bulkResponse, await call(B, 'POST', '/api/pro/tokens/bulk', { headers: h(), body }));
    expect(second.metadata.cache_hit_rate).toBe(0.667);
    expect(second.tokens).toEqual(first.tokens);
    // A writer changes the token and bumps its version: the next answer is fresh.
    await handle.db.update(tokensTable).set({ name: 'Renamed Safe' }).where(eq(tokensTable.address, addr(0xa001)));
    await bumpTokenVersion(redisA, testRedis.prefix, { chainId: 1, address: addr(0xa001) });
    const third = expectShape(S.bulkResponse, await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h(), body }));
    expect(third.tokens[0]!.name).toBe('Renamed Safe');
    expect(third.metadata.cache_hit_rate).toBe(0.333);
    await handle.db.update(tokensTable).set({ name: 'SAFE Token' }).where(eq(tokensTable.address, addr(0xa001)));
    await bumpTokenVersion(redisA, testRedis.prefix, { chainId: 1, address: addr(0xa001) });
  });

  it('bulk: more than 50 → 400; empty, malformed entries, unknown chains → 400', async () => {
    const many = { tokens: Array.from({ length: 51 }, (_, i) => ({ address: addr(0x1000 + i), chain_id: 1 })) };
    expect(expectError(await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h(), body: many }), 400)).toMatch(/tokens.*50/);
    const fifty = { tokens: many.tokens.slice(0, 50) };
    expect(expectShape(S.bulkResponse, await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h(), body: fifty })).metadata.not_found).toHaveLength(50);
    for (const bad of [{ tokens: [] }, {}, { tokens: [{ address: '0x12', chain_id: 1 }] }, { tokens: [{ address: addr(1), chain_id: 999 }] }, { tokens: [{ address: addr(1), chain_id: '1' }] }, { tokens: 'all' }]) {
      expect(expectError(await call(A, 'POST', '/api/pro/tokens/bulk', { headers: h(), body: bad }), 400)).toContain('tokens');
    }
  });
});

describe('creators', () => {
  it('GET /api/creators and /api/creators/{address}: reputation fields; the detail lists its tokens', async () => {
    const list = expectShape(S.creatorList, await call(A, 'GET', '/api/creators', { headers: bearer(proKey) }));
    const eth = list.items.find((c) => c.chain_id === 1 && c.address === CREATOR)!;
    expect(eth).toMatchObject({ total_tokens: 3, success_rate: 0.3333, scam_rate: 0.3333, reputation_score: 40 });
    const detail = expectShape(S.creatorDetail, await call(A, 'GET', `/api/creators/${CREATOR.toUpperCase().replace('0X', '0x')}?chain_id=1`, { headers: bearer(proKey) }));
    expect(detail.tokens.map((t) => t.symbol)).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expectError(await call(A, 'GET', `/api/creators/${addr(0xdead)}`, { headers: bearer(proKey) }), 404, 'Creator not found');
    expect(expectError(await call(A, 'GET', '/api/creators?sort=name', { headers: bearer(proKey) }), 400)).toContain('sort');
  });
});

describe('watchlist', () => {
  it('add 201, duplicate 409, unknown token 404, list, remove, remove again 404', async () => {
    const user = await makeUser('BASIC');
    const hh = bearer(user.jwt);
    const added = expectShape(S.watchlistItem, await call(A, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(0xa002).toUpperCase().replace('0X', '0x'), chain_id: 1 } }), 201);
    expect(added).toMatchObject({ contract_address: addr(0xa002), chain_id: 1, token: { symbol: 'MEDI' } });
    expectError(await call(B, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(0xa002), chain_id: 1 } }), 409, MSG.inWatchlist);
    expectError(await call(A, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(0xa002), chain_id: 56 } }), 404, MSG.tokenNotFound);
    const list = expectShape(S.watchlistResponse, await call(A, 'GET', '/api/watchlist', { headers: hh }));
    expect(list.total).toBe(1);
    expect(list.items[0]!.token!.current_risk_score).toBe(45);
    expectShape(S.watchlistRemoved, await call(A, 'DELETE', `/api/watchlist/${addr(0xa002)}?chain_id=1`, { headers: hh }));
    expectError(await call(A, 'DELETE', `/api/watchlist/${addr(0xa002)}?chain_id=1`, { headers: hh }), 404, 'Token not in watchlist');
    expect(expectError(await call(A, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(1) } }), 400)).toContain('chain_id');
  });
});

describe('manual refresh', () => {
  it('202 {status: queued} for a known token, then 429 Refresh cooldown active with Retry-After for 10 s', async () => {
    const r = await call(A, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, { headers: bearer(proKey) });
    expect(expectShape(S.refreshResponse, r, 202)).toEqual({ status: 'queued' });
    const jobs = await producer.queue('bytecode').getJobs(['waiting', 'prioritized', 'delayed']);
    expect(jobs.some((j) => j.data.address === addr(0xa002) && String(j.id).startsWith(`bytecode-1-${addr(0xa002)}-manual-`))).toBe(true);
    const again = await call(B, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, { headers: bearer(proKey) });
    expectError(again, 429, MSG.cooldown);
    const retry = Number(again.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(10);
  });

  it('an unknown token on a chain without RPC → 404; missing chain_id → 400; FREE → 403', async () => {
    expectError(await call(A, 'POST', `/api/tokens/${addr(0xfeed)}/refresh?chain_id=1`, { headers: bearer(proKey) }), 404, MSG.tokenNotFound);
    expect(expectError(await call(A, 'POST', `/api/tokens/${addr(0xfeed)}/refresh`, { headers: bearer(proKey) }), 400)).toContain('chain_id');
    expectError(await call(A, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, { headers: bearer((await makeUser('FREE')).jwt) }), 403, MSG.basic);
  });
});

describe('security', () => {
  it('SQL injection in every path, query and body parameter: 400 (or an honest empty answer), and every table intact', async () => {
    const before = await handle.sql<{ t: number; u: number; k: number }[]>`select (select count(*)::int from tokens) t, (select count(*)::int from users) u, (select count(*)::int from api_keys) k`;
    const pk = { 'x-api-key': proKey };
    for (const attack of SQL_ATTACKS) {
      // A user per attack: each round stays within the per-user JWT limit.
      const hh = bearer((await makeUser('PRO')).jwt);
      const e = encodeURIComponent(attack);
      const four = [
        call(A, 'GET', `/api/tokens/${e}`, { headers: hh }),
        call(A, 'GET', `/api/pro/tokens/${e}`, { headers: pk }),
        call(A, 'GET', `/api/creators/${e}`, { headers: hh }),
        call(A, 'DELETE', `/api/watchlist/${e}`, { headers: hh }),
        call(A, 'DELETE', `/api/auth/api-keys/${e}`, { headers: hh }),
        call(A, 'POST', `/api/tokens/${e}/refresh?chain_id=1`, { headers: hh }),
        call(A, 'POST', `/api/tokens/${addr(0xa001)}/refresh?chain_id=${e}`, { headers: hh }),
        call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=${e}`, { headers: pk }),
        call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}?include_history=${e}`, { headers: pk }),
        call(A, 'GET', `/api/watchlist/x?chain_id=${e}`, { headers: hh }),
        call(A, 'POST', '/api/watchlist', { headers: hh, body: { address: attack, chain_id: 1 } }),
        call(A, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(0xa001), chain_id: attack } }),
        call(A, 'POST', '/api/pro/tokens/bulk', { headers: pk, body: { tokens: [{ address: attack, chain_id: 1 }] } }),
        call(A, 'POST', '/api/auth/signup', { body: { email: attack, password: 'long enough' } }),
        call(A, 'POST', '/api/auth/generate-api-key', { headers: hh, body: { name: 1, description: attack, expires_in_days: attack } }),
        ...['chain_id', 'page', 'limit', 'risk_level', 'min_risk_score', 'max_risk_score', 'is_honeypot', 'min_liquidity_usd', 'created_after', 'created_before', 'sort'].flatMap((p) => [
          call(A, 'GET', `/api/tokens?${p}=${e}`, { headers: hh }),
          call(A, 'GET', `/api/pro/tokens?${p}=${e}`, { headers: pk }),
        ]),
        call(A, 'GET', `/api/pro/tokens?fields=${e}`, { headers: pk }),
        ...['chain_id', 'page', 'limit', 'sort'].map((p) => call(A, 'GET', `/api/creators?${p}=${e}`, { headers: hh })),
      ];
      for (const r of await Promise.all(four)) expect([400, 404], r.text).toContain(r.status);
      // Free text is searched for literally, and finds nothing.
      expect(expectShape(S.tokenList, await call(A, 'GET', `/api/tokens?q=${e}`, { headers: hh })).items).toEqual([]);
      expect(expectShape(S.proTokenList, await call(A, 'GET', `/api/pro/tokens?q=${e}`, { headers: pk })).items).toEqual([]);
      expectError(await call(A, 'POST', '/api/auth/signin', { body: { email: attack, password: attack } }), 401, MSG.unauthorized);
    }
    const after = await handle.sql<{ t: number; u: number; k: number }[]>`select (select count(*)::int from tokens) t, (select count(*)::int from users) u, (select count(*)::int from api_keys) k`;
    expect(after[0]!.t).toBe(before[0]!.t);
    expect(after[0]!.u).toBe(before[0]!.u + SQL_ATTACKS.length);
    expect(after[0]!.k).toBe(before[0]!.k);
  });

  it('oversized (413) and malformed (400) JSON bodies on every POST route', async () => {
    const routes: [string, Record<string, string>][] = [
      ['/api/auth/signup', {}], ['/api/auth/signin', {}], ['/api/auth/generate-api-key', bearer(pro.jwt)],
      ['/api/watchlist', bearer(pro.jwt)], ['/api/pro/tokens/bulk', { 'x-api-key': proKey }],
    ];
    for (const [path, headers] of routes) {
      expectError(await call(A, 'POST', path, { headers, raw: JSON.stringify({ padding: 'x'.repeat(120 * 1024) }) }), 413);
      for (const raw of ['{"email": ', '{"tokens": [1,2,', 'null', '"just a string"', '\u0000']) {
        expectError(await call(A, 'POST', path, { headers, raw }), 400);
      }
    }
    // Deeply nested JSON is refused by the schema, not by a crash.
    const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expectError(await call(A, 'POST', '/api/pro/tokens/bulk', { headers: { 'x-api-key': proKey }, raw: `{"tokens": ${nested}}` }), 400);
  });

  it('an API key in the wrong header → 401', async () => {
    const paths = ['/api/pro/tokens?limit=1', '/api/tokens?limit=1'];
    for (const path of paths) {
      const wrong: Record<string, string>[] = [{ authorization: proKey }, { authorization: `Token ${proKey}` }, { 'x-api-token': proKey }, { 'x-api-secret': proKey }, {}];
      for (const headers of wrong) {
        expectError(await call(A, 'GET', path, { headers }), 401, MSG.unauthorized);
      }
      expectError(await call(A, 'GET', `${path}&api_key=${proKey}`), 401, MSG.unauthorized);
    }
    // X-API-Key belongs to the PRO operations only.
    expectError(await call(A, 'GET', '/api/tokens?limit=1', { headers: { 'x-api-key': proKey } }), 401, MSG.unauthorized);
    // A JWT is not an API key.
    expectError(await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': pro.jwt } }), 401, MSG.unauthorized);
    expect((await call(A, 'GET', '/api/pro/tokens?limit=1', { headers: { 'x-api-key': proKey } })).status).toBe(200);
    expect((await call(A, 'GET', '/api/tokens?limit=1', { headers: bearer(proKey) })).status).toBe(200);
  });

  it("a FREE user's JWT on every PRO route → 403 PRO plan required", async () => {
    const free = await makeUser('FREE');
    const hh = bearer(free.jwt);
    expectError(await call(A, 'GET', `/api/pro/tokens/${addr(0xa001)}`, { headers: hh }), 403, MSG.pro);
    expectError(await call(A, 'GET', '/api/pro/tokens', { headers: hh }), 403, MSG.pro);
    expectError(await call(A, 'POST', '/api/pro/tokens/bulk', { headers: hh, body: { tokens: [] } }), 403, MSG.pro);
    expectError(await call(A, 'POST', '/api/auth/generate-api-key', { headers: hh }), 403, MSG.pro);
    // The free user's JWT in the X-API-Key header is no key at all.
    expectError(await call(A, 'GET', '/api/pro/tokens', { headers: { 'x-api-key': free.jwt } }), 401, MSG.unauthorized);
  });

  it('the database holds no plain password, key or secret', async () => {
    const dump = JSON.stringify(await handle.sql`select * from users`) + JSON.stringify(await handle.sql`select * from api_keys`);
    expect(dump).not.toContain(pro.password);
    expect(dump).not.toContain(proKey);
    expect(dump).not.toMatch(/svc_secret_[0-9a-f]{64}/);
    expect(dump).toMatch(/scrypt\$16384\$8\$1\$/);
  });

  it('watchlist rows go with their user', async () => {
    const user = await makeUser('BASIC');
    await accounts.addToWatchlist(user.user.id, 1, addr(0xa001));
    await handle.db.delete(users).where(eq(users.id, user.user.id));
    expect(await handle.db.select().from(watchlistTable).where(eq(watchlistTable.userId, user.user.id))).toEqual([]);
  });
});

describe('500 Internal server error', () => {
  it('a real failure that is not an outage (a missing table) answers 500 with no detail, and the service goes on', async () => {
    const broken = await createTestDatabase();
    const brokenHandle = createDb(broken.url, { max: 1 });
    const redis = createRedis(testRedis.url, 'commands');
    let s: Server | undefined;
    try {
      const brokenAccounts = createAccountRepository(brokenHandle.db);
      const owner = await brokenAccounts.createUser({ email: 'broken@example.com', passwordHash: await hashPassword('broken-password'), plan: 'PRO' });
      const user = { user: owner!, jwt: signToken(owner!, { secret: TEST_JWT_SECRET }, new Date()).token };
      await brokenHandle.sql`drop table token_history`;
      const started = await listen(createApp(testAppDeps({ db: brokenHandle.db, redis, prefix: `${testRedis.prefix}:broken`, knownChainIds: KNOWN_CHAINS })));
      s = started.server;
      await brokenHandle.sql`insert into tokens (chain_id, address, detection_source) values (1, ${addr(0xa001)}, 'receipt')`;
      const failed = await call(started.base, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, { headers: bearer(user.jwt) });
      expectError(failed, 500, 'Internal server error');
      expect(failed.text).not.toMatch(/token_history|relation|select/i);
      expect((await call(started.base, 'GET', '/api/tokens', { headers: bearer(user.jwt) })).status).toBe(200);
    } finally {
      await closeServer(s);
      redis.disconnect();
      await brokenHandle.close();
      await broken.drop();
    }
  });
});

describe('OpenAPI 3.1 at /docs', () => {
  it('serves the document generated from the route schemas, and a page that needs no network', async () => {
    const doc = (await call(A, 'GET', '/docs/openapi.json')).body as { openapi: string; paths: Record<string, Record<string, { parameters: { name: string }[]; responses: Record<string, unknown> }>> };
    expect(doc.openapi).toBe('3.1.0');
    const expected: [string, string][] = [
      ['/api/auth/signup', 'post'], ['/api/auth/signin', 'post'], ['/api/auth/me', 'get'], ['/api/auth/generate-api-key', 'post'],
      ['/api/auth/api-keys', 'get'], ['/api/auth/api-keys/{apiKey}', 'delete'], ['/api/tokens', 'get'], ['/api/tokens/{address}', 'get'],
      ['/api/tokens/{address}/refresh', 'post'], ['/api/creators', 'get'], ['/api/creators/{address}', 'get'], ['/api/watchlist', 'get'],
      ['/api/watchlist', 'post'], ['/api/watchlist/{address}', 'delete'], ['/api/pro/tokens/{address}', 'get'], ['/api/pro/tokens', 'get'],
      ['/api/pro/tokens/bulk', 'post'],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths['/api/tokens']!.get!.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['q', 'risk_level', 'min_liquidity_usd', 'sort']));
    expect(doc.paths['/api/pro/tokens']!.get!.parameters.map((p) => p.name)).toContain('fields');
    expect(Object.keys(doc.paths['/api/pro/tokens/bulk']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    const page = await fetch(`${A}/docs`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!json-schema)/);
  });
});
