import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { type EventTail, isStreamId, readEventsSince, tailEvents } from '../infra/events.ts';
import type { EventMessage } from '../src/events/types.ts';
import { createFanout, type FanoutMember, matches, type Subscription } from './ws-fanout.ts';
import {
  admit,
  CLOSE_LIMIT,
  createSessionGuard,
  type Identity,
  newSessionState,
  offeredProtocols,
  type SessionGuard,
  type SessionState,
  spendMessage,
  type WebSocketAccess,
} from './ws-session.ts';

/**
 * The WebSocket broadcaster (docs/websocket.md): one stream reader per API instance, fanned out to its
 * clients, each with its own subscription filter. Slow clients are cut off rather than buffered.
 */

export const WS_PATH = '/ws';
const HEARTBEAT_INTERVAL_MS = 30_000;
/** A client whose unsent data exceeds this is not keeping up. */
const MAX_BUFFERED_BYTES = 1 << 20;
const BACKLOG_PAGE_SIZE = 1_000;
/** Live events held for a client still replaying its backlog. */
const MAX_HELD_EVENTS = 50_000;
const BACKLOG_DRAIN_TIMEOUT_MS = 10_000;
const MAX_CLIENT_MESSAGE_BYTES = 4_096;
/** A client that ignores our close frame is cut this long after it. */
const CLOSE_GRACE_MS = 1_000;

/** Reason phrases of the statuses an upgrade is refused with. */
const STATUS_REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
};

const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
const CLOSE_TOO_SLOW = 1013;
/**
 * Browsers cannot set headers on a WebSocket, and a credential in the URL ends up in logs and
 * history: the web app offers `token-monitor` plus `bearer.<credential>` as subprotocols instead
 * (ws answers with the first one offered, `token-monitor`). Such a client cannot read an HTTP
 * refusal either, so it is told with a close frame: code 4000 + the HTTP status, reason the error.
 */
export const WEB_PROTOCOL = 'token-monitor';
const CLOSE_REFUSED_BASE = 4000;

export {
  CLOSE_LIMIT,
  CLOSE_PLAN,
  CLOSE_UNAUTHORIZED,
  type WebSocketAccess,
  type WsPrincipal,
} from './ws-session.ts';

const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribe'),
    chain_ids: z.array(z.number().int().positive()).max(50).optional(),
    watchlist_only: z.boolean().optional(),
    min_risk_score: z.number().min(0).max(100).optional(),
  }),
  z.object({ type: z.literal('ping') }),
]);

type ClientMessage = z.infer<typeof clientMessage>;
type SubscribeMessage = Extract<ClientMessage, { type: 'subscribe' }>;

/** A client's message, or the error to answer it with. */
function parseClientMessage(raw: {
  toString(): string;
}): { message: ClientMessage } | { error: string } {
  try {
    const result = clientMessage.safeParse(JSON.parse(raw.toString()));
    if (!result.success) return { error: result.error.issues[0]?.message ?? 'invalid message' };
    return { message: result.data };
  } catch {
    return { error: 'message: malformed JSON' };
  }
}

/** The filter a subscribe message asks for; the watchlist, when asked for, is added once read. */
function subscriptionFrom(message: SubscribeMessage): Subscription {
  return {
    chainIds:
      message.chain_ids && message.chain_ids.length > 0 ? new Set(message.chain_ids) : undefined,
    minRiskScore: message.min_risk_score,
  };
}

/** The confirmation of a subscribe message, echoing the filter now in force. */
function subscribedReply(message: SubscribeMessage, watchlistOnly: boolean): string {
  return JSON.stringify({
    type: 'subscribed',
    chain_ids: message.chain_ids ?? [],
    min_risk_score: message.min_risk_score ?? null,
    watchlist_only: watchlistOnly,
  });
}

interface Client extends SessionState {
  socket: WebSocket;
  subscription: Subscription;
  alive: boolean;
  /** Live events held back while the client's `since` backlog is being sent. */
  pending?: EventMessage[];
  /** Its place in the fan-out (api/ws-fanout.ts), joined once it takes live events. */
  member?: FanoutMember;
}

export interface Broadcaster {
  clientCount(): number;
  close(): Promise<void>;
}

export { matches };

