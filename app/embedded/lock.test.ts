import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUse, type LockHolder, lockDataDir, processStartTicks } from './lock.ts';

/** One writer per data directory: a live holder is named and refused, a dead one's lock taken over. */

const root = mkdtempSync(join(tmpdir(), 'token-monitor-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const freshDir = (name: string) => mkdtempSync(join(root, `${name}-`));
const lockFile = (dir: string) => join(dir, 'instance.lock');
const writeHolder = (dir: string, holder: LockHolder) =>
  writeFileSync(lockFile(dir), JSON.stringify(holder));

/** A process that has exited: its pid names nobody (until the kernel reuses it). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('data directory lock', () => {
  it('records this process, shares the lock within it, and removes it when the last user releases', () => {
    const dir = freshDir('own');
    const first = lockDataDir(dir);
    const holder = JSON.parse(readFileSync(lockFile(dir), 'utf8')) as LockHolder;
    expect(holder.pid).toBe(process.pid);
    first.announce('http://127.0.0.1:4321');
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toMatchObject({
      pid: process.pid,
      url: 'http://127.0.0.1:4321',
    });
    // The database and the redis-server of one start hold the same lock.
    const second = lockDataDir(dir);
    first.release();
    expect(existsSync(lockFile(dir))).toBe(true);
    second.release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('refuses a directory held by a live process, naming its pid and URL', () => {
    const dir = freshDir('held');
    // The parent of this test process: alive for as long as the test runs.
    const live: LockHolder = {
      pid: process.ppid,
      startTicks: processStartTicks(process.ppid),
      startedAt: '2030-01-01T00:00:00.000Z',
      command: 'token-monitor start',
      url: 'http://127.0.0.1:3999',
    };
    writeHolder(dir, live);
    let refusal: unknown;
    try {
      lockDataDir(dir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirInUse);
    expect((refusal as Error).message).toContain(`pid ${process.ppid}`);
    expect((refusal as Error).message).toContain('http://127.0.0.1:3999');
    expect((refusal as Error).message).toContain(dir);
    // Untouched: the holder keeps its lock.
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toEqual(live);
  });

  it('takes over the lock of a process that is gone, and of a reused pid', async () => {
    const dir = freshDir('stale');
    const stale: LockHolder = {
      pid: await deadPid(),
      startedAt: '2030-01-01T00:00:00.000Z',
      command: 'token-monitor start',
    };
    writeHolder(dir, stale);
    const heard: LockHolder[] = [];
    const lock = lockDataDir(dir, (holder) => heard.push(holder));
    expect(heard).toEqual([stale]);
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8')).pid).toBe(process.pid);
    lock.release();

    const takenOver = () => {
      const taken = lockDataDir(dir);
      const pid = (JSON.parse(readFileSync(lockFile(dir), 'utf8')) as LockHolder).pid;
      taken.release();
      return pid;
    };
    // A live pid whose start time differs (Linux: /proc) is not the process that wrote the lock.
    const ticks = processStartTicks(process.ppid);
    if (ticks !== undefined) {
      writeHolder(dir, { ...stale, pid: process.ppid, startTicks: `${ticks}0` });
      expect(takenOver()).toBe(process.pid);
    }
    // A damaged file names nobody.
    writeFileSync(lockFile(dir), '{"pid":');
    expect(takenOver()).toBe(process.pid);
    expect(existsSync(lockFile(dir))).toBe(false);
  });
});
