import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { tailEvents } from '../../infra/events.ts';
import type { EventMessage } from '../../src/events/types.ts';
import { createBacklogReplay } from './backlog.ts';
import { createFanout, type Fanout, type FanoutMember, matches } from './fanout.ts';
import { staggeredSweep } from './heartbeat.ts';
import { onClientMessage } from './messages.ts';
import { type Client, type ClientRegistry, createClientRegistry } from './registry.ts';
import {
  CLOSE_LIMIT,
  createSessionGuard,
  type Identity,
  newSessionState,
  type WebSocketAccess,
} from './session.ts';
import { createUpgradeHandler, WEB_PROTOCOL } from './upgrade.ts';

/**
 * The WebSocket broadcaster (docs/websocket.md): one stream reader per API instance, fanned out
 * to its clients by subscription class (api/ws/fanout.ts). The pieces: the upgrade and admission
 * (api/ws/upgrade.ts, api/ws/session.ts), the connected clients (api/ws/registry.ts), their
 * messages (api/ws/messages.ts), `since` replay (api/ws/backlog.ts) and the heartbeat
 * (api/ws/heartbeat.ts). Slow clients are cut off rather than buffered.
 */

const MAX_CLIENT_MESSAGE_BYTES = 4_096;
/** Clients that ignore the shutdown close frame are cut this long after it. */
const SHUTDOWN_GRACE_MS = 1_000;
const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;

export { CLOSE_TOO_SLOW } from './registry.ts';
export {
  CLOSE_LIMIT,
  CLOSE_PLAN,
  CLOSE_UNAUTHORIZED,
  type WebSocketAccess,
  type WsPrincipal,
} from './session.ts';
export { rejectUpgrade, WEB_PROTOCOL, WS_PATH } from './upgrade.ts';
export { matches };

export interface Broadcaster {
  clientCount(): number;
  close(): Promise<void>;
}

export interface BroadcasterDeps {
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
}

/**
 * Live events go out in batches (one stream read's worth, flushed after the read's events are
 * decoded): serialized and framed once per event, sent once per subscription class. Clients
 * still replaying a backlog hold them instead.
 */
function followStream(
  deps: BroadcasterDeps,
  log: Logger,
  fanout: Fanout,
  registry: ClientRegistry,
) {
  let batch: EventMessage[] = [];
  const flush = () => {
    const events = batch;
    batch = [];
    fanout.publish(events);
    for (const client of registry.replaying) client.pending?.push(...events);
  };
  return tailEvents(
    deps.tailRedis,
    deps.streamKey,
    (event) => {
      if (batch.length === 0) queueMicrotask(flush);
      batch.push(event);
    },
    (error) => log.warn({ err: error.message }, 'event stream read failed'),
  );
}

/**
 * A ping for a live client, the end for one that did not answer the last. The slot lives as
 * long as the connection does: renewed with every heartbeat. A slot lost (Redis lost its data
 * while the user reconnected elsewhere) without room to take it again closes the connection.
 */
function beat(
  client: Client,
  registry: ClientRegistry,
  access: WebSocketAccess | undefined,
  log: Logger,
) {
  if (!client.alive) {
    client.socket.terminate();
    return registry.forget(client);
  }
  client.alive = false;
  client.socket.ping();
  if (!access || client.userId === undefined || !client.slotId) return;
  void access.slots.renew(client.userId, client.slotId, client.limit ?? 0).then(
    (held) => {
      if (!held) registry.close(client, CLOSE_LIMIT, 'Connection limit exceeded');
    },
    (error: Error) => log.warn({ err: error.message }, 'slot renewal failed'),
  );
}

export function createBroadcaster(deps: BroadcasterDeps): Broadcaster {
  const log = deps.logger.child({ role: 'ws' });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    // Frames are built once per event and written as they are (api/ws/fanout.ts): no compression.
    perMessageDeflate: false,
    // Never echo the credential subprotocol back: only the app's own name is selected.
    handleProtocols: (protocols) => (protocols.has(WEB_PROTOCOL) ? WEB_PROTOCOL : false),
  });
  const fanout = createFanout();
  const registry = createClientRegistry({ fanout, access: deps.access, log });
  const tail = followStream(deps, log, fanout, registry);
  const replayBacklog = createBacklogReplay({ ...deps, registry, log });
  const guard = deps.access
    ? createSessionGuard({
        access: deps.access,
        log,
        intervalMs: deps.recheckIntervalMs,
        clients: () => registry.all,
        close: registry.close,
      })
    : undefined;
  const heartbeat = staggeredSweep(registry.all, (client) =>
    beat(client, registry, deps.access, log),
  );

  const onConnection = (
    socket: WebSocket,
    request: IncomingMessage,
    identity: Identity,
    wire: Duplex,
  ) => {
    const since = new URL(request.url ?? '/', 'http://localhost').searchParams.get('since');
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
      socket,
      onSlow: () => registry.dropSlow(client),
    };
    registry.add(client, since !== null);
    guard?.armExpiry(client, expiresAt);
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => registry.forget(client));
    socket.on('error', () => registry.forget(client));
    socket.on('message', (raw) => onClientMessage(client, raw, { registry, access: deps.access }));
    socket.send(JSON.stringify({ type: 'welcome', ts: new Date().toISOString() }));
    if (since) void replayBacklog(client, since);
    else registry.goLive(client);
  };
  const onUpgrade = createUpgradeHandler({
    server: deps.server,
    wss,
    access: deps.access,
    log,
    onConnection,
  });
  deps.server.on('upgrade', onUpgrade);

  return {
    clientCount: () => registry.all.size,
    async close() {
      deps.server.off('upgrade', onUpgrade);
      heartbeat.stop();
      guard?.stop();
      for (const client of registry.all)
        client.socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
      // Clients that ignore the close frame are cut after a moment. Armed before waiting: wss.close
      // resolves only once every client is gone, which such a client would delay by ws's 30 s close timeout.
      setTimeout(() => {
        for (const client of registry.all) client.socket.terminate();
      }, SHUTDOWN_GRACE_MS).unref();
      await tail.stop();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
