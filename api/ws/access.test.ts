import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Service, startService } from '../../app/service.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { generateApiKey, hashPassword, sha256Hex } from '../../src/accounts/credentials.ts';
import { tokenCreatedData } from '../../src/events/types.ts';
import type { Plan } from '../../src/plans.ts';
import { storedToken } from '../../test/support/events.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { FAILED_AUTH_LIMIT, signToken } from '../access/index.ts';

/**
 * WebSocket access on real API processes (docs/websocket.md): credentials by `?token=` (JWT or PRO key)
 * or Authorization header, FREE refused, per-user connection limits (BASIC 1, PRO 10) counted
 * across two API instances through Redis, and watchlist_only subscriptions. Open connections
 * are judged again: revocation, JWT expiry, downgrade and trial end close them within seconds
 * with a close code and reason; client messages are rate-limited per connection; refused
 * upgrades count as failed authentication of the client address.
 */

const JWT_SECRET = 'ws-access-test-secret-0123456789abcdef0123456789';
const WATCHED = `0x${'a1'.repeat(20)}`;
const OTHER = `0x${'b2'.repeat(20)}`;
/** Open connections are re-checked this often here (5 s in production). */
const RECHECK_MS = 300;
/** Well within "seconds": a re-check or two, plus the close handshake. */
const CLOSE_WITHIN_MS = 3_000;

let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let first: Service;
let second: Service;
const credentials: Record<'free' | 'basic' | 'pro' | 'proKey', string> = {
  free: '',
  basic: '',
  pro: '',
  proKey: '',
};

