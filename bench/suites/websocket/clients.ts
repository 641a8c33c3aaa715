import { connect as connectTcp, type Socket } from 'node:net';

/**
 * A WebSocket client process of the websocket suite (bench/suites/websocket/index.ts). It holds many
 * connections and must stay cheap, so that the API process, not the clients, is what is measured:
 * raw TCP sockets that do the RFC 6455 handshake themselves, split the server's frames and read
 * of each message only the two fields the suite needs (`"phase":"…"` and `"sent_at":<ms>`), with
 * one clock reading per chunk received. Reads land in one buffer the process owns (net's `onread`
 * option): no allocation and no stream machinery per read, which at 10,000 connections × 10
 * events/s was most of the clients' cost. Steady-phase latencies go into a 1 ms histogram; for
 * the burst it keeps, per connection, when (epoch ms) its last burst event arrived. Pings are
 * answered (the server closes connections that do not). Talks to the suite over the IPC channel:
 * a start message (url, credentials) → connect, 'report' → counts, 'close' → exit.
 */

const MAX_MS = 120_000;
/** One read's worth; a burst's chunks are larger than a steady event's frame. */
const READ_BUFFER_BYTES = 256 * 1024;
/** How long the process sleeps between reads of every socket with data (0: wait in epoll). */
const POLL_MS = Number(process.env.BENCH_WS_CLIENT_POLL_MS ?? 1);
/** A turn that read this much found a backlog: the next one starts without sleeping. */
const BUSY_TURN_BYTES = 256 * 1024;
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
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;

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
/** Every socket's reads land here; each is consumed before the next read (one thread). */
const READ_BUFFER = Buffer.allocUnsafe(READ_BUFFER_BYTES);
/** Bytes read since the last turn of pollInBatches. */
let bytesThisTurn = 0;

/** Whether `marker` is written in buffer[from - marker.length, from), not before `start`. */
function endsWith(buffer: Buffer, start: number, from: number, marker: Buffer): boolean {
  const at = from - marker.length;
  if (at < start) return false;
  for (let i = 0; i < marker.length; i++) if (buffer[at + i] !== marker[i]) return false;
  return true;
}

/**
 * Counts one text message (payload in buffer[start, end)) received at `now`. The publisher
 * writes the two fields last, in this order (`…"phase":"steady","sent_at":<ms>}}`), so they are
 * read backwards from the end in plain JavaScript, without a native search per message (a burst
 * is 10 million messages). Anything else (welcome, subscribed, pong) does not end so.
 */
function onText(index: number, buffer: Buffer, start: number, end: number, now: number) {
  let i = end - 1;
  while (i >= start && buffer[i] === CLOSE_BRACE) i--;
  let sentAt = 0;
  let scale = 1;
  for (; i >= start && buffer[i]! >= DIGIT_0 && buffer[i]! <= DIGIT_9; i--, scale *= 10)
    sentAt += (buffer[i]! - DIGIT_0) * scale;
  if (scale === 1 || !endsWith(buffer, start, i + 1, SENT_AT_MARKER)) return;
  // Back over `","` to the phase's opening quote, then its first letter.
  i -= SENT_AT_MARKER.length + 2;
  while (i >= start && buffer[i] !== QUOTE) i--;
  if (!endsWith(buffer, start, i + 1, PHASE_MARKER)) return;
  const phase = buffer[i + 1];
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

/** The handshake request of connection `index`. */
function handshake(index: number): string {
  return (
    `GET ${target.pathname}?token=${encodeURIComponent(credentials[index]!)} HTTP/1.1\r\n` +
    `Host: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${Buffer.from(`bench-${index}`.padEnd(16, '.')).toString('base64')}\r\n` +
    'Sec-WebSocket-Version: 13\r\n\r\n'
  );
}

function connect(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let upgraded = false;
    let rest: Buffer | null = null;
    // Called with READ_BUFFER holding `nread` new bytes: consumed (or copied) before returning.
    const take = (nread: number) => {
      const now = Date.now();
      bytesThisTurn += nread;
      const chunk = READ_BUFFER.subarray(0, nread);
      let buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          rest = Buffer.from(buffer);
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
    };
    const socket = connectTcp({
      port: Number(target.port),
      host: target.hostname,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (nread) => {
          take(nread);
          return true; // keep reading
        },
      },
    });
    socket.once('connect', () => socket.write(handshake(index)));
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
  if (POLL_MS > 0) pollInBatches();
}

/**
 * Reads in batches: between turns of the event loop the process sleeps what is left of POLL_MS,
 * then reads every socket that has data meanwhile. Waiting in epoll instead, it would be woken
 * (and the server's write would pay for waking it, across cores) for each socket the server
 * writes, one at a time. A turn that took POLL_MS or more, or read BUSY_TURN_BYTES or more (a
 * burst: more is surely waiting), goes on without sleeping. A message waits at most POLL_MS more
 * before it is read, and that wait counts in its latency.
 */
function pollInBatches() {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let awake = performance.now();
  const turn = () => {
    const rest = POLL_MS - (performance.now() - awake);
    if (rest > 0 && bytesThisTurn < BUSY_TURN_BYTES) Atomics.wait(sleeper, 0, 0, rest);
    bytesThisTurn = 0;
    awake = performance.now();
    setImmediate(turn);
  };
  setImmediate(turn);
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
