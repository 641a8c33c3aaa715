import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { EventMessage } from '../../src/events/types.ts';
import type { Fanout, FanoutMember, Subscription } from './fanout.ts';
import type { SessionState, WebSocketAccess } from './session.ts';

/**
 * The connected clients of one broadcaster and the ways they leave (docs/websocket.md): closed
 * with a code, dropped as too slow, or forgotten once their socket is gone. Leaving frees the
 * fan-out place and the connection slot exactly once.
 */

export const CLOSE_TOO_SLOW = 1013;
/** A client that ignores our close frame is cut this long after it. */
const CLOSE_GRACE_MS = 1_000;
/**
 * A slow client's close frame waits behind up to MAX_UNSENT_BYTES it has not read: it is given
 * this long to read them and learn why (1013) before the connection is cut.
 */
const SLOW_CLOSE_GRACE_MS = 5_000;

export interface Client extends SessionState {
  socket: WebSocket;
  subscription: Subscription;
  /** Answered the last ping (api/ws/heartbeat.ts). */
  alive: boolean;
  /** Live events held back while the client's `since` backlog is being sent. */
  pending?: EventMessage[];
  /** Its place in the fan-out (api/ws/fanout.ts), joined once it takes live events. */
  member?: FanoutMember;
}

export interface ClientRegistry {
  readonly all: ReadonlySet<Client>;
  /** Clients replaying a `since` backlog: they hold live events instead of taking them. */
  readonly replaying: ReadonlySet<Client>;
  add(client: Client, replaying: boolean): void;
  has(client: Client): boolean;
  /** From now on the client takes live events through the fan-out, with its current filter. */
  goLive(client: Client): void;
  /** The socket is gone (or being cut): stop serving it and free its slot. */
  forget(client: Client): void;
  /** Closes with a code and reason the client can act on; cut if it ignores the close frame. */
  close(client: Client, code: number, reason: string): void;
  /** Sends nothing more; the close frame (1013) follows what is already queued. */
  dropSlow(client: Client): void;
}

export function createClientRegistry(deps: {
  fanout: Fanout;
  access?: WebSocketAccess;
  log: Logger;
}): ClientRegistry {
  const { fanout, access, log } = deps;
  const all = new Set<Client>();
  const replaying = new Set<Client>();

  const forget = (client: Client) => {
    if (!all.delete(client)) return;
    replaying.delete(client);
    if (client.member) fanout.leave(client.member);
    clearTimeout(client.expiryTimer);
    if (access && client.userId !== undefined && client.slotId) {
      void access.slots
        .release(client.userId, client.slotId)
        .catch((error: Error) => log.warn({ err: error.message }, 'slot release failed'));
    }
  };

  const closeWithin = (client: Client, code: number, reason: string, graceMs: number) => {
    if (!all.has(client)) return;
    client.socket.close(code, reason);
    forget(client);
    setTimeout(() => client.socket.terminate(), graceMs).unref();
  };

  return {
    all,
    replaying,
    add(client, isReplaying) {
      all.add(client);
      if (isReplaying) replaying.add(client);
    },
    has: (client) => all.has(client),
    goLive(client) {
      replaying.delete(client);
      if (client.member && all.has(client)) fanout.join(client.member, client.subscription);
    },
    forget,
    close(client, code, reason) {
      if (all.has(client)) log.info({ user: client.userId, code, reason }, 'websocket closed');
      closeWithin(client, code, reason, CLOSE_GRACE_MS);
    },
    dropSlow(client) {
      if (all.has(client)) log.info({ user: client.userId }, 'websocket client too slow');
      closeWithin(client, CLOSE_TOO_SLOW, 'Client too slow', SLOW_CLOSE_GRACE_MS);
    },
  };
}
