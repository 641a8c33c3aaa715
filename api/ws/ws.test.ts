import { createServer, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
  connect as tcpConnect,
} from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createEventPublisher, type EventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace, waitForRedis } from '../../infra/redis.ts';
import { type ServiceEvent, tokenCreatedData, tokenUpdatedData } from '../../src/events/types.ts';
import { testAppDeps } from '../../test/support/api.ts';
import { alertData, storedToken } from '../../test/support/events.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createApp } from '../app.ts';
import * as S from '../schemas.ts';
import { type Broadcaster, createBroadcaster } from './broadcaster.ts';

/** The WebSocket broadcaster (docs/websocket.md) on a real HTTP server, real Redis stream and `ws` clients. */

const KNOWN_CHAINS = new Set([1, 56, 137, 42161, 8453, 31337]);
const STREAM_ID = /^\d+-\d+$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Message {
  type: string;
  id?: string;
  ts?: string;
  data?: Record<string, unknown> & {
    chain_id?: number;
    contract_address?: string;
    current_risk_score?: number;
  };
  [key: string]: unknown;
}

/** A `ws` client that records every message; `next` hands them out in arrival order. */
class TestClient {
  readonly socket: WebSocket;
  readonly received: Message[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private cursor = 0;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('error', () => {});
    this.socket.on('message', (raw) => this.received.push(JSON.parse(raw.toString()) as Message));
    this.closed = new Promise((resolve) =>
      this.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState === WebSocket.OPEN) return resolve();
      this.socket.once('open', () => resolve());
      this.socket.once('close', (code) => reject(new Error(`closed before open (${code})`)));
    });
  }

  async next(timeoutMs = 5_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length <= this.cursor) {
      if (Date.now() > deadline)
        throw new Error(
          `no message within ${timeoutMs} ms (had ${JSON.stringify(this.received.slice(-3))})`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
    return this.received[this.cursor++]!;
  }

  /** The next message, which must be of this type. */
  async expectNext(type: string, timeoutMs?: number): Promise<Message> {
    const message = await this.next(timeoutMs);
    expect(message.type).toBe(type);
    return message;
  }

  /** Nothing more arrives within `ms`. */
  async expectQuiet(ms = 300): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    expect(this.received.slice(this.cursor)).toEqual([]);
  }

  send(message: unknown) {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }
}

interface Stack {
  server: Server;
  broadcaster: Broadcaster;
  publisher: EventPublisher;
  wsUrl: string;
  tailRedis: ReturnType<typeof createRedis>;
  closed: boolean;
}

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let redis: ReturnType<typeof createRedis>;
let main: Stack;
const stacks: Stack[] = [];
const openClients: TestClient[] = [];
let serial = 0;

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Events as the workers build them; `extra` adds test-only fields (labels, padding) on top. */
function token(chainId: number) {
  serial += 1;
  return {
    ...storedToken(addr(0x100000 + serial), chainId),
    name: `Token ${serial}`,
    symbol: `T${serial}`,
    creationBlockNumber: 1000 + serial,
  };
}
const created = (chainId: number, extra: Record<string, unknown> = {}): ServiceEvent =>
  ({
    type: 'token.created',
    data: { ...tokenCreatedData(token(chainId)), ...extra },
  }) as ServiceEvent;
const updated = (chainId: number, extra: Record<string, unknown> = {}): ServiceEvent => {
  const previous = {
    current_risk_score: null,
    current_risk_level: null,
    current_liquidity_usd: null,
    price_usd: null,
  };
  return {
    type: 'token.updated',
    data: {
      ...tokenUpdatedData(token(chainId), { source: 'risk', changes: ['risk'], previous }),
      ...extra,
    },
  } as ServiceEvent;
};

