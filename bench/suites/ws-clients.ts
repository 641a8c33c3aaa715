import WebSocket from 'ws';

/**
 * A WebSocket client process of the websocket suite (bench/suites/websocket.ts): opens one
 * connection per credential given, then counts what arrives. Steady-phase latencies go into a
 * 1 ms histogram; for the burst it keeps, per connection, when its last burst event arrived.
 * Talks to the suite over the IPC channel: 'report' → counts, 'close' → exit.
 */

const MAX_MS = 120_000;
const CONNECT_CONCURRENCY = 50;
const { url, credentials } = JSON.parse(process.argv[2]!) as { url: string; credentials: string[] };

const histogram = new Uint32Array(MAX_MS + 1);
let steady = 0;
let burst = 0;
const lastBurst = new Float64Array(credentials.length);
const sockets: WebSocket[] = [];

function onMessage(index: number, raw: WebSocket.RawData) {
  const text = raw.toString();
  if (!text.includes('"sent_at"')) return; // welcome, subscribed, pong
  const now = Date.now();
  const data = (
    JSON.parse(text) as { data: { phase: string; sent_at: number; burst_started_at?: number } }
  ).data;
  if (data.phase === 'steady') {
    histogram[Math.min(MAX_MS, Math.max(0, now - data.sent_at))]!++;
    steady++;
  } else if (data.phase === 'burst') {
    burst++;
    lastBurst[index] = now - (data.burst_started_at ?? data.sent_at);
  }
}

async function connect(index: number): Promise<void> {
  const socket = new WebSocket(`${url}?token=${credentials[index]}`);
  socket.on('message', (raw) => onMessage(index, raw));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`connection ${index} refused: HTTP ${res.statusCode}`)),
    );
    socket.once('error', reject);
  });
  sockets[index] = socket;
}

async function main() {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECT_CONCURRENCY }, async () => {
      while (next < credentials.length) await connect(next++);
    }),
  );
  process.send!({ type: 'connected', count: sockets.length });
}

process.on('message', (command: string) => {
  if (command === 'report') {
    const buckets: [number, number][] = [];
    histogram.forEach((count, ms) => {
      if (count > 0) buckets.push([ms, count]);
    });
    process.send!({ type: 'report', steady, burst, buckets, lastBurst: [...lastBurst] });
  } else if (command === 'close') {
    for (const socket of sockets) socket?.terminate();
    process.exit(0);
  }
});

main().catch((error: Error) => {
  process.send!({ type: 'error', message: error.message });
  process.exit(1);
});
