import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { findFreePort } from './devchain/index.ts';
import { type DataDirLock, type LockHolder, lockDataDir } from './lock.ts';
import { stopWhenThisProcessDies } from './watchdog.ts';

/**
 * The embedded default (docs/configuration.md): Postgres and Redis when none is configured.
 * Every resolver returns a URL and a `stop` that undoes exactly what it started.
 */

export interface Resolved {
  url: string;
  /** What provides it, for the start-up banner. */
  source: string;
  /** The data directory's lock, when the service lives there (app/embedded/lock.ts). */
  lock?: DataDirLock;
  stop(): Promise<void>;
}

/** Redis on its standard port: used when it answers, before a server of our own is started. */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';
const REDIS_PROBE_TIMEOUT_MS = 1_000;
const REDIS_START_TIMEOUT_MS = 10_000;
const REDIS_PIDFILE = 'redis-server.pid';
const LEFTOVER_STOP_MS = 5_000;
/** PGlite serializes transactions over its socket; every pooled connection needs a slot. */
export const EMBEDDED_PG_MAX_CONNECTIONS = 64;

export async function resolveDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  logger: Logger,
): Promise<Resolved> {
  if (databaseUrl) return { url: databaseUrl, source: 'DATABASE_URL', stop: async () => {} };
  // Before PGlite opens its files: a second writer must not touch them at all.
  const lock = lockDataDir(dataDir, (stale) => warnStale(logger, stale));
  try {
    const dir = resolve(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    // pg_trgm: the token list's `q` search index (db/migrations/0006_scale.sql).
    const db = await PGlite.create(dir, { extensions: { pg_trgm } });
    const port = await findFreePort();
    const server = new PGLiteSocketServer({
      db,
      port,
      host: '127.0.0.1',
      maxConnections: EMBEDDED_PG_MAX_CONNECTIONS,
    });
    await server.start();
    logger.info({ dir, port }, 'embedded PGlite started');
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      source: `embedded PGlite (${dir})`,
      lock,
      async stop() {
        await server.stop();
        await db.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

function warnStale(logger: Logger, stale: LockHolder) {
  logger.warn(
    { pid: stale.pid, since: stale.startedAt },
    'took over the lock of DATA_DIR from a process that is gone',
  );
}

export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    if (dir && existsSync(candidate)) return candidate;
  }
  for (const dir of ['/usr/bin', '/usr/local/bin', '/usr/sbin'])
    if (existsSync(join(dir, command))) return join(dir, command);
  return undefined;
}

export const REDIS_HELP =
  'No Redis found. Set REDIS_URL, or install one: `apt-get install redis-server` (Debian/Ubuntu), or `docker compose up -d redis`.';

/**
 * A private redis-server's arguments: loopback only, the append-only file in `dir` (queued jobs
 * survive a restart) and no snapshots, `noeviction`, as BullMQ requires (an evicted key is a
 * lost job), and its pid in `dir` (a leftover is found by it: stopLeftoverRedis).
 */
export function redisServerArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--pidfile',
    join(dir, REDIS_PIDFILE),
    '--appendonly',
    'yes',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
  ];
}

export async function resolveRedis(
  redisUrl: string | undefined,
  dataDir: string,
  logger: Logger,
): Promise<Resolved> {
  if (redisUrl) return { url: redisUrl, source: 'REDIS_URL', stop: async () => {} };
  if (await redisAnswers(LOCAL_REDIS_URL))
    return { url: LOCAL_REDIS_URL, source: 'local Redis on 127.0.0.1:6379', stop: async () => {} };
  const binary = findOnPath('redis-server');
  if (!binary) throw new Error(REDIS_HELP);
  // Its append-only file has one writer, like PGlite's files.
  const lock = lockDataDir(dataDir, (stale) => warnStale(logger, stale));
  const dir = resolve(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  await stopLeftoverRedis(dir, logger);
  const port = await findFreePort();
  const child = spawn(binary, redisServerArgs(port, dir), { stdio: 'ignore', detached: true });
  const watch = child.pid === undefined ? undefined : stopWhenThisProcessDies(child.pid);
  const killOnExit = () => {
    watch?.cancel();
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    await stopChild(child, killOnExit);
    watch?.cancel();
    lock.release();
  };
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + REDIS_START_TIMEOUT_MS;
  while (!(await redisAnswers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      await stop();
      throw new Error(`redis-server (${binary}) did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  logger.info({ port, dir }, 'redis-server started');
  return { url, source: `redis-server started on port ${port} (${dir})`, lock, stop };
}

/** The command line of `pid` (Linux), or undefined when it is gone or cannot be read. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/**
 * A redis-server still running on `dir` although no process holds the data directory's lock: one
 * left by a service that died before the parent-death watch ended it (an earlier version, or a
 * watch that could not start). A second server on the same append-only file would corrupt it, so
 * the leftover is stopped first. Only a process whose command line says redis-server is touched:
 * a reused pid belongs to someone else.
 */
export async function stopLeftoverRedis(dir: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, REDIS_PIDFILE), 'utf8').trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !commandLine(pid)?.includes('redis-server')) return;
  logger.warn({ pid, dir }, 'stopping a redis-server left running on DATA_DIR by an earlier start');
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + LEFTOVER_STOP_MS;
  while (commandLine(pid)?.includes('redis-server') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (commandLine(pid)?.includes('redis-server')) process.kill(pid, 'SIGKILL');
}

export async function stopChild(child: ChildProcess, exitHook?: () => void): Promise<void> {
  if (exitHook) process.off('exit', exitHook);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}
