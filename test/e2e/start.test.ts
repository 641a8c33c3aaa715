import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, type InterfaceAbi, JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ANVIL_PRIVATE_KEYS } from '../../app/embedded/index.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createTestRedis, type TestRedis } from '../support/services.ts';
import { spawnStart, waitForBanner } from '../support/start-process.ts';

/**
 * The whole stack as `npm start` runs it, with nothing configured: embedded PGlite, the local
 * Redis (in a key prefix of its own), an Anvil dev chain with Uniswap V2 and the demo launcher.
 * A WebSocket client must see token.created for a token deployed after start-up, and Ctrl-C
 * must stop everything the process started.
 */

const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

interface Banner {
  status: string;
  api: string;
  websocket: string;
  docs: string;
  demo_api_key: string;
  chains: { chain_id: number; rpc: string }[];
}

let child: ChildProcess | undefined;
let redis: TestRedis;
const dataDir = mkdtempSync(join(tmpdir(), 'token-monitor-e2e-'));

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await redis?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded default)', () => {
  it('detects a fresh deployment, tells a WebSocket client, and stops cleanly on SIGINT', async () => {
    redis = await createTestRedis();
    let stderr = '';
    child = spawnStart({
      DATA_DIR: dataDir,
      REDIS_PREFIX: redis.prefix,
      DEMO_INTERVAL_SECONDS: '3600',
    });
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const { banner } = await waitForBanner<Banner>(child, START_TIMEOUT_MS, () => stderr);
    expect(banner.websocket).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    expect(banner.chains).toHaveLength(1);
    const health = await fetch(banner.api.replace(/\/api$/, '/health'));
    expect(health.status).toBe(200);

    const socket = new WebSocket(`${banner.websocket}?token=${banner.demo_api_key}`);
    const messages: { type: string; data?: { contract_address?: string } }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });

    // A key the demo launcher does not use, so that nonces never collide.
    const provider = new JsonRpcProvider(banner.chains[0]!.rpc, banner.chains[0]!.chain_id, {
      staticNetwork: true,
    });
    const wallet = new Wallet(ANVIL_PRIVATE_KEYS[5], provider);
    const artifact = loadArtifact('SimpleToken');
    const name = `E2E ${randomBytes(3).toString('hex')}`;
    const token = await new ContractFactory(
      artifact.abi as InterfaceAbi,
      artifact.bytecode,
      wallet,
    ).deploy(name, 'E2E', parseEther('1000'));
    await token.waitForDeployment();
    const address = (await token.getAddress()).toLowerCase();

    const deadline = Date.now() + 30_000;
    let created: (typeof messages)[number] | undefined;
    while (!created && Date.now() < deadline) {
      created = messages.find(
        (m) => m.type === 'token.created' && m.data?.contract_address === address,
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(created, `token.created for ${address}; stderr:\n${stderr}`).toBeDefined();
    expect(created).toMatchObject({
      type: 'token.created',
      data: {
        contract_address: address,
        chain_id: 31337,
        full_token_data: { token: { name, symbol: 'E2E' } },
      },
    });
    provider.destroy();

    // Without a credential: 401. With the demo PRO key the start-up banner printed: the general and the PRO detail.
    expect((await fetch(`${banner.api}/tokens/${address}?chain_id=31337`)).status).toBe(401);
    expect(banner.demo_api_key).toMatch(/^svc_pro_[0-9a-f]{40}$/);
    const detail = await fetch(`${banner.api}/tokens/${address}?chain_id=31337`, {
      headers: { authorization: `Bearer ${banner.demo_api_key}` },
    });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({
      contract_address: address,
      name,
      creator: wallet.address.toLowerCase(),
    });
    const pro = await fetch(`${banner.api}/pro/tokens/${address}?chain_id=31337`, {
      headers: { 'x-api-key': banner.demo_api_key },
    });
    expect(pro.status).toBe(200);
    expect(await pro.json()).toMatchObject({
      contract_address: address,
      security_hints: expect.any(Object),
    });
    expect((await fetch(banner.docs)).status).toBe(200);

    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const exited = new Promise<number | null>((resolve) =>
      child!.once('exit', (code) => resolve(code)),
    );
    const stopStarted = Date.now();
    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_TIMEOUT_MS)),
    ]);
    expect(code).toBe(0);
    expect(Date.now() - stopStarted).toBeLessThan(STOP_TIMEOUT_MS);
    expect(await closed).toBe(1001);
    // Nothing it started is left: the chain's RPC no longer answers.
    await expect(
      fetch(banner.chains[0]!.rpc, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(2_000),
      }),
    ).rejects.toThrow();
  }, 180_000);
});
