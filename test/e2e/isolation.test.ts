import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, type InterfaceAbi, JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS } from '../../app/embedded/index.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb } from '../../db/client.ts';
import { deploymentId } from '../../db/repositories/deployment.ts';
import { readText } from '../../src/evm/erc20.ts';
import { waitMined } from '../support/chain.ts';
import { rpcAnswers, waitGone } from '../support/processes.ts';
import {
  createTestDatabase,
  createTestRedis,
  deleteKeys,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../support/services.ts';
import { exitOf, spawnStart, waitForBanner } from '../support/start-process.ts';

/**
 * Two `npm start` on one machine, as a developer runs them: two data directories, two embedded
 * databases and dev chains (both chain id 31337), one Redis. Each must own its work; a second
 * start on a running instance's data directory must be refused; a killed instance must leave no
 * chain behind and its data directory must start again; one Ctrl-C must be one graceful stop.
 */

const START_TIMEOUT_MS = 120_000;
const SCORED_TIMEOUT_MS = 120_000;
const REFUSAL_TIMEOUT_MS = 30_000;
const GONE_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 30_000;
const TOKENS_PER_INSTANCE = 3;
/** A key the demo launcher does not use, so that nonces never collide. */
const DEPLOYER_KEY = ANVIL_PRIVATE_KEYS[5];
const FORCED_EXIT_CODE = 130;
const NAME_SELECTOR = '0x06fdde03';

interface Banner {
  status: string;
  api: string;
  demo_api_key: string;
  demo_account: { email: string; password: string };
  redis_prefix: string;
  chains: { chain_id: number; rpc: string }[];
}

interface ListItem {
  contract_address: string;
  name: string | null;
  current_risk_score: number | null;
}

interface Instance {
  name: string;
  dataDir: string;
  child: ChildProcess;
  banner: Banner;
  stdout: () => string;
}

const databases: TestDatabase[] = [];
const root = mkdtempSync(join(tmpdir(), 'token-monitor-isolation-'));
const started: ChildProcess[] = [];
const prefixes = new Set<string>();
let redis: TestRedis;

beforeAll(async () => {
  redis = await createTestRedis();
});

afterAll(async () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  for (const prefix of prefixes) await deleteKeys(redis.url, prefix);
  await Promise.all(databases.map((d) => d.drop()));
  await redis?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

/** `token-monitor start` on `dataDir` with nothing configured but the shared Redis. */
function spawnInstance(dataDir: string, env: Record<string, string> = {}): ChildProcess {
  const child = spawnStart(
    { DATA_DIR: dataDir, REDIS_URL: redis.url, DEMO_INTERVAL_SECONDS: '4', ...env },
    { detached: true },
  );
  started.push(child);
  return child;
}

async function startInstance(name: string, dataDir: string): Promise<Instance> {
  const child = spawnInstance(dataDir);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const { banner, output } = await waitForBanner<Banner>(child, START_TIMEOUT_MS, () => stderr);
  let stdout = output;
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  prefixes.add(banner.redis_prefix);
  return { name, dataDir, child, banner, stdout: () => stdout };
}

async function getJson<T>(instance: Instance, path: string): Promise<T> {
  const res = await fetch(`${instance.banner.api}${path}`, {
    headers: { authorization: `Bearer ${instance.banner.demo_api_key}` },
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Deploys named tokens on the instance's own chain; their addresses. */
async function deployTokens(instance: Instance, names: string[]): Promise<string[]> {
  const chain = instance.banner.chains[0]!;
  const provider = new JsonRpcProvider(chain.rpc, chain.chain_id, { staticNetwork: true });
  const wallet = new Wallet(DEPLOYER_KEY, provider);
  const artifact = loadArtifact('SimpleToken');
  const factory = new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, wallet);
  try {
    // Nonces counted here: a dev chain mining on a timer can answer a receipt before its
    // 'pending' nonce moves on, and ethers would then reuse the nonce.
    let nonce = await provider.getTransactionCount(wallet.address, 'latest');
    const addresses: string[] = [];
    for (const name of names) {
      const tx = await factory.getDeployTransaction(name, 'ISO', 10n ** 24n);
      const receipt = await waitMined(provider, wallet.sendTransaction({ ...tx, nonce: nonce++ }));
      addresses.push(receipt.contractAddress!.toLowerCase());
    }
    return addresses;
  } finally {
    provider.destroy();
  }
}

/** The names the instance's own chain gives `addresses` (name(), as a string or a bytes32). */
async function namesOnChain(instance: Instance, addresses: string[]): Promise<(string | null)[]> {
  const chain = instance.banner.chains[0]!;
  const provider = new JsonRpcProvider(chain.rpc, chain.chain_id, { staticNetwork: true });
  try {
    return await Promise.all(
      addresses.map((to) => provider.call({ to, data: NAME_SELECTOR }).then(readText, () => null)),
    );
  } finally {
    provider.destroy();
  }
}

const listed = (instance: Instance) =>
  getJson<{ items: ListItem[] }>(instance, '/tokens?chain_id=31337&limit=100').then(
    (body) => body.items,
  );

describe('two embedded instances on one Redis', () => {
  const instances: Instance[] = [];
  const ours = new Map<string, { names: string[]; addresses: string[] }>();

  it('each lists its own tokens, scored, and none of the other instance’s', async () => {
    // A retry starts from two new instances (afterAll stops those of an earlier try).
    instances.length = 0;
    ours.clear();
    instances.push(
      ...(await Promise.all(
        ['a', 'b'].map((name) => startInstance(name, mkdtempSync(join(root, `${name}-`)))),
      )),
    );
    const [a, b] = instances as [Instance, Instance];
    expect(a.banner.redis_prefix).toMatch(/^tm-[0-9a-f]{16}$/);
    expect(b.banner.redis_prefix).toMatch(/^tm-[0-9a-f]{16}$/);
    expect(a.banner.redis_prefix).not.toBe(b.banner.redis_prefix);

    // Same deployer, same nonces, same chain id: the two chains' tokens share their addresses,
    // and only the names tell them apart.
    const tag = randomBytes(3).toString('hex');
    for (const instance of instances) {
      const names = Array.from(
        { length: TOKENS_PER_INSTANCE },
        (_, i) => `${instance.name.toUpperCase()}-${tag}-${i}`,
      );
      ours.set(instance.name, { names, addresses: await deployTokens(instance, names) });
    }

    for (const instance of instances) {
      const own = ours.get(instance.name)!;
      for (const [i, address] of own.addresses.entries()) {
        const token = await eventually(
          async () => {
            const body = await getJson<ListItem>(instance, `/tokens/${address}?chain_id=31337`);
            return body.current_risk_score === null ? undefined : body;
          },
          SCORED_TIMEOUT_MS,
          `instance ${instance.name} scoring ${address}:\n${instance.stdout()}`,
        );
        expect(token.name).toBe(own.names[i]);
      }
    }

    for (const instance of instances) {
      const items = await listed(instance);
      const other = ours.get(instance.name === 'a' ? 'b' : 'a')!;
      const names = items.map((item) => item.name);
      expect(names).toEqual(expect.arrayContaining(ours.get(instance.name)!.names));
      for (const name of other.names) expect(names).not.toContain(name);
      // Every token listed, the demo launcher's too, is the one its own chain holds there.
      const onChain = await namesOnChain(
        instance,
        items.map((item) => item.contract_address),
      );
      expect(items.length).toBeGreaterThan(TOKENS_PER_INSTANCE);
      expect(names).toEqual(onChain);
    }
  }, 400_000);

  it('refuses a second start on a running instance’s data directory, naming it', async () => {
    const [a] = instances as [Instance];
    const second = spawnInstance(a.dataDir);
    let stderr = '';
    second.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await Promise.race([
      exitOf(second),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), REFUSAL_TIMEOUT_MS)),
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`is in use by another token-monitor (pid ${a.child.pid}`);
    expect(stderr).toContain(a.banner.api.replace(/\/api$/, ''));
    // The running instance is untouched.
    expect((await fetch(a.banner.api.replace(/\/api$/, '/health'))).status).toBe(200);
  }, 60_000);

  it('leaves no chain behind when killed with -9, and starts again on the same data directory', async () => {
    const [a] = instances as [Instance];
    const rpc = a.banner.chains[0]!.rpc;
    expect(await rpcAnswers(rpc)).toBe(true);
    process.kill(-a.child.pid!, 'SIGKILL');
    await exitOf(a.child);
    await eventually(
      async () => ((await rpcAnswers(rpc)) ? undefined : true),
      GONE_TIMEOUT_MS,
      'the killed instance’s Anvil to stop',
    );

    // The stale lock is taken over; the namespace, the demo key and the password are the same.
    const again = await startInstance('a', a.dataDir);
    instances[0] = again;
    expect(again.banner.redis_prefix).toBe(a.banner.redis_prefix);
    expect(again.banner.demo_api_key).toBe(a.banner.demo_api_key);
    expect(again.banner.demo_account.password).toBe(a.banner.demo_account.password);
    expect(readFileSync(join(a.dataDir, 'demo-password'), 'utf8').trim()).toBe(
      a.banner.demo_account.password,
    );
    const signin = await fetch(`${again.banner.api}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(again.banner.demo_account),
    });
    expect(signin.status).toBe(200);
    // The kept key still opens the PRO API (the dev chain itself starts afresh: its tokens of the
    // previous run are forgotten by design, workers/scanner.ts).
    const pro = await fetch(`${again.banner.api}/pro/tokens?limit=1`, {
      headers: { 'x-api-key': again.banner.demo_api_key },
    });
    expect(pro.status).toBe(200);
  }, 200_000);

  it('stops gracefully on one Ctrl-C, which reaches the process more than once', async () => {
    for (const instance of instances) {
      const rpc = instance.banner.chains[0]!.rpc;
      const exited = exitOf(instance.child);
      // The terminal's SIGINT and the one tsx relays arrive milliseconds apart.
      instance.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 50));
      instance.child.kill('SIGINT');
      const code = await Promise.race([
        exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_TIMEOUT_MS)),
      ]);
      expect(code, instance.stdout()).toBe(0);
      expect(code).not.toBe(FORCED_EXIT_CODE);
      expect(instance.stdout()).not.toContain('second signal');
      expect(await rpcAnswers(rpc)).toBe(false);
      expect(await waitGone(instance.child.pid!, GONE_TIMEOUT_MS)).toBe(true);
    }
  }, 120_000);
});

describe('configured deployments on one Redis', () => {
  it('refuses a process whose database is not the one its namespace serves, naming both', async () => {
    databases.push(...(await Promise.all([createTestDatabase(), createTestDatabase()])));
    const [first, second] = databases as [TestDatabase, TestDatabase];
    // One prefix for both, as two deployments that both leave REDIS_PREFIX at its default.
    const prefix = `tmtest-shared-${randomBytes(4).toString('hex')}`;
    prefixes.add(prefix);
    const env = (database: TestDatabase) => ({
      DATA_DIR: mkdtempSync(join(root, 'configured-')),
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
    });
    // The api role alone: no chain to start, and a namespace is claimed by every role.
    const owner = spawnStart(env(first), { args: ['--role', 'api'], detached: true });
    started.push(owner);
    const { banner } = await waitForBanner<Banner>(owner, START_TIMEOUT_MS);

    const intruder = spawnStart(env(second), { args: ['--role', 'api'], detached: true });
    started.push(intruder);
    let stderr = '';
    intruder.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exitOf(intruder)).toBe(1);
    const ids = await Promise.all(
      [first, second].map(async (database) => {
        const handle = createDb(database.url, { max: 1 });
        try {
          return await deploymentId(handle.db);
        } finally {
          await handle.close();
        }
      }),
    );
    expect(stderr).toContain(`Refusing to start: the Redis namespace "${prefix}"`);
    expect(stderr).toContain(`belongs to deployment ${ids[0]}`);
    expect(stderr).toContain(`is deployment ${ids[1]}`);
    expect(stderr).not.toContain('postgres://postgres@');

    // The owner goes on serving.
    expect((await fetch(banner.api.replace(/\/api$/, '/health'))).status).toBe(200);
    owner.kill('SIGINT');
    expect(await exitOf(owner)).toBe(0);
  }, 200_000);
});
