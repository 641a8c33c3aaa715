import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** `token-monitor start` as a child process, the way a user runs it, and its start-up banner. */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The environment of a started service: nothing of the test runner's own beyond PATH and HOME, a
 * free port on loopback, warnings only; `env` adds to it and overrides it.
 */
export function startEnv(env: Record<string, string>): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

/**
 * Spawns `token-monitor start` (and `args`, e.g. `--role api`) from the repository root with
 * `startEnv(env)`. `detached`: the process leads a process group of its own, which a test can kill
 * whole (`process.kill(-pid)`), as a terminal or an OOM killer does.
 */
export function spawnStart(
  env: Record<string, string>,
  options: { args?: string[]; detached?: boolean } = {},
): ChildProcess {
  return spawn(process.execPath, ['bin/token-monitor.mjs', 'start', ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: startEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
}

/** Resolves with the exit code (or the signal's name) once `child` has exited. */
export function exitOf(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
}

/**
 * `token-monitor start` prints one JSON line `{"status":"started", …}` once every role is up (the
 * start-up banner, app/cli.ts). Resolves with it and with the standard output read so far (the
 * log lines before it); rejects when the process exits first or stays silent past `timeoutMs`.
 * Lines that are not JSON, and JSON cut in the middle of a chunk, are read past.
 */
export function waitForBanner<T extends { status: string }>(
  child: ChildProcess,
  timeoutMs: number,
  context: () => string = () => '',
): Promise<{ banner: T; output: string }> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => reject(new Error(`${why}:\n${output}${context()}`));
    const timer = setTimeout(() => fail(`no start-up banner within ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.startsWith('{"status"')) continue;
        let parsed: T;
        try {
          parsed = JSON.parse(line) as T;
        } catch {
          continue; // the rest of the line is in the next chunk
        }
        if (parsed.status !== 'started') continue;
        clearTimeout(timer);
        // Keep the pipe drained, or a chatty child would block on a full stdout.
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.off('exit', onExit);
        resolve({ banner: parsed, output });
        return;
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      fail(`exited with ${code} before start-up`);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}
