import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../../app/embedded/index.ts';
import { createDb } from '../../../db/client.ts';
import { createAccountRepository } from '../../../db/repositories/accounts.ts';
import { STREAM_MAX_LENGTH } from '../../../infra/events.ts';
import { createRedis, keySpace } from '../../../infra/redis.ts';
import { hashPassword } from '../../../src/accounts/credentials.ts';
import { createProAccount } from '../../../test/support/accounts.ts';
import { createTestDatabase, createTestRedis, eventually } from '../../../test/support/services.ts';
import { type BenchRow, percentile, progress, round } from '../../report.ts';
import {
  CLIENT_PROCESSES,
  type CpuShare,
  connectClients,
  cpuMeter,
  histogramPercentile,
  reportsWhen,
  startBareServer,
  stopApi,
  stopClients,
} from './processes.ts';

/**
 * Fan-out to many WebSocket listeners (docs/websocket.md): the API runs in its own process
 * (`start --role api`), the clients in CLIENT_PROCESSES child processes of their own. A steady
 * stream of events (latency from the publisher's clock before the append to the stream to the
 * client's clock on receipt, one machine so one clock), the API process's memory per connection,
 * and a burst: how long until the last client has it all. The steady phase also runs, before and
 * after, through a bare fan-out process (bare-server.ts), the floor this machine allows: the
 * baseline.
 */

const SUITE = 'websocket';
const CONNECTIONS_PER_PRO_USER = 10;
/** Time for the API process to run the collection it was signalled to run. */
const GC_SETTLE_MS = 2_000;
const GC_PRELOAD = fileURLToPath(new URL('./gc-on-signal.mjs', import.meta.url));

export interface WebsocketOptions {
  clients: number;
  steadySeconds: number;
  eventsPerSecond: number;
  burst: number;
}

/** The API process's JavaScript heap plus buffers outside it (sockets' buffers live there). */
async function apiMemory(base: string): Promise<{ heap: number; rss: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.split(' ')[1] ?? Number.NaN,
    );
  return {
    heap:
      value('tm_process_nodejs_heap_size_used_bytes') +
      value('tm_process_nodejs_external_memory_bytes'),
    rss: value('tm_process_process_resident_memory_bytes'),
  };
}

/** The API's memory right after a full garbage collection (gc-on-signal.mjs). */
async function memoryAfterGc(
  api: ChildProcess,
  base: string,
): Promise<{ heap: number; rss: number }> {
  api.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, GC_SETTLE_MS));
  return apiMemory(base);
}

/** PRO users (each may hold CONNECTIONS_PER_PRO_USER connections) and their API keys. */
async function proKeys(url: string, users: number): Promise<string[]> {
  const handle = createDb(url, { max: 2 });
  try {
    const accounts = createAccountRepository(handle.db);
    const keys: string[] = [];
    const passwordHash = await hashPassword('bench password');
    for (let i = 0; i < users; i++) {
      const { apiKey } = await createProAccount(accounts, {
        email: `ws${i}@bench.test`,
        passwordHash,
      });
      keys.push(apiKey);
    }
    return keys;
  } finally {
    await handle.close();
  }
}

function startApi(
  database: { url: string },
  redis: { url: string; prefix: string },
  port: number,
  dir: string,
): ChildProcess {
  // BENCH_API_CPU_PROF=<dir> writes a CPU profile of the API process there (docs/benchmarks.md).
  const profile = process.env.BENCH_API_CPU_PROF;
  const nodeFlags = ['--expose-gc', '--import', GC_PRELOAD];
  if (profile) nodeFlags.push('--cpu-prof', '--cpu-prof-dir', profile);
  return spawn(
    process.execPath,
    [...nodeFlags, 'bin/token-monitor.mjs', 'start', '--role', 'api'],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATA_DIR: dir,
        RPC_URL_1: 'http://127.0.0.1:9',
        JWT_SECRET: 'b'.repeat(64),
      },
      stdio: 'ignore',
    },
  );
}

/** Appends alert events to the stream; each carries its phase and when it was sent. */
function createPublisher(redis: { url: string; prefix: string }) {
  const publisher = createRedis(redis.url, 'commands');
  const streamKey = keySpace(redis.prefix).events;
  // `phase` before `sent_at`: the clients read the two fields in this order (clients.ts).
  const event = (phase: string, i: number) =>
    JSON.stringify({
      contract_address: `0x${'c'.repeat(40)}`,
      chain_id: 1,
      kind: 'bench',
      message: `${phase} ${i}`,
      phase,
      sent_at: Date.now(),
    });
  const append = (pipeline: ReturnType<typeof publisher.pipeline>, data: string) =>
    pipeline.xadd(
      streamKey,
      'MAXLEN',
      '~',
      STREAM_MAX_LENGTH,
      '*',
      'type',
      'alert',
      'ts',
      new Date().toISOString(),
      'data',
      data,
    );
  return {
    /** `count` events at `perSecond`, each sent on its own schedule. */
    async steady(count: number, perSecond: number) {
      const started = performance.now();
      for (let i = 0; i < count; i++) {
        const wait = started + (i * 1_000) / perSecond - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await append(publisher.pipeline(), event('steady', i)).exec();
      }
    },
    /** `count` events in one pipeline; returns when the burst started. */
    async burst(count: number) {
      const startedAt = Date.now();
      const pipeline = publisher.pipeline();
      for (let i = 0; i < count; i++) append(pipeline, event('burst', i));
      await pipeline.exec();
      return startedAt;
    },
    close: () => publisher.disconnect(),
  };
}

