import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { simulateVenues } from '../../../src/analysis/hooks/index.ts';
import { decodePoolState, NO_HOOK, poolStateCall } from '../../../src/dex/v4/index.ts';
import type { RpcClient } from '../../../src/evm/rpc.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { ANVIL_PRIVATE_KEYS } from './anvil.ts';
import { createDemoLauncher, type DemoLauncher, type LaunchedToken } from './demo-launcher.ts';
import { V4_VENUES } from './demo-v4.ts';

/**
 * The demo launcher's V4 launches on Anvil with the real PoolManager, and what the monitor's
 * simulation makes of each: a plain pool is clean, the fee hook's cut is the tax, the
 * creator-only hook is a honeypot.
 */

let chain: TestChain;
let rpc: RpcClient;
let launcher: DemoLauncher;
const launched = new Map<string, LaunchedToken>();

beforeAll(async () => {
  chain = await startTestChain({ v4: true });
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  launcher = createDemoLauncher({
    rpcUrl: chain.anvil.rpcUrl,
    privateKey: ANVIL_PRIVATE_KEYS[1],
    uniswap: chain.uniswap,
    v4: chain.v4,
  });
}, 120_000);

afterAll(async () => {
  await launcher?.stop();
  await chain?.stop();
});

const simulate = (token: LaunchedToken) => {
  const config = chain.chainConfig();
  return simulateVenues(rpc, {
    chain: config,
    token: token.address,
    creator: new Wallet(ANVIL_PRIVATE_KEYS[1]).address,
    v4: [
      {
        dex: 'uniswap-v4',
        poolManager: chain.v4!.poolManager,
        id: token.v4!.poolId,
        key: token.v4!.key,
      },
    ],
  });
};

describe('demo launches into Uniswap V4', () => {
  for (const venue of V4_VENUES) {
    it(`launchOne(simple, ${venue}) pools the token in a V4 pool with liquidity`, async () => {
      const token = await launcher.launchOne('simple', { liquidity: true, buy: true, venue });
      launched.set(venue, token);
      expect(token.pair).toBeUndefined();
      expect(token.v4).toMatchObject({ venue });
      expect(token.v4!.hook === null).toBe(venue === 'v4-plain');
      const answer = await rpc.request<string>('eth_call', [
        {
          to: chain.v4!.poolManager,
          data: poolStateCall(chain.v4!.poolManager, token.v4!.poolId).data,
        },
        'latest',
      ]);
      expect(decodePoolState({ ok: true, result: answer })!.liquidity).toBeGreaterThan(0n);
      expect(token.v4!.key.hooks).toBe(token.v4!.hook ?? NO_HOOK);
    });
  }

  it('the monitor sees a clean pool, the fee hook as a tax and the creator-only hook as a honeypot', async () => {
    const plain = (await simulate(launched.get('v4-plain')!)).report;
    expect(plain).toMatchObject({ is_honeypot: false, is_sellable: true, hook: null });
    const fee = (await simulate(launched.get('v4-fee-hook')!)).report;
    expect(fee.is_honeypot).toBe(false);
    expect(fee.sell_tax_pct).toBeCloseTo(2, 1);
    const gate = (await simulate(launched.get('v4-sell-gate')!)).report;
    expect(gate).toMatchObject({ is_honeypot: true, is_sellable: false });
    expect(gate.hook!.effects).toMatchObject({
      sells_blocked: true,
      treats_creator_differently: true,
    });
  });
});
