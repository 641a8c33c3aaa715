import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDb, type DbHandle } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createEventPublisher } from '../infra/events.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { silentLogger } from '../infra/logger.ts';
import { generateApiKey, hashPassword } from '../src/accounts/credentials.ts';
import { startService, type Service } from '../app/service.ts';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '../test/support/services.ts';
import { signToken } from './auth.ts';

/**
 * WebSocket access on real API processes (docs/websocket.md): credentials by `?token=` (JWT or PRO key)
 * or Authorization header, FREE refused, per-user connection limits (BASIC 1, PRO 10) counted
 * across two API instances through Redis, and watchlist_only subscriptions.
 */

const JWT_SECRET = 'ws-access-test-secret-0123456789abcdef0123456789';
const WATCHED = `0x${'a1'.repeat(20)}`;
const OTHER = `0x${'b2'.repeat(20)}`;

let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let first: Service;
let second: Service;
const credentials: Record<'free' | 'basic' | 'pro' | 'proKey', string> = { free: '', basic: '', pro: '', proKey: '' };

async function startApi(): Promise<Service> {
  return startService({
    roles: new Set(['api']), databaseUrl: database.url, redisUrl: redis.url, redisPrefix: redis.prefix, chains: [],
    knownChainIds: new Set([1]), port: 0, host: '127.0.0.1', logger: silentLogger, poolMax: database.embedded ? 1 : 4, jwtSecret: JWT_SECRET,
  });
}

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 2 });
  const accounts = createAccountRepository(handle.db);
  const now = new Date();
  for (const plan of ['FREE', 'BASIC', 'PRO'] as const) {
    const user = (await accounts.createUser({ email: `${plan.toLowerCase()}@ws.test`, passwordHash: await hashPassword('a long password'), plan }))!;
    credentials[plan.toLowerCase() as 'free' | 'basic' | 'pro'] = signToken(user, { secret: JWT_SECRET }, now).token;
    if (plan === 'PRO') {
      const key = generateApiKey();
      await accounts.generateKey(user.id, key, { name: 'ws', description: null, plan, now, expiresAt: null });
      credentials.proKey = key.apiKey;
      await accounts.addToWatchlist(user.id, 1, WATCHED);
    }
  }
  [first, second] = await Promise.all([startApi(), startApi()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await handle?.close();
  await Promise.all([database?.drop(), redis?.cleanup()]);
});

type Outcome = { status: 'open'; socket: WebSocket } | { status: number; body: unknown };

function connect(service: Service, query = '', headers: Record<string, string> = {}): Promise<Outcome> {
  const socket = new WebSocket(`${service.url!.replace('http', 'ws')}/ws${query}`, { headers });
  return new Promise((resolve) => {
    socket.once('open', () => resolve({ status: 'open', socket }));
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    socket.once('error', () => {});
  });
}

const closed = (socket: WebSocket) => new Promise<void>((resolve) => {
  socket.once('close', () => resolve());
  socket.close();
});

describe('WebSocket access', () => {
  it('refuses a missing or bad credential with 401, and a FREE user with 403', async () => {
    expect(await connect(first)).toEqual({ status: 401, body: { error: 'Unauthorized. Please log in again.' } });
    expect(await connect(first, '?token=svc_pro_nope')).toEqual({ status: 401, body: { error: 'Unauthorized. Please log in again.' } });
    expect(await connect(first, `?token=${credentials.free}`)).toEqual({ status: 403, body: { error: 'BASIC or PRO plan required' } });
  });

  it('lets a BASIC user hold one connection, counted across API instances', async () => {
    const one = await connect(first, '', { authorization: `Bearer ${credentials.basic}` });
    expect(one.status).toBe('open');
    expect(await connect(second, `?token=${credentials.basic}`)).toEqual({ status: 429, body: { error: 'Connection limit exceeded' } });
    expect(await connect(first, `?token=${credentials.basic}`)).toEqual({ status: 429, body: { error: 'Connection limit exceeded' } });
    await closed((one as { socket: WebSocket }).socket);
    // The slot is released on close, on whichever instance the next connection lands.
    let again: Outcome = { status: 0, body: null };
    for (let i = 0; i < 20 && again.status !== 'open'; i++) {
      again = await connect(second, `?token=${credentials.basic}`);
      if (again.status !== 'open') await new Promise((r) => setTimeout(r, 50));
    }
    expect(again.status).toBe('open');
    await closed((again as { socket: WebSocket }).socket);
  });

  it('lets a PRO user hold ten connections (JWT or key), and refuses the eleventh', async () => {
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await connect(i % 2 ? first : second, `?token=${i % 3 ? credentials.proKey : credentials.pro}`);
      expect(o.status).toBe('open');
      sockets.push((o as { socket: WebSocket }).socket);
    }
    expect(await connect(first, `?token=${credentials.proKey}`)).toEqual({ status: 429, body: { error: 'Connection limit exceeded' } });
    await Promise.all(sockets.map(closed));
  });

  it('watchlist_only delivers the events of watched tokens only', async () => {
    const o = await connect(first, `?token=${credentials.proKey}`);
    const socket = (o as { socket: WebSocket }).socket;
    const messages: { type: string; data?: { contract_address?: string } }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    socket.send(JSON.stringify({ type: 'subscribe', watchlist_only: true }));
    const deadline = Date.now() + 5_000;
    while (!messages.some((m) => m.type === 'subscribed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const client = createRedis(redis.url, 'commands');
    const publisher = createEventPublisher(client, keySpace(redis.prefix).events);
    const summary = (address: string) => ({ contract_address: address, chain_id: 1, name: null, symbol: null, decimals: null, total_supply: null, creator: null, creation_tx_hash: null, creation_block_number: null, detection_source: 'receipt', detected_at: new Date().toISOString() });
    await publisher.publish({ type: 'token.created', data: summary(OTHER) });
    await publisher.publish({ type: 'token.created', data: summary(WATCHED) });
    while (!messages.some((m) => m.type === 'token.created') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    client.disconnect();
    expect(messages.filter((m) => m.type === 'token.created').map((m) => m.data?.contract_address)).toEqual([WATCHED]);
    await closed(socket);
  });
});
