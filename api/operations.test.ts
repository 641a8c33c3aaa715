import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueDemoKey } from '../app/embedded/index.ts';
import type { Service } from '../app/service.ts';
import { startTestChain, type TestChain } from '../test/support/chain.ts';
import { startTestService } from '../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';

/** Operator surfaces on a running stack: /metrics counts what happened; Bull Board needs the login. */

const ADMIN = { user: 'operator', password: 'correct horse battery staple' };
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let service: Service;
let apiKey: string;

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
    admin: ADMIN,
  });
  apiKey = await issueDemoKey(database.url, redis.url, redis.prefix);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

/** The value of one sample line of the Prometheus text format, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics', () => {
  it('counts RPC calls, stage runs, queue depth, scanner lag and HTTP requests', async () => {
    const token = await chain.deploy('SimpleToken', ['Metered', 'MTR', 1000n]);
    await eventually(
      async () => {
        const res = await fetch(`${service.url}/api/tokens/${token.address}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        return res.status === 200 ? true : undefined;
      },
      30_000,
      'the token to be detected',
    );
    const text = await (await fetch(`${service.url}/metrics`)).text();
    expect(
      sample(text, 'tm_rpc_calls_total', {
        chain: '31337',
        method: 'eth_getBlockReceipts',
        outcome: 'ok',
      }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'tm_rpc_calls_total', {
        chain: '31337',
        method: 'batch:eth_call',
        outcome: 'ok',
      }),
    ).toBeGreaterThan(0);
    // Requests as providers bill them: each entry of a batch on its own, by its method.
    expect(
      sample(text, 'tm_rpc_requests_total', { chain: '31337', method: 'eth_call' }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'tm_rpc_requests_total', { chain: '31337', method: 'eth_getBlockByNumber' }),
    ).toBeGreaterThanOrEqual(
      sample(text, 'tm_rpc_calls_total', {
        chain: '31337',
        method: 'batch:eth_getBlockByNumber',
        outcome: 'ok',
      }) ?? Number.POSITIVE_INFINITY,
    );
    expect(
      sample(text, 'tm_stage_duration_seconds_count', { queue: 'detect', status: 'completed' }),
    ).toBeGreaterThan(0);
    // The detect job that found the token is kept as completed for an hour.
    expect(sample(text, 'tm_queue_jobs', { queue: 'detect', state: 'completed' })).toBeGreaterThan(
      0,
    );
    // The scanner found the token, so it is caught up: a block or two behind the head at most.
    expect(sample(text, 'tm_scanner_lag_blocks', { chain: '31337' })).toBeLessThanOrEqual(2);
    expect(
      sample(text, 'tm_http_request_duration_seconds_count', {
        route: '/api/tokens/:address',
        status: '200',
      }),
    ).toBeGreaterThan(0);
    expect(text).toMatch(/^tm_ws_connections 0$/m);
  });
});

describe('Bull Board', () => {
  it('refuses access without the operator login, and with a wrong one', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: basic(ADMIN.user, 'wrong') },
      { authorization: basic('someone', ADMIN.password) },
      { authorization: 'Bearer x' },
    ]) {
      const res = await fetch(`${service.url}/admin/queues`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(await res.json()).toEqual({ error: 'Unauthorized. Please log in again.' });
    }
    const api = await fetch(`${service.url}/admin/queues/api/queues`);
    expect(api.status).toBe(401);
  });

  it('shows the queues to an operator', async () => {
    const page = await fetch(`${service.url}/admin/queues`, {
      headers: { authorization: basic(ADMIN.user, ADMIN.password) },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const api = await fetch(`${service.url}/admin/queues/api/queues`, {
      headers: { authorization: basic(ADMIN.user, ADMIN.password) },
    });
    const body = (await api.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name)).toEqual(
      expect.arrayContaining(['detect', 'bytecode', 'replay']),
    );
  });
});
