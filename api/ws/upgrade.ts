import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';
import { isStreamId } from '../../infra/events.ts';
import { admit, type Identity, offeredProtocols, type WebSocketAccess } from './session.ts';

/**
 * The HTTP upgrade to `/ws` (docs/websocket.md): path and `since` checked, then admission
 * (api/ws/session.ts); a refusal is a plain HTTP answer, or a close frame for a browser.
 */

export const WS_PATH = '/ws';
/**
 * Browsers cannot set headers on a WebSocket, and a credential in the URL ends up in logs and
 * history: the web app offers `token-monitor` plus `bearer.<credential>` as subprotocols instead
 * (ws answers with the first one offered, `token-monitor`). Such a client cannot read an HTTP
 * refusal either, so it is told with a close frame: code 4000 + the HTTP status, reason the error.
 */
export const WEB_PROTOCOL = 'token-monitor';
const CLOSE_REFUSED_BASE = 4000;

/** Reason phrases of the statuses an upgrade is refused with. */
const STATUS_REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

export function rejectUpgrade(socket: Duplex, status: number, body: object) {
  const text = JSON.stringify(body);
  const reason = STATUS_REASONS[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** An admitted connection: the WebSocket, its upgrade request, who it is and its raw socket. */
export type OnConnection = (
  socket: WebSocket,
  request: IncomingMessage,
  identity: Identity,
  wire: Duplex,
) => void;

export function createUpgradeHandler(deps: {
  server: Server;
  wss: WebSocketServer;
  access?: WebSocketAccess;
  log: Logger;
  onConnection: OnConnection;
}) {
  const { wss, access } = deps;
  const refuse = (
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    status: number,
    error: string,
  ) => {
    if (offeredProtocols(request).includes(WEB_PROTOCOL) && !socket.destroyed) {
      wss.handleUpgrade(request, socket, head, (ws) =>
        ws.close(CLOSE_REFUSED_BASE + status, error),
      );
    } else {
      rejectUpgrade(socket, status, { error });
    }
  };

  return (request: IncomingMessage, socket: Duplex, head: Buffer) => {
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
    if (!access) {
      wss.handleUpgrade(request, socket, head, (ws) => deps.onConnection(ws, request, {}, socket));
      return;
    }
    const address = access.clientAddress?.(request) ?? request.socket.remoteAddress ?? 'unknown';
    void admit(access, request, url, address).then(
      (decision) => {
        if (decision.status !== 101)
          return refuse(request, socket, head, decision.status, decision.error);
        if (socket.destroyed) return void access.slots.release(decision.userId, decision.slotId);
        const { status: _status, ...identity } = decision;
        wss.handleUpgrade(request, socket, head, (ws) =>
          deps.onConnection(ws, request, identity, socket),
        );
      },
      (error: Error) => {
        deps.log.warn({ err: error.message }, 'websocket admission failed');
        rejectUpgrade(socket, 503, { error: 'Service temporarily unavailable' });
      },
    );
  };
}
