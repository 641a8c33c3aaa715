import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rpcAnswers, waitGone } from '../../test/support/processes.ts';
import type { AnvilHandle } from './devchain/index.ts';

/**
 * The parent-death watch: a process that started Anvil is killed with SIGKILL (no exit hook
 * runs), and its Anvil, in a process group of its own, stops anyway.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GONE_TIMEOUT_MS = 10_000;

const HOLDER = `
import { startAnvil } from './app/embedded/index.ts';
const anvil = await startAnvil();
console.log(JSON.stringify({ pid: anvil.pid, rpcUrl: anvil.rpcUrl }));
setInterval(() => {}, 1000);
`;

describe('parent-death watch', () => {
  it('stops Anvil when the process that started it is killed with SIGKILL', async () => {
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', HOLDER],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const started = await new Promise<Pick<AnvilHandle, 'pid' | 'rpcUrl'>>((resolve, reject) => {
      let out = '';
      holder.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      holder.once('exit', (code) => reject(new Error(`holder exited with ${code}: ${out}`)));
    });
    expect(await rpcAnswers(started.rpcUrl)).toBe(true);

    holder.kill('SIGKILL');
    expect(await waitGone(started.pid, GONE_TIMEOUT_MS)).toBe(true);
    expect(await rpcAnswers(started.rpcUrl)).toBe(false);
  }, 60_000);
});
