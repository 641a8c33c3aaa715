import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { createRedis, waitForRedis } from '../infra/redis.ts';
import { createProAccount, RAISED_LIMITS } from '../test/support/accounts.ts';
import { closeServer, listen, testAppDeps } from '../test/support/api.ts';
import { addr, CREATOR, detected } from '../test/support/api-stack.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import { createApp } from './app.ts';
import type { ReadinessCheck } from './routes/index.ts';

/** The HTTP API (docs/api.md) on real Postgres and Redis, over a real HTTP server. */

const KNOWN_CHAINS = new Set([1, 56, 137, 42161, 8453, 31337]);
const SOLANA_CHAIN_ID = 1_399_811_149;

const LIST_ITEM_KEYS = [
  'chain_id',
  'contract_address',
  'current_liquidity_usd',
  'current_risk_level',
  'current_risk_score',
  'detected_at',
  'is_actively_traded',
  'name',
  'symbol',
];

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Seeded {
  chainId: number;
  address: string;
  symbol: string;
  detectedAt: Date;
}

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let brokenHandle: DbHandle;
let server: Server;
let brokenServer: Server;
let base: string;
let brokenBase: string;
const redisClients: ReturnType<typeof createRedis>[] = [];
let appRedis: ReturnType<typeof createRedis>;
/** A PRO key with raised limits: these tests are about tokens, not rate limits (see conformance.test.ts). */
let authorization = '';
/** Seeded tokens, newest first. */
let seeded: Seeded[] = [];

const MIXED_CASE_SOURCE = '0xabcdef0123456789abcdef0123456789abcdef01';

async function getJson(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; type: string; body: unknown; text: string }> {
  const headers = new Headers(init?.headers);
  if (!headers.has('authorization') && authorization) headers.set('authorization', authorization);
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, type: response.headers.get('content-type') ?? '', body, text };
}

/** Every error answer: JSON, exactly `{error: string}`, no HTML, no stack. */
function expectErrorShape(
  result: { status: number; type: string; body: unknown; text: string },
  status: number,
) {
  expect(result.status).toBe(status);
  expect(result.type).toMatch(/^application\/json/);
  expect(result.text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
  expect(result.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(result.body).toEqual({ error: expect.any(String) });
  expect(Object.keys(result.body as object)).toEqual(['error']);
  return (result.body as { error: string }).error;
}

/** Postgres and Redis checks as app/service.ts wires them, on a connected producer client. */
async function readiness(extra: ReadinessCheck[] = []): Promise<ReadinessCheck[]> {
  const redis = createRedis(testRedis.url, 'producer');
  redisClients.push(redis);
  await waitForRedis(redis);
  return [
    { name: 'postgres', check: async () => void (await handle.sql`select 1`) },
    { name: 'redis', check: async () => void (await redis.ping()) },
    ...extra,
  ];
}

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  const repository = createTokenRepository(handle.db);

  // Oldest first; each upsert is its own transaction, so detected_at (now()) grows strictly.
  const plan: [number, string, string][] = [
    [1, addr(0x1001), 'ETHA'],
    [56, addr(0x5601), 'BSCA'],
    [1, addr(0x1002), 'ETHB'],
    [137, addr(0x13701), 'POLA'],
    [56, addr(0x5602), 'BSCB'],
    [1, MIXED_CASE_SOURCE, 'MIXD'],
  ];
  const rows: Seeded[] = [];
  for (const [chainId, address, symbol] of plan) {
    const outcome = await repository.upsertDetected(detected(chainId, address, symbol));
    if (outcome.status !== 'recorded') throw new Error('seed token not recorded');
    const { inserted, row } = outcome;
    expect(inserted).toBe(true);
    rows.push({ chainId, address, symbol, detectedAt: row.detectedAt });
    await new Promise((r) => setTimeout(r, 5));
  }
  await repository.updateBytecode(1, addr(0x1001), {
    bytecodeHash: `0x${'ee'.repeat(32)}`,
    codeLength: 4321,
    proxyLike: true,
  });
  seeded = rows.sort((a, b) => b.detectedAt.getTime() - a.detectedAt.getTime());
  // The seeding order is the detection order: distinct and strictly increasing.
  expect(new Set(seeded.map((s) => s.detectedAt.getTime())).size).toBe(plan.length);
  expect(seeded.map((s) => s.symbol)).toEqual([...plan].reverse().map(([, , s]) => s));

  appRedis = createRedis(testRedis.url, 'commands');
  redisClients.push(appRedis);
  const { apiKey } = await createProAccount(createAccountRepository(handle.db), {
    email: 'app-test@example.com',
    limits: RAISED_LIMITS,
  });
  authorization = `Bearer ${apiKey}`;
  const deps = (db: DbHandle['db'], checks: ReadinessCheck[]) =>
    testAppDeps({
      db,
      redis: appRedis,
      prefix: testRedis.prefix,
      knownChainIds: KNOWN_CHAINS,
      readiness: checks,
    });

  const app = createApp(deps(handle.db, await readiness()));
  ({ server, base } = await listen(app));

  // Postgres on port 1 refuses at once: the pool is unreachable.
  brokenHandle = createDb('postgres://postgres@127.0.0.1:1/x', { max: 1 });
  const brokenApp = createApp(deps(brokenHandle.db, []));
  ({ server: brokenServer, base: brokenBase } = await listen(brokenApp));
});

