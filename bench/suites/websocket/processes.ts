import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { keySpace } from '../../../infra/redis.ts';
import { progress } from '../../report.ts';

/**
 * The processes of the websocket suite (bench/suites/websocket/index.ts) and how it talks to them: the
 * client processes (clients.ts), the baseline's bare fan-out process (bare-server.ts), the
 * API process's stop, and the CPU time each used.
 */

/** Few processes, each holding many connections: they share the cores with the API process. */
export const CLIENT_PROCESSES = 2;
const API_STOP_TIMEOUT_MS = 15_000;
/** /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;
const CLIENT_SCRIPT = fileURLToPath(new URL('./clients.ts', import.meta.url));
const BARE_SERVER_SCRIPT = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

export interface ClientReport {
  type: 'report';
  steady: number;
  burst: number;
  buckets: [number, number][];
  lastBurst: number[];
}

/** One client process: resolves once all its connections are open. */
function startClients(url: string, credentials: string[]): Promise<ChildProcess> {
  const child = fork(CLIENT_SCRIPT, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.send({ type: 'start', url, credentials });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`client process exited with ${code}`)));
    child.on('message', (message: { type: string; message?: string }) => {
      if (message.type === 'connected') resolve(child);
      if (message.type === 'error') reject(new Error(message.message));
    });
  });
}

/** The baseline's bare fan-out process (bare-server.ts), following the run's stream. */
export function startBareServer(redis: { url: string; prefix: string }): Promise<{
  server: ChildProcess;
  port: number;
}> {
  // BENCH_API_CPU_PROF=<dir> profiles the bare process too, to compare it with the API process.
  const profile = process.env.BENCH_API_CPU_PROF;
  const server = fork(BARE_SERVER_SCRIPT, [], {
    execArgv: ['--import', 'tsx', ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  server.send({ type: 'start', redisUrl: redis.url, streamKey: keySpace(redis.prefix).events });
  return new Promise((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    server.once('message', (message: { port: number }) => resolve({ server, port: message.port }));
  });
}

export function report(child: ChildProcess): Promise<ClientReport> {
  return new Promise((resolve) => {
    const onMessage = (message: ClientReport) => {
      if (message.type !== 'report') return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send('report');
  });
}

export async function reportsWhen(
  children: ChildProcess[],
  done: (reports: ClientReport[]) => boolean,
  timeoutMs: number,
): Promise<ClientReport[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reports = await Promise.all(children.map(report));
    if (done(reports) || Date.now() > deadline) return reports;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function histogramPercentile(buckets: [number, number][], p: number): number {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  let seen = 0;
  for (const [ms, n] of sorted) {
    seen += n;
    if (seen >= (p / 100) * total) return ms;
  }
  return Number.NaN;
}

export function stopClients(children: ChildProcess[]) {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.send('close');
          setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 5_000).unref();
        }),
    ),
  );
}

/** SIGTERM, then SIGKILL if it has not exited in time (a CPU profile is written on exit). */
export async function stopApi(api: ChildProcess) {
  if (api.exitCode !== null || api.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => api.once('exit', () => resolve()));
  api.kill('SIGTERM');
  const timer = setTimeout(() => api.kill('SIGKILL'), API_STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * CPU seconds a process has used so far, from /proc (Linux): user + system, and system alone (in
 * the kernel: for a fan-out, mostly the socket writes); NaN elsewhere.
 */
function cpuSeconds(pid: number | undefined): { total: number; system: number } {
  try {
    // Fields after the command name: state is the 3rd field, utime the 14th, stime the 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const [user, system] = [Number(fields[11]), Number(fields[12])];
    return {
      total: (user + system) / CLOCK_TICKS_PER_SECOND,
      system: system / CLOCK_TICKS_PER_SECOND,
    };
  } catch {
    return { total: Number.NaN, system: Number.NaN };
  }
}

/** Share of one core the API process and the client processes used, and the machine's load. */
export interface CpuShare {
  api: number;
  clients: number;
  /** CPU seconds the API (or bare) process used over the window. */
  apiSeconds: number;
  /** Of those, the seconds spent in the kernel. */
  apiSystemSeconds: number;
  loadAverage: number;
}

export function cpuMeter(api: ChildProcess, children: ChildProcess[]): () => CpuShare {
  const clientsCpu = () => children.reduce((sum, child) => sum + cpuSeconds(child.pid).total, 0);
  const started = performance.now();
  const [api0, clients0] = [cpuSeconds(api.pid), clientsCpu()];
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const apiNow = cpuSeconds(api.pid);
    const apiSeconds = apiNow.total - api0.total;
    return {
      api: apiSeconds / seconds,
      apiSeconds,
      apiSystemSeconds: apiNow.system - api0.system,
      clients: (clientsCpu() - clients0) / seconds,
      loadAverage: loadavg()[0]!,
    };
  };
}

/** Client processes holding `credentials.length` connections between them. */
export async function connectClients(port: number, credentials: string[]): Promise<ChildProcess[]> {
  const children: ChildProcess[] = [];
  const perProcess = Math.ceil(credentials.length / CLIENT_PROCESSES);
  for (let p = 0; p < CLIENT_PROCESSES; p++) {
    const slice = credentials.slice(p * perProcess, (p + 1) * perProcess);
    if (slice.length > 0) children.push(await startClients(`ws://127.0.0.1:${port}/ws`, slice));
    progress(
      `websocket: ${Math.min(credentials.length, (p + 1) * perProcess)}/${credentials.length} connected`,
    );
  }
  return children;
}
