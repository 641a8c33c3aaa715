import { JsonRpcProvider, Wallet, WebSocketProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, type AnvilHandle, startAnvil } from './anvil.ts';

// First dev account of the standard anvil/hardhat mnemonic (public, well known).
const FIRST_DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startAnvil', () => {
  let anvil: AnvilHandle;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31338 });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it('answers JSON-RPC on HTTP and WebSocket with the requested chain id', async () => {
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true });
    expect((await provider.getNetwork()).chainId).toBe(31338n);
    expect(anvil.chainId).toBe(31338);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    const head = await provider.getBlockNumber();
    provider.destroy();

    // The same node on both transports: the same head (an idle automining chain does not move).
    const ws = new WebSocketProvider(anvil.wsUrl);
    expect(await ws.getBlockNumber()).toBe(head);
    expect((await ws.getNetwork()).chainId).toBe(31338n);
    await ws.destroy();
  });

  it('derives the funded dev accounts from the standard mnemonic', async () => {
    expect(ANVIL_PRIVATE_KEYS).toHaveLength(10);
    expect(new Set(ANVIL_PRIVATE_KEYS).size).toBe(10);
    expect(new Wallet(ANVIL_PRIVATE_KEYS[0]).address).toBe(FIRST_DEV_ADDRESS);
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true });
    const accounts = (await provider.send('eth_accounts', [])) as string[];
    const derived = ANVIL_PRIVATE_KEYS.map((k) => new Wallet(k).address.toLowerCase());
    expect(accounts.map((a) => a.toLowerCase())).toEqual(derived);
    expect(await provider.getBalance(new Wallet(ANVIL_PRIVATE_KEYS[9]).address)).toBeGreaterThan(
      0n,
    );
    provider.destroy();
  });

  it('automines by default', async () => {
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true });
    const wallet = new Wallet(ANVIL_PRIVATE_KEYS[1], provider);
    const before = await provider.getBlockNumber();
    const tx = await wallet.sendTransaction({ to: wallet.address, value: 1n });
    const receipt = await tx.wait();
    expect(receipt?.blockNumber).toBe(before + 1);
    provider.destroy();
  });

  it('mines on an interval with blockTime, and stop() ends the process', async () => {
    const timed = await startAnvil({ blockTime: 1 });
    try {
      expect(timed.port).not.toBe(anvil.port);
      expect(timed.chainId).toBe(31337);
      const provider = new JsonRpcProvider(timed.rpcUrl, undefined, { staticNetwork: true });
      const start = await provider.getBlockNumber();
      await new Promise((r) => setTimeout(r, 2_200));
      expect(await provider.getBlockNumber()).toBeGreaterThan(start);
      provider.destroy();
    } finally {
      await timed.stop();
    }
    expect(pidAlive(timed.pid)).toBe(false);
    await timed.stop(); // idempotent
  });

  it('fails clearly when the port is taken', async () => {
    await expect(startAnvil({ port: anvil.port })).rejects.toThrow(
      /anvil exited before answering|answered chain id/,
    );
  });

  it('stop() leaves no process behind', async () => {
    const other = await startAnvil();
    expect(pidAlive(other.pid)).toBe(true);
    await other.stop();
    expect(() => process.kill(other.pid, 0)).toThrow();
  });
});
