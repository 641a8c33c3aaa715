import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { textFrame } from '../../../api/ws/index.ts';
import { tailEvents } from '../../../infra/events.ts';
import { createRedis } from '../../../infra/redis.ts';
import type { EventMessage } from '../../../src/events/types.ts';

/**
 * The baseline of the websocket suite (bench/suites/websocket/index.ts): the floor of fan-out on this
 * machine. A bare Node process doing only what no WebSocket server can skip: it follows the same
 * Redis stream with the same reader, frames each event once, and writes the frame to every socket
 * (RFC 6455 handshake, no authentication, no filters, no library). The same clients measure it
 * the same way. IPC: a start message (redis url, stream key) → 'listening' with its port;
 * 'close' → exit.
 */

/** RFC 6455 §4.2.2: the accept key is the SHA-1 of the client's key and this GUID. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

interface Start {
  type: 'start';
  redisUrl: string;
  streamKey: string;
}

function start({ redisUrl, streamKey }: Start) {
  const sockets = new Set<Duplex>();
  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket: Duplex & { setNoDelay?(on: boolean): void }) => {
    const accept = createHash('sha1')
      .update(`${request.headers['sec-websocket-key']}${HANDSHAKE_GUID}`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.setNoDelay?.(true);
    socket.on('data', () => {}); // pongs and nothing else: read and ignored
    socket.on('error', () => sockets.delete(socket));
    socket.on('close', () => sockets.delete(socket));
    sockets.add(socket);
  });
  // As in the broadcaster: the events of one stream read go out as one write per socket.
  let batch: EventMessage[] = [];
  const flush = () => {
    const payload = Buffer.concat(
      batch.map((event) => textFrame(Buffer.from(JSON.stringify(event)))),
    );
    batch = [];
    for (const socket of sockets) socket.write(payload);
  };
  tailEvents(
    createRedis(redisUrl, 'worker'),
    streamKey,
    (event) => {
      if (batch.length === 0) queueMicrotask(flush);
      batch.push(event);
    },
    () => {},
  );
  server.listen(0, '127.0.0.1', () =>
    process.send!({ type: 'listening', port: (server.address() as AddressInfo).port }),
  );
}

process.on('message', (command: string | Start) => {
  if (typeof command === 'object' && command.type === 'start') start(command);
  else if (command === 'close') process.exit(0);
});
