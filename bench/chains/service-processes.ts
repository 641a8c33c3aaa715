import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service as its operators run it: `token-monitor start --role …` child processes on one
 * database, one Redis namespace and one CHAINS_FILE, each a process of its own whose CPU and
 * memory can be read from /proc. Quiet (warn) unless BENCH_SERVICE_LOG_DIR names a folder: then
 * each process logs at BENCH_SERVICE_LOG_LEVEL (default info) to `<role>-<pid>.log` there, to read
 * where a block's detection spent its time (the detect job's `block deployments` phases).
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BANNER_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;
const LOG_DIR = process.env.BENCH_SERVICE_LOG_DIR;

export interface ServiceProcess {
  role: string;
  pid: number;
  child: ChildProcess;
  banner: { websocket: string | null; health: string | null; metrics?: string | null };
  output(): string;
}

export interface ServiceProcesses {
  processes: ServiceProcess[];
  /** The WebSocket URL of the process that serves the API. */
  websocket: string;
  /** Its /metrics. */
  metrics: string | undefined;
  stop(): Promise<void>;
}

function waitForBanner(
  child: ChildProcess,
  output: () => string,
): Promise<ServiceProcess['banner']> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`no start-up banner within ${BANNER_TIMEOUT_MS} ms:\n${output()}`)),
      BANNER_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      for (const line of text.split('\n')) {
        if (!line.startsWith('{"status"')) continue;
        try {
          const banner = JSON.parse(line) as { status: string } & ServiceProcess['banner'];
          if (banner.status !== 'started') continue;
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          child.off('exit', onExit);
          resolve(banner);
          return;
        } catch {
          // the rest of the line is in the next chunk
        }
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before start-up:\n${output()}`));
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** A niceness (added to the bench's own), or Linux's idle scheduling class. */
export type CpuPriority = { nice: number } | 'idle';

/**
 * Starts one process per entry of `roles` (e.g. ['all'] or ['api', 'scanner', 'worker',
 * 'worker', 'scheduler']), the API first, and waits for each one's start-up banner.
 */
export async function startServiceProcesses(options: {
  /**
   * A role, or a role with environment of its own (e.g. a worker's WORKER_QUEUES) and a CPU
   * priority: a niceness (as `nice -n` would give it) or Linux's idle scheduling class
   * (`chrt --idle 0`: it runs only on CPU time nothing else wants).
   */
  roles: (string | { role: string; env: Record<string, string>; cpu?: CpuPriority })[];
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  chains: unknown[];
}): Promise<ServiceProcesses> {
  const dir = mkdtempSync(join(tmpdir(), 'token-monitor-chains-'));
  const chainsFile = join(dir, 'chains.json');
  writeFileSync(chainsFile, JSON.stringify({ chains: options.chains }));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: options.redisPrefix,
    CHAINS_FILE: chainsFile,
    DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: LOG_DIR ? (process.env.BENCH_SERVICE_LOG_LEVEL ?? 'info') : 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  const started: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(
      started.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  // The API (or the all-roles process) first: it is the one the others need least, and the
  // WebSocket must be listening before the first token.
  const entries = options.roles.map((r) =>
    typeof r === 'string' ? { role: r, env: {}, cpu: undefined } : r,
  );
  const ordered = [...entries].sort(
    (a, b) =>
      Number(b.role === 'api' || b.role === 'all') - Number(a.role === 'api' || a.role === 'all'),
  );
  try {
    for (const { role, env: own, cpu } of ordered) {
      const command = [process.execPath, 'bin/token-monitor.mjs', 'start', '--role', role];
      // chrt execs node in its own process (the pid stays), every thread in the idle class.
      const [file, ...args] = cpu === 'idle' ? ['chrt', '--idle', '0', ...command] : command;
      const child = spawn(file!, args, {
        cwd: REPO_ROOT,
        env: { ...env, ...own },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (cpu !== undefined && cpu !== 'idle' && child.pid !== undefined)
        setPriority(child.pid, Math.min(19, getPriority(process.pid) + cpu.nice));
      let tail = '';
      const keep = (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-4_000);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      if (LOG_DIR) {
        mkdirSync(LOG_DIR, { recursive: true });
        const file = createWriteStream(join(LOG_DIR, `${role}-${child.pid}.log`));
        child.stdout!.pipe(file);
        child.stderr!.pipe(file);
      }
      const output = () => tail;
      const entry: ServiceProcess = {
        role,
        pid: child.pid!,
        child,
        output,
        banner: { websocket: null, health: null },
      };
      started.push(entry);
      entry.banner = await waitForBanner(child, output);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const websocket = started.find((p) => p.banner.websocket)?.banner.websocket;
  if (!websocket) {
    await stop();
    throw new Error('no process serves the WebSocket');
  }
  const metrics = started.find((p) => p.banner.metrics)?.banner.metrics ?? undefined;
  return { processes: started, websocket, metrics, stop };
}
