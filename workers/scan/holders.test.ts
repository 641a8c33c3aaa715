import { Contract, Interface, parseEther, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANVIL_PRIVATE_KEYS,
  createDemoLauncher,
  type DemoLauncher,
  type LaunchedToken,
  TOKEN_KINDS,
} from '../../app/embedded/index.ts';
import type { Service } from '../../app/service.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createHolderRepository, type HolderRepository } from '../../db/repositories/holders.ts';
import { ZERO_ADDRESS } from '../../src/holders/transfers.ts';
import { startTestChain, type TestChain, waitMined } from '../../test/support/chain.ts';
import { startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';

/**
 * Holders from Transfer logs on a real chain: the demo launcher's tokens (every ERC-20 kind, with
 * liquidity and a buy) must show, for every holder the sequencer tracks, exactly the balance
 * balanceOf answers at the sequencer's block, and nothing may be missing (the tracked balances add
 * up to the supply outside the zero address). A reorg across a transfer undoes it exactly.
 */

const erc20 = new Interface(loadArtifact('SimpleToken').abi);

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let holders: HolderRepository;

const rpc = <T>(method: string, params: unknown[] = []) =>
  chain.provider.send(method, params) as Promise<T>;
const head = async () => Number(await rpc<string>('eth_blockNumber'));

async function balanceOf(token: string, holder: string, block: number): Promise<bigint> {
  const data = erc20.encodeFunctionData('balanceOf', [holder]);
  return BigInt(await rpc<string>('eth_call', [{ to: token, data }, `0x${block.toString(16)}`]));
}

async function totalSupply(token: string, block: number): Promise<bigint> {
  const data = erc20.encodeFunctionData('totalSupply', []);
  return BigInt(await rpc<string>('eth_call', [{ to: token, data }, `0x${block.toString(16)}`]));
}

/** The live track has applied every block up to `block`. */
const caughtUp = (block: number) =>
  eventually(
    async () => {
      const track = await holders.track(31337, 'live');
      return track && track.blockNumber >= block ? track.blockNumber : undefined;
    },
    60_000,
    `holders applied up to block ${block}`,
  );

/** Every tracked holder matches balanceOf at `block`, and the balances add up to the supply. */
async function expectExact(token: string, block: number): Promise<number> {
  const rows = await holders.balances(31337, token);
  for (const { holder, balance } of rows)
    expect({ token, holder, balance }).toEqual({
      token,
      holder,
      balance: await balanceOf(token, holder, block),
    });
  const sum = rows.reduce((s, r) => s + r.balance, 0n);
  // The zero address is never a holder: a pair's first LP tokens are minted to it for good.
  const expected =
    (await totalSupply(token, block)) - (await balanceOf(token, ZERO_ADDRESS, block));
  expect({ token, sum }).toEqual({ token, sum: expected });
  return rows.length;
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  holders = createHolderRepository(handle.db);
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('holders from Transfer logs', () => {
  let service: Service;
  let launcher: DemoLauncher;

  afterAll(async () => {
    await launcher?.stop();
    await service?.stop();
  });

  it("tracks every holder of the demo launcher's tokens exactly", async () => {
    service = await startTestService({
      roles: ['worker', 'scanner'],
      database,
      redis,
      chain: chain.chainConfig(),
    });
    launcher = createDemoLauncher({
      rpcUrl: chain.anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[1],
      uniswap: chain.uniswap,
    });
    const launched: LaunchedToken[] = [];
    for (const kind of TOKEN_KINDS) {
      if (kind === 'not-a-token') continue;
      launched.push(await launcher.launchOne(kind, { liquidity: true, buy: true }));
    }
    // Holders beyond the creator and the pair: transfers to fresh wallets, one of them sold back.
    const simple = launched.find((t) => t.kind === 'simple')!;
    const token = new Contract(
      simple.address,
      erc20,
      new Wallet(ANVIL_PRIVATE_KEYS[1], chain.provider),
    );
    for (let i = 0; i < 3; i++)
      await waitMined(
        chain.provider,
        token.getFunction('transfer')(Wallet.createRandom().address, parseEther(String(i + 1))),
      );
    const block = await head();
    await caughtUp(block);
    let checked = 0;
    for (const t of launched) {
      checked += await expectExact(t.address.toLowerCase(), block);
      if (t.pair) checked += await expectExact(t.pair.toLowerCase(), block);
    }
    // Creator, pair, buyer, fee receivers, fresh wallets, LP holders: far more than one per token.
    expect(checked).toBeGreaterThan(launched.length * 2);
  }, 180_000);

  it('undoes the balance changes of orphaned blocks exactly after a reorg', async () => {
    const deployed = await chain.deploy('SimpleToken', ['Reorged', 'REO', parseEther('1000')]);
    const token = deployed.address;
    const friend = Wallet.createRandom().address.toLowerCase();
    await waitMined(
      chain.provider,
      deployed.contract.getFunction('transfer')(friend, parseEther('10')),
    );
    const before = await head();
    await caughtUp(before);
    const snapshot = await rpc<string>('evm_snapshot');
    // The orphaned branch moves tokens to another wallet and back part of the first transfer.
    const stranger = Wallet.createRandom().address.toLowerCase();
    await waitMined(
      chain.provider,
      deployed.contract.getFunction('transfer')(stranger, parseEther('7')),
    );
    await rpc('evm_mine');
    const orphanHead = await head();
    await caughtUp(orphanHead);
    expect((await holders.balances(31337, token)).map((r) => r.holder)).toContain(stranger);

    await rpc('evm_revert', [snapshot]);
    chain.signer.reset();
    // The new branch, longer than the orphaned one, sends elsewhere.
    const other = Wallet.createRandom().address.toLowerCase();
    await waitMined(
      chain.provider,
      deployed.contract.getFunction('transfer')(other, parseEther('3')),
    );
    for (let i = 0; i < 3; i++) await rpc('evm_mine');
    const newHead = await head();
    expect(newHead).toBeGreaterThan(orphanHead);
    await caughtUp(newHead);
    await eventually(
      async () => {
        const rows = await holders.balances(31337, token);
        return rows.some((r) => r.holder === other) ? rows : undefined;
      },
      30_000,
      'the new branch applied',
    );
    const rows = await holders.balances(31337, token);
    expect(rows.map((r) => r.holder)).not.toContain(stranger);
    expect(new Map(rows.map((r) => [r.holder, r.balance]))).toEqual(
      new Map([
        [chain.account, parseEther('987')],
        [friend, parseEther('10')],
        [other, parseEther('3')],
      ]),
    );
    await expectExact(token, newHead);
  }, 120_000);
});