interface Phase {
  delivered: number;
  expected: number;
}

interface Measured {
  idle: { heap: number; rss: number };
  connected: { heap: number; rss: number };
  connectSeconds: number;
  steady: SteadyMeasure;
  /** The same steady phase through the bare fan-out process (the floor on this machine). */
  bare: SteadyMeasure;
  burst: Phase & { waits: number[]; cpu: CpuShare };
}

type SteadyMeasure = Phase & { buckets: [number, number][]; cpu: CpuShare };

function fanoutRows(options: WebsocketOptions, m: Measured): BenchRow[] {
  const { idle, connected, connectSeconds, steady, bare, burst } = m;
  const bareP99 = histogramPercentile(bare.buckets, 99);
  const perConnection = (connected.heap - idle.heap) / options.clients;
  const rssPerConnection = (connected.rss - idle.rss) / options.clients;
  const steadyP99 = histogramPercentile(steady.buckets, 99);
  const pct = (share: number) => `${round(share * 100, 0)} %`;
  const perDelivery = (phase: SteadyMeasure) => (phase.cpu.apiSeconds * 1e6) / phase.delivered;
  return [
    {
      suite: SUITE,
      metric: `steady fan-out latency p99 (${options.clients} clients, ${options.eventsPerSecond} events/s for ${options.steadySeconds} s)`,
      value: steadyP99,
      unit: 'ms',
      baseline: {
        metric: 'bare fan-out process p99',
        value: bareP99,
        ratio: steadyP99 / bareP99,
      },
      note: `baseline: a bare Node process following the same stream and writing each frame to every socket, run before and after the API (p50 ${histogramPercentile(bare.buckets, 50)} ms, ${bare.delivered}/${bare.expected} deliveries, CPU ${pct(bare.cpu.api)}); p50 ${histogramPercentile(steady.buckets, 50)} ms; ${steady.delivered}/${steady.expected} deliveries; target ≤ 250 ms: ${steadyP99 <= 250 ? 'met' : 'missed'}; clients in ${CLIENT_PROCESSES} processes of their own; CPU of one core: API process ${pct(steady.cpu.api)}, client processes ${pct(steady.cpu.clients)}; load average ${round(steady.cpu.loadAverage, 1)}; host ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    },
    {
      suite: SUITE,
      metric: 'API process CPU per delivery (steady phase)',
      value: round(perDelivery(steady), 2),
      unit: 'µs',
      baseline: {
        metric: 'bare fan-out process CPU per delivery',
        value: round(perDelivery(bare), 2),
        ratio: perDelivery(steady) / perDelivery(bare),
      },
      note: `user + system CPU time of the process over the steady phase (until every delivery is in) per delivery: what one more client costs, less sensitive than latency to the shared machine; in the kernel (system time, mostly the socket writes): API process ${pct(steady.cpu.apiSystemSeconds / steady.cpu.apiSeconds)}, bare process ${pct(bare.cpu.apiSystemSeconds / bare.cpu.apiSeconds)}`,
    },
    {
      suite: SUITE,
      metric: 'API process memory per connection (heap + external)',
      value: round(perConnection / 1024, 1),
      unit: 'KiB',
      note: `${round(idle.heap / 2 ** 20, 1)} → ${round(connected.heap / 2 ** 20, 1)} MiB; RSS ${round(rssPerConnection / 1024, 1)} KiB per connection; ${options.clients} connected in ${round(connectSeconds, 1)} s; target ≤ 20 KiB`,
    },
    {
      suite: SUITE,
      metric: `burst of ${options.burst} events: the last client has them all after`,
      value: round(burst.waits[burst.waits.length - 1] ?? Number.NaN, 0),
      unit: 'ms',
      note: `median client ${round(percentile(burst.waits, 50), 0)} ms; ${burst.delivered}/${burst.expected} deliveries; CPU of one core: API process ${pct(burst.cpu.api)}, client processes ${pct(burst.cpu.clients)}; load average ${round(burst.cpu.loadAverage, 1)}`,
    },
  ];
}

type Publisher = ReturnType<typeof createPublisher>;

async function steadyPhase(
  options: WebsocketOptions,
  publisher: Publisher,
  api: ChildProcess,
  children: ChildProcess[],
): Promise<SteadyMeasure> {
  const events = options.steadySeconds * options.eventsPerSecond;
  progress(
    `websocket: steady ${options.eventsPerSecond} events/s for ${options.steadySeconds} s to ${options.clients} clients`,
  );
  const cpu = cpuMeter(api, children);
  await publisher.steady(events, options.eventsPerSecond);
  const expected = events * options.clients;
  const reports = await reportsWhen(
    children,
    (rs) => rs.reduce((s, r) => s + r.steady, 0) >= expected,
    60_000,
  );
  // Read once every delivery is in: the fan-out may trail the last append.
  const share = cpu();
  return {
    buckets: reports.flatMap((r) => r.buckets),
    delivered: reports.reduce((s, r) => s + r.steady, 0),
    expected,
    cpu: share,
  };
}

async function burstPhase(
  options: WebsocketOptions,
  publisher: Publisher,
  api: ChildProcess,
  children: ChildProcess[],
): Promise<Measured['burst']> {
  progress(`websocket: burst of ${options.burst} events`);
  const cpu = cpuMeter(api, children);
  const startedAt = await publisher.burst(options.burst);
  const expected = options.burst * options.clients;
  const reports = await reportsWhen(
    children,
    (rs) => rs.reduce((s, r) => s + r.burst, 0) >= expected,
    300_000,
  );
  return {
    delivered: reports.reduce((s, r) => s + r.burst, 0),
    expected,
    cpu: cpu(),
    // Each client reports when (epoch ms) its last burst event arrived.
    waits: reports
      .flatMap((r) => r.lastBurst)
      .map((at) => at - startedAt)
      .sort((a, b) => a - b),
  };
}

/**
 * The baseline runs before and after the API's phases, and counts as one: the machine's load
 * drifts over a run, and CPU per write with it (a run with the baseline only after the API had
 * the two equal, one with it only before had the API 1.6× the baseline).
 */
function bothSides(before: SteadyMeasure, after: SteadyMeasure): SteadyMeasure {
  const mean = (f: (cpu: CpuShare) => number) => (f(before.cpu) + f(after.cpu)) / 2;
  return {
    buckets: [...before.buckets, ...after.buckets],
    delivered: before.delivered + after.delivered,
    expected: before.expected + after.expected,
    cpu: {
      api: mean((c) => c.api),
      clients: mean((c) => c.clients),
      apiSeconds: before.cpu.apiSeconds + after.cpu.apiSeconds,
      apiSystemSeconds: before.cpu.apiSystemSeconds + after.cpu.apiSystemSeconds,
      loadAverage: mean((c) => c.loadAverage),
    },
  };
}

/** The steady phase through the bare fan-out process, with clients of their own. */
async function barePhase(
  options: WebsocketOptions,
  redis: { url: string; prefix: string },
  credentials: string[],
): Promise<SteadyMeasure> {
  progress('websocket: baseline, a bare fan-out process');
  const { server, port } = await startBareServer(redis);
  const children: ChildProcess[] = [];
  const publisher = createPublisher(redis);
  try {
    children.push(...(await connectClients(port, credentials)));
    return await steadyPhase(options, publisher, server, children);
  } finally {
    publisher.close();
    await stopClients(children);
    await stopClients([server]);
  }
}

export async function websocketFanout(options: WebsocketOptions): Promise<BenchRow[]> {
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const dir = mkdtempSync(join(tmpdir(), 'tm-bench-ws-'));
  const children: ChildProcess[] = [];
  let api: ChildProcess | undefined;
  try {
    const users = Math.ceil(options.clients / CONNECTIONS_PER_PRO_USER);
    progress(`websocket: ${users} PRO users for ${options.clients} connections`);
    const keys = await proKeys(database.url, users);
    const port = await findFreePort();
    api = startApi(database, redis, port, dir);
    const base = `http://127.0.0.1:${port}`;
    await eventually(
      async () => ((await fetch(`${base}/health`)).ok ? true : undefined),
      60_000,
      'the API process',
    );
    const idle = await memoryAfterGc(api, base);
    const credentials = Array.from(
      { length: options.clients },
      (_, i) => keys[Math.floor(i / CONNECTIONS_PER_PRO_USER)]!,
    );
    const bareBefore = await barePhase(options, redis, credentials);
    const connectStarted = performance.now();
    children.push(...(await connectClients(port, credentials)));
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    const connected = await memoryAfterGc(api, base);
    const publisher = createPublisher(redis);
    try {
      const steady = await steadyPhase(options, publisher, api, children);
      const burst = await burstPhase(options, publisher, api, children);
      await stopClients(children.splice(0));
      const bare = bothSides(bareBefore, await barePhase(options, redis, credentials));
      return fanoutRows(options, { idle, connected, connectSeconds, steady, bare, burst });
    } finally {
      publisher.close();
    }
  } finally {
    await stopClients(children);
    if (api) await stopApi(api);
    await Promise.all([database.drop(), redis.cleanup()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