async function startStack(name: string): Promise<Stack> {
  const app = createApp(
    testAppDeps({ db: handle.db, redis, prefix: testRedis.prefix, knownChainIds: KNOWN_CHAINS }),
  );
  const server = createServer(app);
  const tailRedis = createRedis(testRedis.url, 'worker');
  const streamKey = keySpace(`${testRedis.prefix}:${name}`).events;
  const broadcaster = createBroadcaster({
    server,
    redis,
    tailRedis,
    streamKey,
    logger: silentLogger,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const stack: Stack = {
    server,
    broadcaster,
    publisher: createEventPublisher(redis, streamKey),
    wsUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`,
    tailRedis,
    closed: false,
  };
  stacks.push(stack);
  // The stream reader starts asynchronously: wait until a published event reaches a client.
  const probe = await connect(stack);
  await eventually(
    async () => {
      await stack.publisher.publish({
        type: 'alert',
        data: alertData(addr(1), 'warmup', 'warmup', {}, 31337),
      });
      await new Promise((r) => setTimeout(r, 50));
      return probe.received.some((m) => m.type === 'alert') ? true : undefined;
    },
    10_000,
    'the broadcaster to follow the stream',
  );
  probe.socket.close();
  await probe.closed;
  await eventually(
    async () => (stack.broadcaster.clientCount() === 0 ? true : undefined),
    5_000,
    'the probe to leave',
  );
  return stack;
}

async function stopStack(stack: Stack) {
  if (!stack.closed) {
    stack.closed = true;
    await stack.broadcaster.close();
  }
  stack.server.closeAllConnections();
  await new Promise<void>((resolve) => stack.server.close(() => resolve()));
  stack.tailRedis.disconnect();
}

/** Connects and consumes the welcome message. */
async function connect(stack: Stack, query = ''): Promise<TestClient> {
  const client = new TestClient(`${stack.wsUrl}${query}`);
  openClients.push(client);
  await client.opened();
  const welcome = await client.expectNext('welcome');
  expect(welcome.ts).toMatch(ISO_8601);
  return client;
}

/** The HTTP answer to an upgrade that the server refuses. */
function refusedUpgrade(
  url: string,
): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('error', (error) => reject(error));
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('unexpected-response', (request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body });
        request.destroy();
      });
    });
  });
}

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 2 });
  redis = createRedis(testRedis.url, 'commands');
  await waitForRedis(redis);
  main = await startStack('main');
});

afterEach(async () => {
  for (const client of openClients.splice(0)) client.socket.terminate();
  if (main && !main.closed)
    await eventually(
      async () => (main.broadcaster.clientCount() === 0 ? true : undefined),
      5_000,
      'clients to leave',
    );
});

afterAll(async () => {
  for (const stack of stacks) await stopStack(stack).catch(() => {});
  redis?.disconnect();
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('delivery', () => {
  it('sends a welcome, then a published token.created as {id, type, ts, data}', async () => {
    const client = await connect(main);
    expect(main.broadcaster.clientCount()).toBe(1);
    const event = created(1);
    const id = await main.publisher.publish(event);
    const message = await client.expectNext('token.created');
    expect(Object.keys(message).sort()).toEqual(['data', 'id', 'ts', 'type']);
    expect(message.id).toMatch(STREAM_ID);
    expect(message.id).toBe(id);
    expect(message.ts).toMatch(ISO_8601);
    expect(Math.abs(Date.parse(message.ts!) - Date.now())).toBeLessThan(60_000);
    expect(message.data).toEqual(event.data);
    await client.expectQuiet(100);
  });

  it("every event kind arrives in the documented shape, with the HTTP token object's names", async () => {
    const client = await connect(main);
    const address = addr(0xabc);
    const events: ServiceEvent[] = [
      created(1),
      updated(56),
      {
        type: 'alert',
        data: alertData(address, 'honeypot', 'honeypot detected', { details: { risk_score: 97 } }),
      },
      { type: 'token.removed', data: { contract_address: address, chain_id: 1, reason: 'reorg' } },
    ];
    for (const event of events) await main.publisher.publish(event);
    for (const event of events) {
      const message = await client.expectNext(event.type);
      expect(S.eventMessage.safeParse(message).error?.issues ?? []).toEqual([]);
      expect(message.data).toEqual(event.data);
    }
  });

  it('fans every event out to every client, in stream order', async () => {
    const clients = await Promise.all([connect(main), connect(main), connect(main)]);
    const ids: string[] = [];
    for (const chainId of [1, 56, 137, 8453])
      ids.push(await main.publisher.publish(created(chainId)));
    for (const client of clients) {
      const got: string[] = [];
      for (let i = 0; i < ids.length; i += 1)
        got.push((await client.expectNext('token.created')).id!);
      expect(got).toEqual(ids);
    }
  });
});

describe('client messages', () => {
  it('subscribe to chain_ids: acknowledged, then only those chains arrive', async () => {
    const client = await connect(main);
    client.send({ type: 'subscribe', chain_ids: [56] });
    const ack = await client.expectNext('subscribed');
    expect(ack.chain_ids).toEqual([56]);
    await main.publisher.publish(created(1));
    const wanted = created(56);
    await main.publisher.publish(wanted);
    await main.publisher.publish(updated(137));
    const first = await client.expectNext('token.created');
    expect(first.data!.chain_id).toBe(56);
    expect(first.data!.contract_address).toBe(wanted.data.contract_address);
    await client.expectQuiet();
  });

  it('a new subscribe replaces the previous filter', async () => {
    const client = await connect(main);
    client.send({ type: 'subscribe', chain_ids: [56] });
    await client.expectNext('subscribed');
    client.send({ type: 'subscribe', chain_ids: [1] });
    await client.expectNext('subscribed');
    await main.publisher.publish(created(56));
    await main.publisher.publish(created(1));
    expect((await client.expectNext('token.created')).data!.chain_id).toBe(1);
    await client.expectQuiet();
  });

  it('min_risk_score: a token.updated below it is filtered, one above passes', async () => {
    const client = await connect(main);
    client.send({ type: 'subscribe', min_risk_score: 50 });
    const ack = await client.expectNext('subscribed');
    expect(ack.min_risk_score).toBe(50);
    await main.publisher.publish(updated(1, { current_risk_score: 10 }));
    await main.publisher.publish(updated(1, { current_risk_score: 80 }));
    const first = await client.expectNext('token.updated');
    expect(first.data!.current_risk_score).toBe(80);
    // A token.created carries no score yet: it is not known to be low, so it passes.
    await main.publisher.publish(updated(1, { current_risk_score: 49 }));
    const fresh = created(8453);
    await main.publisher.publish(fresh);
    const second = await client.expectNext('token.created');
    expect(second.data!.contract_address).toBe(fresh.data.contract_address);
    await client.expectQuiet();
  });

  it('answers ping with pong', async () => {
    const client = await connect(main);
    client.send({ type: 'ping' });
    const pong = await client.expectNext('pong');
    expect(pong.ts).toMatch(ISO_8601);
  });

  it('answers malformed JSON and invalid messages with an error and stays open', async () => {
    const client = await connect(main);
    client.send('{"type": "subscribe", ');
    const error = await client.expectNext('error');
    expect(error.error).toEqual(expect.any(String));
    client.send({ type: 'subscribe', chain_ids: 'all' });
    await client.expectNext('error');
    client.send({ type: 'unsubscribe-everything' });
    await client.expectNext('error');
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.send({ type: 'ping' });
    await client.expectNext('pong');
    const id = await main.publisher.publish(created(1));
    expect((await client.expectNext('token.created')).id).toBe(id);
  });

  it('closes a connection that sends a message over 4 KiB with 1009', async () => {
    const client = await connect(main);
    client.send({ type: 'ping', padding: 'x'.repeat(4_096) });
    expect((await client.closed).code).toBe(1009);
  });
});

describe('resumption with ?since=', () => {
  it('replays what was missed (B, C, not A), then continues live without duplicates', async () => {
    const first = await connect(main);
    const idA = await main.publisher.publish(created(1, { label: 'A' }));
    expect((await first.expectNext('token.created')).id).toBe(idA);
    first.socket.close();
    await first.closed;
    await eventually(
      async () => (main.broadcaster.clientCount() === 0 ? true : undefined),
      5_000,
      'the client to leave',
    );

    const idB = await main.publisher.publish(created(56, { label: 'B' }));
    const idC = await main.publisher.publish(updated(137, { label: 'C' }));

    const resumed = await connect(main, `?since=${idA}`);
    // Published while the backlog may still be in flight: must come once, after C.
    const idD = await main.publisher.publish(created(1, { label: 'D' }));
    const idE = await main.publisher.publish(created(1, { label: 'E' }));

    const got: Message[] = [];
    for (let i = 0; i < 4; i += 1) got.push(await resumed.next());
    expect(got.map((m) => m.id)).toEqual([idB, idC, idD, idE]);
    expect(got.map((m) => m.data!.label)).toEqual(['B', 'C', 'D', 'E']);
    expect(got.map((m) => m.type)).toEqual([
      'token.created',
      'token.updated',
      'token.created',
      'token.created',
    ]);

    const idF = await main.publisher.publish(created(1, { label: 'F' }));
    expect((await resumed.next()).id).toBe(idF);
    await resumed.expectQuiet();
  });

  it('replays a backlog longer than one page, in order, without gaps', async () => {
    const idStart = await main.publisher.publish(created(1, { label: 'start' }));
    const missed: string[] = [];
    for (let i = 0; i < 2_500; i += 1)
      missed.push(await main.publisher.publish(created(1, { label: `m${i}` })));
    const resumed = await connect(main, `?since=${idStart}`);
    const got: string[] = [];
    while (got.length < missed.length) got.push(String((await resumed.next()).id));
    expect(got).toEqual(missed);
    resumed.socket.close();
  });

  it('with the latest id, replays nothing and continues live', async () => {
    const idA = await main.publisher.publish(created(1));
    const client = await connect(main, `?since=${idA}`);
    await client.expectQuiet(200);
    const idB = await main.publisher.publish(created(1));
    expect((await client.expectNext('token.created')).id).toBe(idB);
    await client.expectQuiet();
  });

  it.each([['garbage'], [''], ['123'], ['1-2-3'], ['1700000000000-0;drop']])(
    'refuses ?since=%s with HTTP 400 JSON',
    async (since) => {
      const refused = await refusedUpgrade(`${main.wsUrl}?since=${encodeURIComponent(since)}`);
      expect(refused.status).toBe(400);
      expect(refused.type).toMatch(/^application\/json/);
      expect(JSON.parse(refused.body)).toEqual({ error: expect.stringContaining('since') });
      expect(main.broadcaster.clientCount()).toBe(0);
    },
  );

  it('refuses an upgrade on another path instead of leaving it hanging', async () => {
    const started = Date.now();
    const refused = await refusedUpgrade(main.wsUrl.replace(/\/ws$/, '/not-ws'));
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual({ error: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/**
 * A TCP relay in front of Redis that can hold back what the client sends once it has sent its first
 * XREAD: lets a test append an event exactly between two blocking reads of the stream follower.
 */
async function startHoldingRelay(
  target: URL,
): Promise<{ url: string; held: () => number; release: () => void; close: () => Promise<void> }> {
  const held: (() => void)[] = [];
  let xreads = 0;
  let releasing = false;
  const sockets = new Set<Socket>();
  const relay: TcpServer = createTcpServer((inbound) => {
    const outbound = tcpConnect(Number(target.port || 6379), target.hostname);
    sockets.add(inbound).add(outbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    outbound.pipe(inbound);
    inbound.on('data', (chunk: Buffer) => {
      if (!releasing && xreads >= 1) {
        held.push(() => outbound.write(chunk));
        return;
      }
      if (/xread/i.test(chunk.toString('latin1'))) xreads += 1;
      outbound.write(chunk);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    held: () => held.length,
    release: () => {
      releasing = true;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

describe('stream following', () => {
  it('does not skip an event appended between two blocking reads of an idle stream', async () => {
    const relay = await startHoldingRelay(new URL(testRedis.url));
    const app = createApp(
      testAppDeps({ db: handle.db, redis, prefix: testRedis.prefix, knownChainIds: KNOWN_CHAINS }),
    );
    const server = createServer(app);
    const tailRedis = createRedis(relay.url, 'worker');
    const streamKey = keySpace(`${testRedis.prefix}:idle`).events;
    const broadcaster = createBroadcaster({
      server,
      redis,
      tailRedis,
      streamKey,
      logger: silentLogger,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const stack: Stack = {
      server,
      broadcaster,
      publisher: createEventPublisher(redis, streamKey),
      wsUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`,
      tailRedis,
      closed: false,
    };
    stacks.push(stack);
    try {
      const client = await connect(stack);
      // The first blocking read times out empty (BLOCK 1 s); the follower's next read is held back.
      await eventually(
        async () => (relay.held() > 0 ? true : undefined),
        5_000,
        'the second stream read',
      );
      const id = await stack.publisher.publish(created(1, { label: 'between reads' }));
      relay.release();
      const message = await client.expectNext('token.created', 5_000);
      expect(message.id).toBe(id);
    } finally {
      stack.closed = true;
      await broadcaster.close();
      await relay.close();
    }
  });
});

