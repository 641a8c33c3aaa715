import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Service } from '../../app/service.ts';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { createRedis } from '../../infra/redis.ts';
import { createProAccount, RAISED_LIMITS } from '../support/accounts.ts';
import { startTestChain, type TestChain } from '../support/chain.ts';
import { startTestService } from '../support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../support/services.ts';

/**
 * Property-based fuzzing of every API route and the WebSocket on a real stack: random paths,
 * queries, bodies, headers and messages. Nothing may answer 5xx, hang, crash the process, or
 * make memory grow. FUZZ_RUNS raises the number of cases (CI uses the default).
 *
 * The valid key has raised limits, and every case comes from an address of its own (the service
 * trusts X-Forwarded-For from loopback, as behind a proxy): so valid cases are not refused by the
 * rate limit or by the failed-authentication throttle that the hostile ones trip. The run reports
 * how many cases reached a route handler - not refused by authentication, a limit, or for an
 * unknown route - which is the figure that says how deep the fuzzing went.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const REQUEST_TIMEOUT_MS = 8_000;
/** Heap growth allowed over the whole run, after a GC: generous, but far below a leak's. */
const MAX_HEAP_GROWTH_BYTES = 64 * 2 ** 20;

/** The routes of docs/api.md (with `:param` holes) plus the operational ones. */
const ROUTES = [
  '/health',
  '/ready',
  '/metrics',
  '/docs',
  '/docs/openapi.json',
  '/admin/queues',
  '/api/tokens',
  '/api/tokens/:address',
  '/api/tokens/:address/refresh',
  '/api/pro/tokens',
  '/api/pro/tokens/:address',
  '/api/pro/tokens/bulk',
  '/api/auth/signup',
  '/api/auth/signin',
  '/api/auth/me',
  '/api/auth/generate-api-key',
  '/api/auth/api-keys',
  '/api/auth/api-keys/:key',
  '/api/creators',
  '/api/creators/:address',
  '/api/watchlist',
  '/api/watchlist/:address',
];
const QUERY_KEYS = [
  'chain_id',
  'page',
  'limit',
  'q',
  'fields',
  'since',
  'risk_level',
  'include_history',
  'min_risk_score',
  'sort',
  'token',
];

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let service: Service;
let cases = 0;
/** HTTP cases past authentication, plan checks and limits, on a known route. */
let reachedHandler = 0;
let httpCases = 0;
/** Answers that are decided before any route handler runs. */
const REFUSALS = new Set([
  'Unauthorized. Please log in again.',
  'Rate limit exceeded. Please try again later.',
  'PRO plan required',
  'BASIC or PRO plan required',
  'Not found',
]);
/** A real PRO key: some cases must get past authentication to reach the handlers. */
let validKey = '';

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  service = await startTestService({
    roles: ['api', 'worker', 'scanner'],
    database,
    redis,
    chain: chain.chainConfig(),
    knownChainIds: new Set([1, 56, 137, 42161, 8453, 31337]),
    admin: { user: 'op', password: 'fuzz-operator-password' },
    trustProxy: 'loopback',
  });
  validKey = await raisedLimitKey();
}, 120_000);

/** A PRO account whose key an operator raised (`keys set-limits`), as for a load test. */
async function raisedLimitKey(): Promise<string> {
  const handle = createDb(database.url, { max: 1 });
  const client = createRedis(redis.url, 'commands');
  try {
    const accounts = createAccountRepository(handle.db);
    const { apiKey } = await createProAccount(accounts, {
      email: 'fuzz@example.com',
      limits: RAISED_LIMITS,
    });
    await bumpAuthGeneration(client, redis.prefix);
    return apiKey;
  } finally {
    client.disconnect();
    await handle.close();
  }
}

let addressSerial = 0;
/** A client address of its own per case. */
const nextAddress = () => {
  addressSerial += 1;
  return `10.${(addressSerial >> 16) & 255}.${(addressSerial >> 8) & 255}.${addressSerial & 255}`;
};

/** The `error` of a JSON error answer, if it is one. */
const errorOf = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
};

afterAll(async () => {
  await service?.stop();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
  console.log(
    `fuzz: ${cases} HTTP and WebSocket cases run; ${reachedHandler} of ${httpCases} fuzzed HTTP cases reached a route handler`,
  );
});

const hostile = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom(
    "' OR 1=1--",
    '1; drop table tokens',
    '../../etc/passwd',
    '%00',
    '%E0%A4%A',
    '0x',
    `0x${'f'.repeat(40)}`,
    `0x${'A'.repeat(40)}`,
    '-1',
    '1e309',
    'NaN',
    '9'.repeat(40),
    '{"$gt":""}',
    '<script>',
    '__proto__',
    'constructor',
    '\u0000',
    '🦄'.repeat(20),
  ),
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 70 })
    .map((h) => `0x${h}`),
  fc.integer().map(String),
);

/** One path in five gets an extra segment (an unknown route): most cases aim at real routes. */
const pathArb = fc
  .tuple(
    fc.constantFrom(...ROUTES),
    hostile,
    fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    hostile,
  )
  .map(([template, value, extra, tail]) => {
    const filled = template.replace(/:[a-z]+/g, () => encodeURIComponent(value));
    return extra ? `${filled}/${encodeURIComponent(tail)}` : filled;
  });
const queryArb = fc
  .array(
    fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 10 })), hostile),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  );
