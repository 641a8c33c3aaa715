// Local Anvil chain for the embedded default and tests. Spawns the platform binary directly
// (not the node wrapper in node_modules/.bin) so that the pid we hold is anvil's own and
// stop() / the exit hook really end it.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { HDNodeWallet } from 'ethers';
import { fromQuantity } from '../../../src/evm/rpc.ts';
import { type ParentDeathWatch, stopWhenThisProcessDies } from '../watchdog.ts';

const DEFAULT_CHAIN_ID = 31337;
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 100;
const STOP_GRACE_MS = 3_000;
// A free port found by binding port 0 can be taken before anvil binds it; retry a few times.
const SPAWN_ATTEMPTS = 3;
const STDERR_TAIL_CHARS = 2_000;

export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const ANVIL_ACCOUNT_COUNT = 10;
const ANVIL_BASE_PATH = "m/44'/60'/0'/0";

/** anvil quit before answering, e.g. because the port was taken meanwhile: worth a retry. */
class AnvilExitedEarly extends Error {}

type TenKeys = readonly [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];

/** Private keys of anvil's ten funded dev accounts (10 000 ETH each), derived from the mnemonic. */
export const ANVIL_PRIVATE_KEYS: TenKeys = (() => {
  const base = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, ANVIL_BASE_PATH);
  const keys = Array.from(
    { length: ANVIL_ACCOUNT_COUNT },
    (_, i) => base.deriveChild(i).privateKey,
  );
  return Object.freeze(keys) as unknown as TenKeys;
})();

export interface AnvilOptions {
  /** Port to listen on; default a free one. */
  port?: number;
  /** Seconds between blocks; default automine (one block per transaction). */
  blockTime?: number;
  /** Further anvil flags, e.g. ['--disable-code-size-limit']. */
  extraArgs?: string[];
  chainId?: number;
  /** Default true. When false, anvil's log goes to this process's stderr. */
  silent?: boolean;
}

export interface AnvilHandle {
  rpcUrl: string;
  wsUrl: string;
  port: number;
  chainId: number;
  pid: number;
  stop(): Promise<void>;
}

// Children still running; the exit hook kills them so none outlives this process (and their
// parent-death watch, for a death that runs no hook).
const liveChildren = new Map<ChildProcess, ParentDeathWatch | undefined>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous; kill() is. Signals that end the process without an
  // 'exit' event (an unhandled SIGTERM) are the host's to handle: call process.exit() there.
  process.on('exit', () => {
    for (const [child, watch] of liveChildren) {
      watch?.cancel();
      child.kill('SIGKILL');
    }
  });
}

export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return path.join(path.dirname(pkgJson), 'bin', 'anvil');
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() =>
        port ? resolve(port) : reject(new Error('could not obtain a free port')),
      );
    });
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: string };
    return body.result ? fromQuantity(body.result) : undefined;
  } catch {
    return undefined; // not listening yet
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function spawnOnce(port: number, opts: AnvilOptions, chainId: number): Promise<AnvilHandle> {
  const silent = opts.silent ?? true;
  const args = ['--port', String(port), '--host', HOST, '--chain-id', String(chainId)];
  if (silent) args.push('--silent');
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.extraArgs) args.push(...opts.extraArgs);

  // Its own process group: a terminal's Ctrl-C reaches only us, and we stop the chain last, in order.
  const child = spawn(anvilBinaryPath(), args, {
    stdio: ['ignore', silent ? 'ignore' : 'pipe', 'pipe'],
    detached: true,
  });
  installExitHook();
  const watch = child.pid === undefined ? undefined : stopWhenThisProcessDies(child.pid);
  liveChildren.set(child, watch);

  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (!silent) process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  child.stdout?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = waitForExit(child).then(() => {
    watch?.cancel();
    liveChildren.delete(child);
  });

  const rpcUrl = `http://${HOST}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killTimer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(killTimer);
      }
    })();
    return stopping;
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError)
      throw new Error(`could not start anvil (${anvilBinaryPath()}): ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      await exited;
      throw new AnvilExitedEarly(
        `anvil exited before answering (code ${child.exitCode}, signal ${child.signalCode}): ${stderrTail.trim()}`,
      );
    }
    const answered = await rpcChainId(rpcUrl);
    if (answered !== undefined) {
      if (answered !== chainId) {
        await stop();
        throw new Error(`anvil on ${rpcUrl} answered chain id ${answered}, expected ${chainId}`);
      }
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `anvil did not answer eth_chainId on ${rpcUrl} within ${READY_TIMEOUT_MS / 1000} s: ${stderrTail.trim()}`,
      );
    }
    await sleep(READY_POLL_MS);
  }

  if (child.pid === undefined) throw new Error('anvil started without a pid');
  return { rpcUrl, wsUrl: `ws://${HOST}:${port}`, port, chainId, pid: child.pid, stop };
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilHandle> {
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID;
  // A fixed port is the caller's choice: no retry on another one.
  if (opts.port !== undefined) return spawnOnce(opts.port, opts, chainId);
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(await findFreePort(), opts, chainId);
    } catch (err) {
      if (!(err instanceof AnvilExitedEarly) || attempt >= SPAWN_ATTEMPTS) throw err;
    }
  }
}
