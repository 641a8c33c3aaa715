import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { processGone } from '../../test/support/processes.ts';
import { eventually } from '../../test/support/services.ts';
import { findFreePort } from './devchain/index.ts';
import { findOnPath, redisAnswers, redisServerArgs, stopLeftoverRedis } from './stack.ts';

/**
 * A start must not trip over what an earlier one left: a redis-server still running on
 * DATA_DIR/redis (a second one on its append-only file would corrupt it) is stopped first, and
 * nothing else is touched.
 */

const root = mkdtempSync(join(tmpdir(), 'token-monitor-leftover-'));
const spawned: number[] = [];
afterAll(() => {
  for (const pid of spawned) if (!processGone(pid)) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('leftover redis-server', () => {
  it('stops the redis-server an earlier start left on the directory', async () => {
    const binary = findOnPath('redis-server');
    if (!binary) throw new Error('redis-server not found on PATH');
    const dir = mkdtempSync(join(root, 'redis-'));
    const port = await findFreePort();
    // Detached and forgotten, as a service killed with -9 before the parent-death watch left it.
    const leftover = spawn(binary, redisServerArgs(port, dir), { stdio: 'ignore', detached: true });
    leftover.unref();
    spawned.push(leftover.pid!);
    await eventually(
      async () => ((await redisAnswers(`redis://127.0.0.1:${port}`)) ? true : undefined),
      10_000,
      'the leftover redis-server',
    );
    expect(existsSync(join(dir, 'redis-server.pid'))).toBe(true);

    await stopLeftoverRedis(dir, silentLogger);
    await eventually(async () => (processGone(leftover.pid!) ? true : undefined), 10_000);
    expect(await redisAnswers(`redis://127.0.0.1:${port}`)).toBe(false);
  });

  it('leaves alone a process that reuses the recorded pid', async () => {
    const dir = mkdtempSync(join(root, 'reused-'));
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    spawned.push(other.pid!);
    writeFileSync(join(dir, 'redis-server.pid'), `${other.pid}\n`);
    await stopLeftoverRedis(dir, silentLogger);
    expect(processGone(other.pid!)).toBe(false);
  });
});