describe('shutdown and slow clients', () => {
  it('closing the broadcaster closes clients with code 1001', async () => {
    const stack = await startStack('close');
    const clients = await Promise.all([connect(stack), connect(stack)]);
    expect(stack.broadcaster.clientCount()).toBe(2);
    stack.closed = true;
    await stack.broadcaster.close();
    const results = await Promise.all(clients.map((c) => c.closed));
    for (const result of results) expect(result.code).toBe(1001);
    // New upgrades are no longer taken by the broadcaster.
    await expect(connect(stack)).rejects.toThrow();
  });

  it('closing the broadcaster does not wait for a client that ignores the close frame', async () => {
    const stack = await startStack('close-stuck');
    const stuck = await connect(stack);
    const polite = await connect(stack);
    (stuck.socket as unknown as { _socket: Socket })._socket.pause();
    stack.closed = true;
    const started = Date.now();
    await stack.broadcaster.close();
    expect((await polite.closed).code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(5_000);
    await eventually(
      async () => (stack.broadcaster.clientCount() === 0 ? true : undefined),
      5_000,
      'the stuck client to be cut',
    );
  });

  it('a client that stops reading does not hold the others up, and is closed with 1013 past 1 MiB unsent', async () => {
    const stack = await startStack('slow');
    const slow = await connect(stack);
    const fast = [await connect(stack), await connect(stack)];
    const slowWire = (slow.socket as unknown as { _socket: Socket })._socket;
    slowWire.pause();
    const padding = 'x'.repeat(256 * 1024);
    const ids: string[] = [];
    // Each event reaches both readers before the next one is published, while the stuck client's
    // unsent bytes pile up: first in the kernel's socket buffers, then past the server's 1 MiB.
    while (stack.broadcaster.clientCount() === 3 && ids.length < 400) {
      const id = await stack.publisher.publish(updated(1, { padding }));
      ids.push(id);
      for (const client of fast) expect((await client.next(10_000)).id).toBe(id);
    }
    expect(stack.broadcaster.clientCount()).toBe(2);
    // Reading again, it gets what was queued for it, then the close frame telling why.
    slowWire.resume();
    expect(await slow.closed).toEqual({ code: 1013, reason: 'Client too slow' });
    const got = slow.received.filter((m) => m.type === 'token.updated').map((m) => m.id);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(ids.length);
    expect(got).toEqual(ids.slice(0, got.length));
    const after = await stack.publisher.publish(created(1, { label: 'after' }));
    for (const client of fast) {
      expect((await client.next(10_000)).id).toBe(after);
      expect(client.socket.readyState).toBe(WebSocket.OPEN);
    }
  });
});
