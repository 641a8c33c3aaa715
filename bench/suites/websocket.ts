import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { STREAM_MAX_LENGTH } from '../../infra/events.ts';
import { generateApiKey, hashPassword } from '../../src/accounts/credentials.ts';
import { findFreePort } from '../../scripts/dev/anvil.ts';
import { createTestDatabase, createTestRedis, eventually } from '../../test/support/services.ts';
import { percentile, progress, round, type BenchRow } from '../report.ts';

/**
 * WebSocket benchmark: fan-out latency with many connected clients receiving a burst of events, and the API
 * process's memory per connection. The API runs in its own process (`start --role api`), the
 * clients in this one; latency is from the append to the stream to the client's receipt.
 */

const SUITE = 'websocket';
const CONNECTIONS_PER_PRO_USER = 10;

/** The API process's JavaScript heap plus buffers outside it (sockets' buffers live there). */
async function apiMemory(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? Number.NaN);
  return value('tm_process_nodejs_heap_size_used_bytes') + value('tm_process_nodejs_external_memory_bytes');
}

export async function websocketFanout(options: { clients: number; events: number }): Promise<BenchRow[]> {
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const dir = mkdtempSync(join(tmpdir(), 'tm-bench-ws-'));
  const sockets: WebSocket[] = [];
  let api: ChildProcess | undefined;
  try {
    progress(`websocket: ${Math.ceil(options.clients / CONNECTIONS_PER_PRO_USER)} PRO users for ${options.clients} connections`);
    const handle = createDb(database.url, { max: 2 });
    const accounts = createAccountRepository(handle.db);
    const keys: string[] = [];
    const passwordHash = await hashPassword('bench password');
    for (let i = 0; i < Math.ceil(options.clients / CONNECTIONS_PER_PRO_USER); i++) {
      const user = (await accounts.createUser({ email: `ws${i}@bench.test`, passwordHash, plan: 'PRO' }))!;
      const key = generateApiKey();
      await accounts.generateKey(user.id, key, { name: 'bench', description: null, plan: 'PRO', now: new Date(), expiresAt: null });
      keys.push(key.apiKey);
    }
    await handle.close();

    const port = await findFreePort();
    api = spawn(process.execPath, ['bin/token-monitor.mjs', 'start', '--role', 'api'], {
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix,
        PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dir, RPC_URL_1: 'http://127.0.0.1:9', JWT_SECRET: 'b'.repeat(64),
      },
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 60_000, 'the API process');
    const idleMemory = await apiMemory(base);

    const received: number[] = [];
    let deliveries = 0;
    const expected = options.clients * options.events;
    for (let i = 0; i < options.clients; i++) {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${keys[Math.floor(i / CONNECTIONS_PER_PRO_USER)]}`);
      socket.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as { type: string; data?: { sent_at?: number } };
        if (message.type !== 'alert' || message.data?.sent_at === undefined) return;
        received.push(Date.now() - message.data.sent_at);
        deliveries++;
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('unexpected-response', (_req, res) => reject(new Error(`connection ${i} refused: HTTP ${res.statusCode}`)));
        socket.once('error', reject);
      });
      sockets.push(socket);
      if (i % 250 === 249) progress(`websocket: ${i + 1}/${options.clients} connected`);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const connectedMemory = await apiMemory(base);

    progress(`websocket: burst of ${options.events} events`);
    const publisher = createRedis(redis.url, 'commands');
    const streamKey = keySpace(redis.prefix).events;
    const pipeline = publisher.pipeline();
    for (let i = 0; i < options.events; i++) {
      const data = { contract_address: `0x${'c'.repeat(40)}`, chain_id: 1, kind: 'bench', message: `burst ${i}`, sent_at: Date.now() };
      pipeline.xadd(streamKey, 'MAXLEN', '~', STREAM_MAX_LENGTH, '*', 'type', 'alert', 'ts', new Date().toISOString(), 'data', JSON.stringify(data));
    }
    await pipeline.exec();
    publisher.disconnect();
    await eventually(async () => (deliveries >= expected ? true : undefined), 120_000, `${expected} deliveries`);

    received.sort((a, b) => a - b);
    const perConnection = (connectedMemory - idleMemory) / options.clients;
    return [
      { suite: SUITE, metric: `fan-out latency p50 (${options.clients} clients, ${options.events}-event burst)`, value: round(percentile(received, 50), 1), unit: 'ms', note: `${received.length} deliveries` },
      { suite: SUITE, metric: 'fan-out latency p99', value: round(percentile(received, 99), 1), unit: 'ms' },
      { suite: SUITE, metric: 'API process memory per connection (heap + external)', value: round(perConnection / 1024, 1), unit: 'KiB', note: `${round(idleMemory / 2 ** 20, 1)} → ${round(connectedMemory / 2 ** 20, 1)} MiB` },
    ];
  } finally {
    for (const s of sockets) s.terminate();
    api?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    api?.kill('SIGKILL');
    await Promise.all([database.drop(), redis.cleanup()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