export function createBroadcaster(deps: {
  server: Server;
  redis: Redis;
  /** A dedicated connection for the blocking stream read. */
  tailRedis: Redis;
  streamKey: string;
  logger: Logger;
  /** Authentication, plan gating and connection limits; without it every client is admitted (tests of the fan-out only). */
  access?: WebSocketAccess;
  /** How often open connections are judged again (tests shorten it). */
  recheckIntervalMs?: number;
}): Broadcaster {
  const log = deps.logger.child({ role: 'ws' });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    // Never echo the credential subprotocol back: only the app's own name is selected.
    handleProtocols: (protocols) => (protocols.has(WEB_PROTOCOL) ? WEB_PROTOCOL : false),
  });
  const clients = new Set<Client>();

  const dropSlowClient = (client: Client) => {
    client.socket.close(CLOSE_TOO_SLOW, 'Client too slow');
    client.socket.terminate();
    forget(client);
  };

  const send = (client: Client, message: string) => {
    if (client.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      dropSlowClient(client);
      return;
    }
    client.socket.send(message);
  };

  /** Backlog replay respects backpressure: it waits for the client to read before the next page. */
  const drained = async (client: Client): Promise<boolean> => {
    const deadline = Date.now() + BACKLOG_DRAIN_TIMEOUT_MS;
    while (client.socket.bufferedAmount > MAX_BUFFERED_BYTES / 2) {
      if (Date.now() > deadline || !clients.has(client)) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  };

  // Live events go out in batches (one stream read's worth): serialized once per event, sent
  // once per subscription class; clients still replaying a backlog hold them instead.
  const fanout = createFanout();
  const replaying = new Set<Client>();
  let batch: EventMessage[] = [];
  const flush = () => {
    const events = batch;
    batch = [];
    fanout.publish(events);
    for (const client of replaying) client.pending?.push(...events);
  };
  const tail: EventTail = tailEvents(
    deps.tailRedis,
    deps.streamKey,
    (event) => {
      if (batch.length === 0) queueMicrotask(flush);
      batch.push(event);
    },
    (error) => log.warn({ err: error.message }, 'event stream read failed'),
  );

  /** From now on the client takes live events through the fan-out, with its current filter. */
  const goLive = (client: Client) => {
    replaying.delete(client);
    if (client.member && clients.has(client)) fanout.join(client.member, client.subscription);
  };

  const forget = (client: Client) => {
    if (!clients.delete(client)) return;
    replaying.delete(client);
    if (client.member) fanout.leave(client.member);
    clearTimeout(client.expiryTimer);
    if (deps.access && client.userId !== undefined && client.slotId) {
      void deps.access.slots
        .release(client.userId, client.slotId)
        .catch((error: Error) => log.warn({ err: error.message }, 'slot release failed'));
    }
  };

  /** Closes with a code and reason the client can act on; cut if it ignores the close frame. */
  const closeClient = (client: Client, code: number, reason: string) => {
    if (!clients.has(client)) return;
    log.info({ user: client.userId, code, reason }, 'websocket closed by the server');
    client.socket.close(code, reason);
    forget(client);
    setTimeout(() => client.socket.terminate(), CLOSE_GRACE_MS).unref();
  };

  const guard: SessionGuard<Client> | undefined = deps.access
    ? createSessionGuard({
        access: deps.access,
        log,
        intervalMs: deps.recheckIntervalMs,
        clients: () => clients,
        close: closeClient,
      })
    : undefined;

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.socket.terminate();
        forget(client);
        continue;
      }
      client.alive = false;
      client.socket.ping();
      // The slot lives as long as the connection does: renewed with every heartbeat. A slot lost
      // (Redis lost its data while the user reconnected elsewhere) without room to take it again
      // closes the connection: the limit holds.
      if (deps.access && client.userId !== undefined && client.slotId) {
        void deps.access.slots.renew(client.userId, client.slotId, client.limit ?? 0).then(
          (held) => {
            if (!held) closeClient(client, CLOSE_LIMIT, 'Connection limit exceeded');
          },
          (error: Error) => log.warn({ err: error.message }, 'slot renewal failed'),
        );
      }
    }
  }, HEARTBEAT_INTERVAL_MS);

  /** Replays the stream after `since` page by page, then the live events held back meanwhile. */
  async function sendBacklog(client: Client, since: string) {
    try {
      let lastId = since;
      for (;;) {
        const page = await readEventsSince(deps.redis, deps.streamKey, lastId, BACKLOG_PAGE_SIZE);
        for (const event of page) {
          if (matches(client.subscription, event)) client.socket.send(JSON.stringify(event));
          lastId = event.id;
        }
        if (!(await drained(client))) {
          dropSlowClient(client);
          return;
        }
        if (page.length < BACKLOG_PAGE_SIZE || !clients.has(client)) break;
        // A client that falls this far behind while catching up is too slow to serve.
        if ((client.pending?.length ?? 0) > MAX_HELD_EVENTS) {
          dropSlowClient(client);
          return;
        }
      }
      const held = client.pending ?? [];
      client.pending = undefined;
      for (const event of held)
        if (compareIds(event.id, lastId) > 0 && matches(client.subscription, event))
          send(client, JSON.stringify(event));
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'backlog read failed');
      client.pending = undefined;
    }
    goLive(client);
  }

  function onConnection(
    socket: WebSocket,
    request: IncomingMessage,
    identity: Identity,
    wire: Duplex,
  ) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const since = url.searchParams.get('since');
    const { expiresAt, ...rest } = identity;
    const client: Client = {
      socket,
      subscription: {},
      alive: true,
      pending: since ? [] : undefined,
      ...newSessionState(),
      ...rest,
    };
    client.member = {
      wire: wire as Duplex & FanoutMember['wire'],
      isOpen: () => socket.readyState === socket.OPEN,
      onSlow: () => dropSlowClient(client),
    };
    clients.add(client);
    guard?.armExpiry(client, expiresAt);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('close', () => forget(client));
    socket.on('error', () => forget(client));
    socket.on('message', (raw) => {
      // Subscribe storms run queries: excess messages are refused, a client that keeps on is closed.
      const verdict = spendMessage(client);
      if (verdict === 'close') return closeClient(client, CLOSE_LIMIT, 'Too many messages');
      if (verdict === 'refuse')
        return void socket.send(
          JSON.stringify({ type: 'error', error: 'Too many messages: slow down' }),
        );
      const read = parseClientMessage(raw);
      if ('error' in read)
        return void socket.send(JSON.stringify({ type: 'error', error: read.error }));
      const parsed = read.message;
      if (parsed.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong', ts: new Date().toISOString() }));
        return;
      }
      const subscription = subscriptionFrom(parsed);
      if (parsed.watchlist_only && deps.access && client.userId !== undefined) {
        // The watchlist as it is now; a later change takes effect with the next subscribe.
        void deps.access.watchlist(client.userId).then(
          (set) => {
            client.subscription = { ...subscription, watchlist: set };
            if (!client.pending) goLive(client);
            socket.send(subscribedReply(parsed, true));
          },
          () =>
            socket.send(
              JSON.stringify({ type: 'error', error: 'watchlist: temporarily unavailable' }),
            ),
        );
        return;
      }
      client.subscription = subscription;
      if (!client.pending) goLive(client);
      socket.send(subscribedReply(parsed, parsed.watchlist_only ?? false));
    });
    socket.send(JSON.stringify({ type: 'welcome', ts: new Date().toISOString() }));
    if (since) {
      replaying.add(client);
      void sendBacklog(client, since);
    } else {
      goLive(client);
    }
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) {
      // Another upgrade handler may own it; when there is none, refuse rather than leave the socket hanging.
      if (deps.server.listenerCount('upgrade') <= 1)
        rejectUpgrade(socket, 404, { error: 'Not found' });
      return;
    }
    const since = url.searchParams.get('since');
    if (since !== null && !isStreamId(since)) {
      rejectUpgrade(socket, 400, { error: 'since: must be an event id such as 1700000000000-0' });
      return;
    }
    if (!deps.access) {
      wss.handleUpgrade(request, socket, head, (ws) => onConnection(ws, request, {}, socket));
      return;
    }
    const address =
      deps.access.clientAddress?.(request) ?? request.socket.remoteAddress ?? 'unknown';
    void admit(deps.access, request, url, address).then(
      (decision) => {
        if (decision.status !== 101) {
          if (offeredProtocols(request).includes(WEB_PROTOCOL) && !socket.destroyed) {
            wss.handleUpgrade(request, socket, head, (ws) =>
              ws.close(CLOSE_REFUSED_BASE + decision.status, decision.error),
            );
          } else {
            rejectUpgrade(socket, decision.status, { error: decision.error });
          }
          return;
        }
        if (socket.destroyed) {
          void deps.access!.slots.release(decision.userId, decision.slotId);
          return;
        }
        const { status: _status, ...identity } = decision;
        wss.handleUpgrade(request, socket, head, (ws) =>
          onConnection(ws, request, identity, socket),
        );
      },
      (error: Error) => {
        log.warn({ err: error.message }, 'websocket admission failed');
        rejectUpgrade(socket, 503, { error: 'Service temporarily unavailable' });
      },
    );
  };
  deps.server.on('upgrade', onUpgrade);

  return {
    clientCount: () => clients.size,
    async close() {
      deps.server.off('upgrade', onUpgrade);
      clearInterval(heartbeat);
      guard?.stop();
      for (const client of clients) client.socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
      // Clients that ignore the close frame are cut after a moment. Armed before waiting: wss.close
      // resolves only once every client is gone, which such a client would delay by ws's 30 s close timeout.
      setTimeout(() => {
        for (const client of clients) client.socket.terminate();
      }, 1_000).unref();
      await tail.stop();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

export function rejectUpgrade(socket: Duplex, status: number, body: object) {
  const text = JSON.stringify(body);
  const reason = STATUS_REASONS[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