async function startApi(): Promise<Service> {
  return startService({
    roles: new Set(['api']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [],
    knownChainIds: new Set([1]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 4,
    jwtSecret: JWT_SECRET,
    wsRecheckIntervalMs: RECHECK_MS,
  });
}

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 2 });
  const accounts = createAccountRepository(handle.db);
  const now = new Date();
  for (const plan of ['FREE', 'BASIC', 'PRO'] as const) {
    const user = (await accounts.createUser({
      email: `${plan.toLowerCase()}@ws.test`,
      passwordHash: await hashPassword('a long password'),
      plan,
    }))!;
    credentials[plan.toLowerCase() as 'free' | 'basic' | 'pro'] = signToken(
      user,
      { secret: JWT_SECRET },
      now,
    ).token;
    if (plan === 'PRO') {
      const key = generateApiKey();
      await accounts.generateKey(user.id, key, {
        name: 'ws',
        description: null,
        plan,
        now,
        expiresAt: null,
      });
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

function connect(
  service: Service,
  query = '',
  headers: Record<string, string> = {},
): Promise<Outcome> {
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

let serial = 0;
/** What an operator command or the account routes do after changing credentials or plans. */
async function announce() {
  const client = createRedis(redis.url, 'commands');
  await bumpAuthGeneration(client, keySpace(redis.prefix).prefix);
  client.disconnect();
}

async function makeUser(plan: Plan, trialEndsAt: Date | null = null) {
  const accounts = createAccountRepository(handle.db);
  const email = `recheck${++serial}@ws.test`;
  const user = (await accounts.createUser({
    email,
    passwordHash: await hashPassword('a long password'),
    plan,
    trialEndsAt,
  }))!;
  return { accounts, user, email };
}

/** The close code and reason the server sent, or 'open' if it did not close in time. */
const serverClose = (socket: WebSocket, withinMs = CLOSE_WITHIN_MS) =>
  new Promise<{ code: number; reason: string } | 'open'>((resolve) => {
    const timer = setTimeout(() => resolve('open'), withinMs);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });

const opened = async (service: Service, query: string) => {
  const o = await connect(service, query);
  expect(o.status).toBe('open');
  return (o as { socket: WebSocket }).socket;
};

const closed = (socket: WebSocket) =>
  new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
  });

describe('WebSocket access', () => {
  it('refuses a missing or bad credential with 401, and a FREE user with 403', async () => {
    expect(await connect(first)).toEqual({
      status: 401,
      body: { error: 'Unauthorized. Please log in again.' },
    });
    expect(await connect(first, '?token=svc_pro_nope')).toEqual({
      status: 401,
      body: { error: 'Unauthorized. Please log in again.' },
    });
    expect(await connect(first, `?token=${credentials.free}`)).toEqual({
      status: 403,
      body: { error: 'BASIC or PRO plan required' },
    });
  });

  it('lets a BASIC user hold one connection, counted across API instances', async () => {
    const one = await connect(first, '', { authorization: `Bearer ${credentials.basic}` });
    expect(one.status).toBe('open');
    expect(await connect(second, `?token=${credentials.basic}`)).toEqual({
      status: 429,
      body: { error: 'Connection limit exceeded' },
    });
    expect(await connect(first, `?token=${credentials.basic}`)).toEqual({
      status: 429,
      body: { error: 'Connection limit exceeded' },
    });
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
      const o = await connect(
        i % 2 ? first : second,
        `?token=${i % 3 ? credentials.proKey : credentials.pro}`,
      );
      expect(o.status).toBe('open');
      sockets.push((o as { socket: WebSocket }).socket);
    }
    expect(await connect(first, `?token=${credentials.proKey}`)).toEqual({
      status: 429,
      body: { error: 'Connection limit exceeded' },
    });
    await Promise.all(sockets.map(closed));
  });

  it('takes the credential as a subprotocol (browsers) and tells refusals with a 4000 + status close code', async () => {
    const browserLike = (credential: string) =>
      new Promise<{ protocol: string; code: number; reason: string; opened: boolean }>(
        (resolve) => {
          const socket = new WebSocket(`${first.url!.replace('http', 'ws')}/ws`, [
            'token-monitor',
            `bearer.${credential}`,
          ]);
          let opened = false;
          socket.once('open', () => {
            opened = true;
            // An admitted connection is greeted; close it ourselves once the welcome is in.
            socket.once('message', () => socket.close(1000));
          });
          socket.once('close', (code, reason) =>
            resolve({ protocol: socket.protocol, code, reason: reason.toString(), opened }),
          );
          socket.once('error', () => {});
        },
      );
    const admitted = await browserLike(credentials.basic);
    // The selected subprotocol is the app's name: the credential is never echoed back.
    expect(admitted).toMatchObject({ opened: true, protocol: 'token-monitor', code: 1000 });
    expect(await browserLike(credentials.free)).toMatchObject({
      code: 4403,
      reason: 'BASIC or PRO plan required',
    });
    expect(await browserLike('not-a-jwt')).toMatchObject({
      code: 4401,
      reason: 'Unauthorized. Please log in again.',
    });
    const held = await connect(first, `?token=${credentials.basic}`);
    expect(held.status).toBe('open');
    expect(await browserLike(credentials.basic)).toMatchObject({
      code: 4429,
      reason: 'Connection limit exceeded',
    });
    await closed((held as { socket: WebSocket }).socket);
  });

  it('watchlist_only delivers the events of watched tokens only', async () => {
    const o = await connect(first, `?token=${credentials.proKey}`);
    const socket = (o as { socket: WebSocket }).socket;
    const messages: { type: string; data?: { contract_address?: string } }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    socket.send(JSON.stringify({ type: 'subscribe', watchlist_only: true }));
    const deadline = Date.now() + 5_000;
    while (!messages.some((m) => m.type === 'subscribed') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const client = createRedis(redis.url, 'commands');
    const publisher = createEventPublisher(client, keySpace(redis.prefix).events);
    const summary = (address: string) => tokenCreatedData(storedToken(address));
    await publisher.publish({ type: 'token.created', data: summary(OTHER) });
    await publisher.publish({ type: 'token.created', data: summary(WATCHED) });
    while (!messages.some((m) => m.type === 'token.created') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    client.disconnect();
    expect(
      messages.filter((m) => m.type === 'token.created').map((m) => m.data?.contract_address),
    ).toEqual([WATCHED]);
    await closed(socket);
  });
});

describe('open connections are judged again', () => {
  it('a revoked key closes its connection within seconds (4401)', async () => {
    const { accounts, user } = await makeUser('PRO');
    const key = generateApiKey();
    await accounts.generateKey(user.id, key, {
      name: 'ws',
      description: null,
      plan: 'PRO',
      now: new Date(),
      expiresAt: null,
    });
    const socket = await opened(second, `?token=${key.apiKey}`);
    const closing = serverClose(socket);
    await accounts.revokeKey(user.id, { keyHash: sha256Hex(key.apiKey) }, new Date());
    await announce();
    expect(await closing).toEqual({ code: 4401, reason: 'Credential revoked or expired' });
  });

  it('a JWT closes its connection when it expires (4401)', async () => {
    const { user } = await makeUser('BASIC');
    const token = signToken(user, { secret: JWT_SECRET, ttlSeconds: 2 }, new Date()).token;
    const socket = await opened(first, `?token=${token}`);
    expect(await serverClose(socket, 2_000 + CLOSE_WITHIN_MS)).toEqual({
      code: 4401,
      reason: 'Credential expired',
    });
  });

  it('a downgrade to FREE closes the connection (4403)', async () => {
    const { accounts, user, email } = await makeUser('PRO');
    const socket = await opened(
      first,
      `?token=${signToken(user, { secret: JWT_SECRET }, new Date()).token}`,
    );
    const closing = serverClose(socket);
    await accounts.setPlan(email, 'FREE', { now: new Date() });
    await announce();
    expect(await closing).toEqual({ code: 4403, reason: 'Plan no longer includes the WebSocket' });
  });

  it('an ending trial closes the connection without any announcement (4403)', async () => {
    const { user } = await makeUser('PRO', new Date(Date.now() + 1_500));
    const socket = await opened(
      second,
      `?token=${signToken(user, { secret: JWT_SECRET }, new Date()).token}`,
    );
    expect(await serverClose(socket, 1_500 + CLOSE_WITHIN_MS)).toEqual({
      code: 4403,
      reason: 'Plan no longer includes the WebSocket',
    });
  });

  it('a connection that stays valid stays open across re-checks', async () => {
    const socket = await opened(first, `?token=${credentials.proKey}`);
    expect(await serverClose(socket, RECHECK_MS * 5)).toBe('open');
    await closed(socket);
  });
});

describe('client messages are rate-limited per connection', () => {
  it('a subscribe storm is served up to the burst and refused past it; a client that keeps on is closed (4429)', async () => {
    const socket = await opened(first, `?token=${credentials.proKey}`);
    const replies: { type: string; error?: string }[] = [];
    socket.on('message', (raw) => replies.push(JSON.parse(raw.toString())));
    const subscribe = JSON.stringify({ type: 'subscribe', watchlist_only: true });
    for (let i = 0; i < 30; i++) socket.send(subscribe);
    const deadline = Date.now() + 5_000;
    const answers = () => replies.filter((r) => r.type === 'subscribed' || r.type === 'error');
    while (answers().length < 30 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const served = replies.filter((r) => r.type === 'subscribed').length;
    // The burst (20), plus what refilled meanwhile (2 per second).
    expect(served).toBeGreaterThanOrEqual(20);
    expect(served).toBeLessThanOrEqual(22);
    expect(replies.filter((r) => r.error === 'Too many messages: slow down')).toHaveLength(
      30 - served,
    );
    const closing = serverClose(socket);
    for (let i = 0; i < 60; i++) socket.send(subscribe);
    expect(await closing).toEqual({ code: 4429, reason: 'Too many messages' });
  });
});

describe('refused upgrades are failed authentication', () => {
  it('an address that sends too many bad credentials gets 429 before any lookup, even with a valid one', async () => {
    // Earlier tests of this file sent a few bad credentials from this address too.
    let refusals = 0;
    let outcome: Outcome = { status: 401, body: null };
    while (outcome.status === 401 && refusals <= FAILED_AUTH_LIMIT) {
      outcome = await connect(second, `?token=${generateApiKey().apiKey}`);
      if (outcome.status === 401) refusals++;
    }
    expect(outcome).toEqual({
      status: 429,
      body: { error: 'Rate limit exceeded. Please try again later.' },
    });
    expect(refusals).toBeGreaterThan(FAILED_AUTH_LIMIT - 5);
    const { user } = await makeUser('PRO');
    // A credential this address has never used: it would need a lookup, and gets none.
    const blocked = await connect(
      first,
      `?token=${signToken(user, { secret: JWT_SECRET }, new Date()).token}`,
    );
    expect(blocked).toEqual({
      status: 429,
      body: { error: 'Rate limit exceeded. Please try again later.' },
    });
  });
});
