import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * One writer per data directory. PGlite (and a redis-server's append-only file) has exactly one
 * writer; a second `start` on the same DATA_DIR would corrupt it. The first process to use the
 * directory's embedded services writes DATA_DIR/instance.lock (its pid, start time and, once it
 * listens, its URL); any other process finds it and stops at once, naming the holder. A lock
 * whose process is gone (killed with -9, a crash, a reboot) is stale and is taken over.
 *
 * Within one process the lock is shared: the database and the redis-server of one start both
 * hold it, and it is released when the last of them stops.
 */

const LOCK_FILE = 'instance.lock';
const TAKEOVER_ATTEMPTS = 3;

export interface LockHolder {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for it. */
  startTicks?: string;
  startedAt: string;
  command: string;
  url?: string;
}

export interface DataDirLock {
  path: string;
  /** Records the URL the service answers on, for a second start's refusal message. */
  announce(url: string): void;
  release(): void;
}

/** A second process on a locked data directory: what it was told. */
export class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another token-monitor (pid ${holder.pid}, ${holder.url ?? `${holder.command}, no URL yet`}, since ${holder.startedAt}). ` +
        'Its embedded database has one writer: stop that process first, or give this one another DATA_DIR (or DATABASE_URL).',
    );
  }
}

/** Field 22 of /proc/<pid>/stat, after the parenthesised command (which may hold spaces). */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined; // no /proc (macOS), or the process is gone
  }
}

export function holderAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the pid exists under another user; only ESRCH says it is gone.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const ticks = processStartTicks(holder.pid);
  return holder.startTicks === undefined || ticks === undefined || ticks === holder.startTicks;
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    return typeof parsed.pid === 'number' && typeof parsed.startedAt === 'string'
      ? (parsed as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `holder` to `path` only if no lock is there: complete content, never a torn file. */
function createExclusive(path: string, holder: LockHolder): boolean {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(holder));
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Moves a stale lock aside. Only one of several starts can rename the same file; one that moved
 * a lock other than the stale one it judged (a racer's fresh lock) puts it back.
 */
function removeStale(path: string, stale: LockHolder | undefined): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readHolder(aside);
  if (moved?.pid !== stale?.pid || moved?.startedAt !== stale?.startedAt) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone locked meanwhile: their lock stands, and the next attempt meets it.
    }
  }
  rmSync(aside, { force: true });
}

const held = new Map<string, { lock: DataDirLock; users: number }>();

/**
 * Takes the data directory's lock, or throws DataDirInUse naming the live holder. `onStale` hears
 * of a dead holder's lock before it is taken over.
 */
export function lockDataDir(
  dataDir: string,
  onStale: (holder: LockHolder) => void = () => {},
): DataDirLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE);
  const mine = held.get(path);
  if (mine) {
    mine.users += 1;
    return mine.lock;
  }
  mkdirSync(dir, { recursive: true });
  const holder: LockHolder = {
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    startedAt: new Date().toISOString(),
    // The subcommand only: later arguments may hold a password (users create --password).
    command: `token-monitor ${process.argv[2] ?? ''}`.trim(),
  };
  for (let attempt = 1; !createExclusive(path, holder); attempt++) {
    // A lock file is whole from its first byte (linked, renamed): one that does not parse names
    // no live process.
    const current = readHolder(path);
    if (current && holderAlive(current)) throw new DataDirInUse(dir, current);
    if (attempt >= TAKEOVER_ATTEMPTS)
      throw new Error(
        `could not take over the stale lock ${path}: delete it if no token-monitor runs`,
      );
    if (current) onStale(current);
    removeStale(path, current);
  }
  // Only our own lock: never one a later process took over.
  const removeOwn = () => {
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
  };
  // A start that fails exits through process.exit: its lock goes with it.
  process.once('exit', removeOwn);
  const lock: DataDirLock = {
    path,
    announce(url) {
      holder.url = url;
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(holder));
      renameSync(temp, path);
    },
    release() {
      const entry = held.get(path);
      if (!entry || --entry.users > 0) return;
      held.delete(path);
      process.off('exit', removeOwn);
      removeOwn();
    },
  };
  held.set(path, { lock, users: 1 });
  return lock;
}