const headersArb = fc.record(
  {
    // The valid key in about half of the cases that carry a credential: hostile input must reach the handlers too.
    authorization: fc.option(
      fc.oneof(
        hostile.map((v) => `Bearer ${v}`),
        hostile.map((v) => `Basic ${v}`),
        hostile,
        { arbitrary: fc.constant('valid').map(() => `Bearer ${validKey}`), weight: 3 },
      ),
      { nil: undefined },
    ),
    'x-api-key': fc.option(
      fc.oneof(hostile, { arbitrary: fc.constant('valid').map(() => validKey), weight: 2 }),
      { nil: undefined },
    ),
    'content-type': fc.option(
      fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
        'multipart/form-data',
      ),
      { nil: undefined },
    ),
  },
  { requiredKeys: [] },
);
const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 4 }),
  hostile,
  fc.record({ email: hostile, password: hostile }).map((v) => JSON.stringify(v)),
  fc
    .record({
      tokens: fc.array(fc.record({ address: hostile, chain_id: fc.oneof(fc.integer(), hostile) }), {
        maxLength: 60,
      }),
    })
    .map((v) => JSON.stringify(v)),
  fc.constant('{"a":'.repeat(1_000)),
);

/** Header values must be sendable at all: fetch refuses control characters before they leave. */
const sendable = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

describe('fuzzing the HTTP API', () => {
  it('never answers 5xx, never hangs, always answers JSON errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        pathArb,
        queryArb,
        headersArb,
        bodyArb,
        async (method, path, query, headers, body) => {
          cases++;
          httpCases++;
          const cleanHeaders: Record<string, string> = {
            'x-forwarded-for': nextAddress(),
            ...Object.fromEntries(
              Object.entries(headers).filter(
                (e): e is [string, string] => typeof e[1] === 'string' && sendable(e[1]),
              ),
            ),
          };
          const res = await fetch(`${service.url}${path}${query ? `?${query}` : ''}`, {
            method,
            headers: cleanHeaders,
            body: method === 'GET' || method === 'OPTIONS' ? undefined : body,
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const text = await res.text();
          expect(
            res.status,
            `${method} ${path}?${query} → ${res.status} ${text.slice(0, 200)}`,
          ).toBeLessThan(500);
          if (res.status >= 400 && !path.startsWith('/admin/queues/static')) {
            expect(res.headers.get('content-type') ?? '', `${method} ${path}`).toMatch(
              /application\/json/,
            );
            expect(JSON.parse(text)).toEqual({ error: expect.any(String) });
          }
          const error = res.status >= 400 ? errorOf(text) : undefined;
          if (error === undefined || !REFUSALS.has(error)) reachedHandler++;
        },
      ),
      { numRuns: RUNS },
    );
    // Enough cases get through to exercise the handlers, not only the guards in front of them.
    // (With the default 10/minute key about ten did; the share varies with fast-check's draws.)
    expect(reachedHandler).toBeGreaterThan(httpCases / 8);
  }, 600_000);

  it('does not leak memory across many requests', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const sample = () => {
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    const before = sample();
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          fetch(
            `${service.url}/api/tokens/${i % 2 ? 'bad' : `0x${'ab'.repeat(20)}`}?chain_id=${i % 3 ? 1 : 'x'}`,
          ).then((r) => r.arrayBuffer()),
        ),
      );
      cases += 300;
    }
    expect(sample() - before).toBeLessThan(MAX_HEAP_GROWTH_BYTES);
  }, 120_000);
});

describe('fuzzing the WebSocket', () => {
  it('survives random messages: answers errors, never crashes, keeps serving', async () => {
    const messageArb = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc
        .record({
          type: fc.constantFrom('subscribe', 'ping', 'unsubscribe', 'x'),
          chain_ids: fc.anything(),
          watchlist_only: fc.anything(),
          min_risk_score: fc.anything(),
        })
        .map((m) => JSON.stringify(m)),
      fc.constant('x'.repeat(10_000)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(messageArb, { minLength: 1, maxLength: 8 }),
        fc.option(hostile, { nil: undefined }),
        fc.option(hostile, { nil: undefined }),
        async (messages, since, token) => {
          cases++;
          // Mostly the real key (10 connections allowed for PRO), sometimes a hostile credential.
          const credential = token ?? validKey;
          const url = `${service.url!.replace('http', 'ws')}/ws?token=${encodeURIComponent(credential)}${since === undefined ? '' : `&since=${encodeURIComponent(since)}`}`;
          const socket = new WebSocket(url, { headers: { 'x-forwarded-for': nextAddress() } });
          const outcome = await new Promise<'open' | number>((resolve) => {
            socket.once('open', () => resolve('open'));
            socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
            socket.once('error', () => resolve(0));
          });
          if (outcome !== 'open') {
            expect(outcome).toBeGreaterThanOrEqual(400);
            expect(outcome).toBeLessThan(500);
            return;
          }
          for (const m of messages) socket.send(m);
          socket.send(JSON.stringify({ type: 'ping' }));
          // Either it answers the ping, or it closed us for a policy reason (too large a message).
          const answered = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), REQUEST_TIMEOUT_MS);
            socket.on('message', (raw) => {
              if (JSON.parse(raw.toString()).type === 'pong') {
                clearTimeout(timer);
                resolve(true);
              }
            });
            socket.once('close', (code) => {
              clearTimeout(timer);
              resolve([1008, 1009].includes(code));
            });
          });
          socket.terminate();
          expect(answered).toBe(true);
        },
      ),
      { numRuns: Math.ceil(RUNS / 4) },
    );
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  }, 600_000);
});