afterAll(async () => {
  await Promise.all([closeServer(server), closeServer(brokenServer)]);
  for (const r of redisClients) r.disconnect();
  await brokenHandle?.close().catch(() => {});
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('health', () => {
  it('GET /health answers 200 {status: ok}', async () => {
    const result = await getJson(`${base}/health`);
    expect(result.status).toBe(200);
    expect(result.type).toMatch(/^application\/json/);
    expect(result.body).toEqual({ status: 'ok' });
  });

  it('GET /ready answers 200 with every check ok', async () => {
    const result = await getJson(`${base}/ready`);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('GET /ready answers 503 naming the failing check (Redis on a closed port)', async () => {
    const deadRedis = createRedis('redis://127.0.0.1:1', 'producer', { retryStrategy: () => null });
    redisClients.push(deadRedis);
    const app = createApp(
      testAppDeps({
        db: handle.db,
        redis: appRedis,
        prefix: testRedis.prefix,
        knownChainIds: KNOWN_CHAINS,
        readiness: [
          { name: 'postgres', check: async () => void (await handle.sql`select 1`) },
          { name: 'redis', check: async () => void (await deadRedis.ping()) },
        ],
      }),
    );
    const { server: s, base: b } = await listen(app);
    try {
      const started = Date.now();
      const result = await getJson(`${b}/ready`);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.status).toBe(503);
      expect(result.type).toMatch(/^application\/json/);
      const body = result.body as { error: string; status: string; checks: Record<string, string> };
      expect(body.error).toEqual(expect.any(String));
      expect(body.status).toBe('not-ready');
      expect(body.checks.postgres).toBe('ok');
      expect(body.checks.redis).toBe('unavailable');
    } finally {
      await closeServer(s);
    }
  });

  it('GET /ready answers 503 when a check rejects, and names it', async () => {
    const app = createApp(
      testAppDeps({
        db: handle.db,
        redis: appRedis,
        prefix: testRedis.prefix,
        knownChainIds: KNOWN_CHAINS,
        readiness: await readiness([
          {
            name: 'queues',
            check: async () => {
              throw new Error('queue backend gone');
            },
          },
        ]),
      }),
    );
    const { server: s, base: b } = await listen(app);
    try {
      const result = await getJson(`${b}/ready`);
      expect(result.status).toBe(503);
      const body = result.body as { error: string; checks: Record<string, string> };
      expect(typeof body.error).toBe('string');
      expect(body.checks).toEqual({ postgres: 'ok', redis: 'ok', queues: 'unavailable' });
    } finally {
      await closeServer(s);
    }
  });
});

describe('GET /api/tokens', () => {
  it('answers {items, total, page, limit} with exactly the documented item fields (docs/api.md), newest first', async () => {
    const result = await getJson(`${base}/api/tokens`);
    expect(result.status).toBe(200);
    expect(result.type).toMatch(/^application\/json/);
    const body = result.body as {
      items: Record<string, unknown>[];
      total: number;
      page: number;
      limit: number;
    };
    expect(Object.keys(body).sort()).toEqual(['items', 'limit', 'page', 'total']);
    // Defaults: page 1, limit 20.
    expect(body.page).toBe(1);
    expect(body.limit).toBe(20);
    expect(body.total).toBe(seeded.length);
    expect(body.items).toHaveLength(seeded.length);
    expect(body.items.map((i) => i.contract_address)).toEqual(seeded.map((s) => s.address));
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(LIST_ITEM_KEYS);
      expect(item.contract_address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(typeof item.chain_id).toBe('number');
      expect(typeof item.name).toBe('string');
      expect(typeof item.symbol).toBe('string');
      // Not scored yet: null rather than absent or zero.
      expect(item.current_risk_score).toBeNull();
      expect(item.current_risk_level).toBeNull();
      expect(item.current_liquidity_usd).toBeNull();
      expect(item.is_actively_traded).toBe(false);
      expect(item.detected_at).toMatch(ISO_8601);
    }
    const first = body.items[0]!;
    expect(first).toMatchObject({
      chain_id: seeded[0]!.chainId,
      symbol: seeded[0]!.symbol,
      name: `${seeded[0]!.symbol} Token`,
    });
    expect(first.detected_at).toBe(seeded[0]!.detectedAt.toISOString());
    const times = body.items.map((i) => Date.parse(i.detected_at as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('paginates: page 2 with limit 1 is the second newest; total unchanged', async () => {
    const result = await getJson(`${base}/api/tokens?page=2&limit=1`);
    expect(result.status).toBe(200);
    const body = result.body as {
      items: { contract_address: string }[];
      total: number;
      page: number;
      limit: number;
    };
    expect(body.page).toBe(2);
    expect(body.limit).toBe(1);
    expect(body.total).toBe(seeded.length);
    expect(body.items.map((i) => i.contract_address)).toEqual([seeded[1]!.address]);

    const beyond = await getJson(`${base}/api/tokens?page=3&limit=5`);
    expect(beyond.status).toBe(200);
    expect(beyond.body).toMatchObject({ items: [], total: seeded.length, page: 3, limit: 5 });
  });

  it('walks every page without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const result = await getJson(`${base}/api/tokens?page=${page}&limit=2`);
      seen.push(
        ...(result.body as { items: { contract_address: string }[] }).items.map(
          (i) => i.contract_address,
        ),
      );
    }
    expect(seen).toEqual(seeded.map((s) => s.address));
  });

  it('filters by chain_id', async () => {
    for (const chainId of [1, 56, 137, 8453]) {
      const result = await getJson(`${base}/api/tokens?chain_id=${chainId}`);
      expect(result.status).toBe(200);
      const body = result.body as {
        items: { chain_id: number; contract_address: string }[];
        total: number;
      };
      const expected = seeded.filter((s) => s.chainId === chainId).map((s) => s.address);
      expect(body.total).toBe(expected.length);
      expect(body.items.map((i) => i.contract_address)).toEqual(expected);
      expect(body.items.every((i) => i.chain_id === chainId)).toBe(true);
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=0x10', 'limit'],
    ['page=%201', 'page'],
    ['limit=', 'limit'],
    ['limit=1.5', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['chain_id=999', 'chain_id'],
    ['chain_id=abc', 'chain_id'],
    [`chain_id=${SOLANA_CHAIN_ID}`, 'chain_id'],
    ['chain_id=1&chain_id=56', 'chain_id'],
  ])('?%s → 400 naming %s', async (query, field) => {
    const result = await getJson(`${base}/api/tokens?${query}`);
    const message = expectErrorShape(result, 400);
    expect(message).toContain(field);
  });

  it('says why: limit above 100 and unknown chains', async () => {
    expect(expectErrorShape(await getJson(`${base}/api/tokens?limit=101`), 400)).toMatch(
      /limit.*100/,
    );
    expect(expectErrorShape(await getJson(`${base}/api/tokens?chain_id=999`), 400)).toMatch(
      /chain_id.*unknown/i,
    );
  });
});

describe('GET /api/tokens/{address}', () => {
  it('answers the detail view', async () => {
    const result = await getJson(`${base}/api/tokens/${addr(0x1001)}?chain_id=1`);
    expect(result.status).toBe(200);
    const body = result.body as Record<string, unknown>;
    for (const key of LIST_ITEM_KEYS) expect(body).toHaveProperty(key);
    expect(body).toMatchObject({
      contract_address: addr(0x1001),
      chain_id: 1,
      name: 'ETHA Token',
      symbol: 'ETHA',
      decimals: 18,
      total_supply: '1000000000000000000000000',
      creator: CREATOR,
      creator_is_contract: false,
      creation_tx_hash: `0x${'ab'.repeat(32)}`,
      creation_block_number: 100,
      creation_timestamp: '2024-05-01T12:00:00.000Z',
      bytecode_hash: `0x${'ee'.repeat(32)}`,
      code_length: 4321,
      proxy_like: true,
      detection_source: 'receipt',
    });
    expect(typeof body.creation_block_number).toBe('number');
    expect(body.detected_at).toMatch(ISO_8601);
  });

  it('finds the token without chain_id', async () => {
    const result = await getJson(`${base}/api/tokens/${addr(0x5602)}`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      contract_address: addr(0x5602),
      chain_id: 56,
      symbol: 'BSCB',
    });
  });

  it('does not find a token on another chain than its own', async () => {
    const result = await getJson(`${base}/api/tokens/${addr(0x5602)}?chain_id=1`);
    expect(expectErrorShape(result, 404)).toBe('Token not found');
  });

  it('accepts a mixed-case address and answers lower case', async () => {
    const mixed = `0x${MIXED_CASE_SOURCE.slice(2)
      .toUpperCase()
      .replace(/^(.{6})/, (m) => m.toLowerCase())}`;
    expect(mixed).not.toBe(MIXED_CASE_SOURCE);
    expect(mixed.toLowerCase()).toBe(MIXED_CASE_SOURCE);
    const result = await getJson(`${base}/api/tokens/${mixed}?chain_id=1`);
    expect(result.status).toBe(200);
    expect((result.body as { contract_address: string }).contract_address).toBe(MIXED_CASE_SOURCE);
    expect((result.body as { symbol: string }).symbol).toBe('MIXD');
  });

  it('answers 404 {"error": "Token not found"} for an unknown token on a built-in chain', async () => {
    const result = await getJson(`${base}/api/tokens/${addr(0xdead)}?chain_id=1`);
    expectErrorShape(result, 404);
    expect(result.body).toEqual({ error: 'Token not found' });
  });

  it.each([['0x123'], [`0x${'g'.repeat(40)}`], [`${'a'.repeat(42)}`], [`0x${'a'.repeat(41)}`]])(
    'answers 400 naming address for %s',
    async (bad) => {
      const message = expectErrorShape(await getJson(`${base}/api/tokens/${bad}?chain_id=1`), 400);
      expect(message).toContain('address');
    },
  );

  it.each([['999'], [String(SOLANA_CHAIN_ID)], ['abc']])(
    'answers 400 naming chain_id for chain_id=%s',
    async (chainId) => {
      const message = expectErrorShape(
        await getJson(`${base}/api/tokens/${addr(0x1001)}?chain_id=${chainId}`),
        400,
      );
      expect(message).toContain('chain_id');
    },
  );
});

describe('errors', () => {
  it('answers an unknown route with 404 JSON', async () => {
    for (const path of ['/nope', '/api', '/api/tokens/0x1/extra/deeper', '/API/TOKENZ']) {
      expectErrorShape(await getJson(`${base}${path}`), 404);
    }
    expectErrorShape(await getJson(`${base}/api/tokens`, { method: 'DELETE' }), 404);
  });

  it('answers a malformed JSON body with 400 JSON', async () => {
    const result = await getJson(`${base}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email": "a@b.c", ',
    });
    expect(expectErrorShape(result, 400)).toMatch(/body|json/i);
  });

  it('answers a body over 100 kB with 413 JSON', async () => {
    const result = await getJson(`${base}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(101 * 1024) }),
    });
    expectErrorShape(result, 413);
  });

  it('accepts a body just under 100 kB (then 404s the unknown route)', async () => {
    const result = await getJson(`${base}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(90 * 1024) }),
    });
    expectErrorShape(result, 404);
  });

  it('answers a malformed percent-encoding in the path with 400 JSON', async () => {
    expectErrorShape(await getJson(`${base}/api/tokens/%E0%A4%A`), 400);
  });

  it('refuses SQL injection in path and query with 400, and the tokens table is intact', async () => {
    const attacks = [
      "' OR 1=1--",
      '1; drop table tokens',
      "0x' OR '1'='1",
      '1 OR 1=1',
      "'); delete from tokens; --",
    ];
    for (const attack of attacks) {
      const encoded = encodeURIComponent(attack);
      expectErrorShape(await getJson(`${base}/api/tokens/${encoded}`), 400);
      expectErrorShape(
        await getJson(`${base}/api/tokens/${addr(0x1001)}?chain_id=${encoded}`),
        400,
      );
      for (const param of ['chain_id', 'page', 'limit']) {
        expectErrorShape(await getJson(`${base}/api/tokens?${param}=${encoded}`), 400);
      }
    }
    const [row] = await handle.sql<{ n: number }[]>`select count(*)::int as n from tokens`;
    expect(row!.n).toBe(seeded.length);
    const list = await getJson(`${base}/api/tokens`);
    expect((list.body as { total: number }).total).toBe(seeded.length);
  });
});

describe('database unavailable', () => {
  it('GET /api/tokens answers 503 "Service temporarily unavailable", promptly', async () => {
    const started = Date.now();
    const result = await getJson(`${brokenBase}/api/tokens`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(expectErrorShape(result, 503)).toBe('Service temporarily unavailable');
  });

  it('GET /api/tokens/{address} answers 503 too', async () => {
    const result = await getJson(`${brokenBase}/api/tokens/${addr(0x1001)}?chain_id=1`);
    expect(result.body).toEqual({ error: 'Service temporarily unavailable' });
    expect(result.status).toBe(503);
  });

  it('refuses a request without credential before touching the database', async () => {
    const result = await getJson(`${brokenBase}/api/tokens?limit=0`, {
      headers: { authorization: 'Basic x' },
    });
    expect(expectErrorShape(result, 401)).toBe('Unauthorized. Please log in again.');
    const missing = await fetch(`${brokenBase}/api/tokens`);
    expect(missing.status).toBe(401);
  });
});

describe('a database that accepts connections and never answers', () => {
  it('GET /api/tokens answers 503 at the request deadline instead of hanging', async () => {
    const { createServer: createTcpServer } = await import('node:net');
    const stalled = new Set<import('node:net').Socket>();
    const blackhole = createTcpServer((socket) => stalled.add(socket));
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', () => r()));
    const port = (blackhole.address() as AddressInfo).port;
    const db = createDb(`postgres://postgres@127.0.0.1:${port}/x`, { max: 1 });
    const app = createApp(
      testAppDeps({
        db: db.db,
        redis: appRedis,
        prefix: testRedis.prefix,
        knownChainIds: KNOWN_CHAINS,
      }),
    );
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const started = Date.now();
      const result = await getJson(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/tokens`,
      );
      expect(expectErrorShape(result, 503)).toBe('Service temporarily unavailable');
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      server.closeAllConnections();
      server.close();
      for (const s of stalled) s.destroy();
      blackhole.close();
      void db.close();
    }
  }, 20_000);
});
