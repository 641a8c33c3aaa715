import { connect as connectTcp, type Socket } from 'node:net';

/**
 * A WebSocket client process of the websocket suite (bench/suites/websocket.ts). It holds many
 * connections and must stay cheap, so that the API process, not the clients, is what is measured:
 * raw TCP sockets that do the RFC 6455 handshake themselves, split the server's frames and read
 * of each message only the two fields the suite needs (`"phase":"…"` and `"sent_at":<ms>`), with
 * one clock reading per chunk received. Steady-phase latencies go into a 1 ms histogram; for the
 * burst it keeps, per connection, when (epoch ms) its last burst event arrived. Pings are answered (the
 * server closes connections that do not). Talks to the suite over the IPC channel: a start
 * message (url, credentials) → connect, 'report' → counts, 'close' → exit.
 */

const MAX_MS = 120_000;
const CONNECT_CONCURRENCY = 50;
const OPCODE_TEXT = 0x1;
const OPCODE_PING = 0x9;
const OPCODE_PONG = 0xa;
/** Client frames must be masked; an all-zero key leaves the payload as it is. */
const MASK_BIT = 0x80;
const PHASE_MARKER = Buffer.from('"phase":"');
const SENT_AT_MARKER = Buffer.from('"sent_at":');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** What to connect to, sent by the suite as the first IPC message (too long for argv). */
interface Start {
  type: 'start';
  url: string;
  credentials: string[];
}

let target = new URL('ws://localhost');
let credentials: string[] = [];
const histogram = new Uint32Array(MAX_MS + 1);
let steady = 0;
let burst = 0;
let lastBurst = new Float64Array(0);
const sockets: Socket[] = [];

/** The integer written at `at` (the digits of `sent_at`). */
function readInteger(buffer: Buffer, at: number, end: number): number {
  let value = 0;
  for (let i = at; i < end; i++) {
    const c = buffer[i]!;
    if (c < DIGIT_0 || c > DIGIT_9) break;
    value = value * 10 + (c - DIGIT_0);
  }
  return value;
}

/** Counts one text message (payload in buffer[start, end)) received at `now`. */
function onText(index: number, buffer: Buffer, start: number, end: number, now: number) {
  const phaseAt = buffer.indexOf(PHASE_MARKER, start);
  if (phaseAt < 0 || phaseAt >= end) return; // welcome, subscribed, pong
  const sentAtIndex = buffer.indexOf(SENT_AT_MARKER, phaseAt);
  if (sentAtIndex < 0 || sentAtIndex >= end) return;
  const sentAt = readInteger(buffer, sentAtIndex + SENT_AT_MARKER.length, end);
  const phase = buffer[phaseAt + PHASE_MARKER.length];
  if (phase === 0x73 /* s: steady */) {
    histogram[Math.min(MAX_MS, Math.max(0, now - sentAt))]!++;
    steady++;
  } else if (phase === 0x62 /* b: burst */) {
    // When the connection's latest burst event arrived; the suite subtracts the burst's start.
    burst++;
    lastBurst[index] = now;
  }
}

function pong(socket: Socket, payload: Buffer) {
  const header = Buffer.from([0x80 | OPCODE_PONG, MASK_BIT | payload.length, 0, 0, 0, 0]);
  socket.write(Buffer.concat([header, payload]));
}

/**
 * Splits the server's (unmasked) frames; bytes of an incomplete frame wait for the next chunk.
 * Returns the unconsumed tail.
 */
function readFrames(index: number, socket: Socket, buffer: Buffer, now: number): Buffer | null {
  let at = 0;
  while (buffer.length - at >= 2) {
    const opcode = buffer[at]! & 0x0f;
    let length = buffer[at + 1]! & 0x7f;
    let header = 2;
    if (length === 126) {
      if (buffer.length - at < 4) break;
      length = buffer.readUInt16BE(at + 2);
      header = 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) break;
      length = Number(buffer.readBigUInt64BE(at + 2));
      header = 10;
    }
    if (buffer.length - at < header + length) break;
    const start = at + header;
    if (opcode === OPCODE_TEXT) onText(index, buffer, start, start + length, now);
    else if (opcode === OPCODE_PING) pong(socket, buffer.subarray(start, start + length));
    at = start + length;
  }
  return at === buffer.length ? null : Buffer.from(buffer.subarray(at));
}

function connect(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    let upgraded = false;
    let rest: Buffer | null = null;
    socket.once('connect', () => {
      socket.write(
        `GET ${target.pathname}?token=${encodeURIComponent(credentials[index]!)} HTTP/1.1\r\n` +
          `Host: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${Buffer.from(`bench-${index}`.padEnd(16, '.')).toString('base64')}\r\n` +
          'Sec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    socket.on('data', (chunk: Buffer) => {
      const now = Date.now();
      let buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          rest = buffer;
          return;
        }
        const status = buffer.subarray(0, buffer.indexOf('\r\n')).toString('latin1');
        if (!status.includes(' 101 ')) {
          socket.destroy();
          return reject(new Error(`connection ${index} refused: ${status}`));
        }
        upgraded = true;
        sockets[index] = socket;
        resolve();
        buffer = buffer.subarray(end + 4);
      }
      rest = readFrames(index, socket, buffer, now);
    });
    socket.once('error', reject);
  });
}

async function main(start: Start) {
  target = new URL(start.url);
  credentials = start.credentials;
  lastBurst = new Float64Array(credentials.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECT_CONCURRENCY }, async () => {
      while (next < credentials.length) await connect(next++);
    }),
  );
  process.send!({ type: 'connected', count: sockets.length });
}

process.on('message', (command: string | Start) => {
  if (typeof command === 'object' && command.type === 'start') {
    main(command).catch((error: Error) => {
      process.send!({ type: 'error', message: error.message });
      process.exit(1);
    });
  } else if (command === 'report') {
    const buckets: [number, number][] = [];
    histogram.forEach((count, ms) => {
      if (count > 0) buckets.push([ms, count]);
    });
    process.send!({ type: 'report', steady, burst, buckets, lastBurst: [...lastBurst] });
  } else if (command === 'close') {
    for (const socket of sockets) socket?.destroy();
    process.exit(0);
  }
});
