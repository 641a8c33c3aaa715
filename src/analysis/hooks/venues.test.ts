import { id, parseEther, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addLiquidityV4,
  deployHook,
  fullRangeLiquidity,
  initializePool,
  poolKeyOf,
  sqrtPriceX96Of,
} from '../../../app/embedded/index.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { addLiquidity, startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { HOOK_FLAGS, NO_HOOK, poolId, type V4PoolKey } from '../../dex/v4/index.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { assessRisk } from '../risk/index.ts';
import type { V4Candidate } from '../simulation/index.ts';
import { simulateVenues, type VenueReport } from './venues.ts';

/**
 * The honeypot test through Uniswap V4 pools and their hooks, on Anvil with the real PoolManager
 * (@uniswap/v4-core) and hooks deployed at mined addresses: no hook, a fair fee hook, a hook that
 * lets only the creator sell, a hook behind an upgradeable proxy, and the bad inputs (a hook that
 * reverts every call, a hook address without code, impossible permission bits, no liquidity).
 */

const SUPPLY = parseEther('1000000');
const POOL_ETH = parseEther('10');
const POOL_TOKENS = parseEther('500000');
const FEE = 3000;
const TICK_SPACING = 60;
const FEE_HOOK_BPS = 300n;
const TAX_TOLERANCE_PCT = 0.05;

let chain: TestChain;
let rpc: RpcClient;

interface Launched {
  token: string;
  key: V4PoolKey;
  candidate: V4Candidate;
}

/** A token in a native-currency V4 pool with `hook` (given the token, or fixed), full range. */
async function launch(
  hook: string | ((token: string) => Promise<string>) = NO_HOOK,
  liquidity = true,
): Promise<Launched> {
  const { address: token } = await chain.deploy('SimpleToken', ['Hooked', 'HK', SUPPLY]);
  const hooks = typeof hook === 'string' ? hook : await hook(token);
  const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING, hooks);
  const v4 = chain.v4!;
  await initializePool(chain.signer, v4, key, sqrtPriceX96Of(POOL_ETH, POOL_TOKENS));
  if (liquidity)
    await addLiquidityV4(
      chain.signer,
      v4,
      key,
      fullRangeLiquidity(POOL_ETH, POOL_TOKENS),
      POOL_ETH + parseEther('1'),
    );
  return {
    token,
    key,
    candidate: { dex: 'uniswap-v4', poolManager: v4.poolManager, id: poolId(key), key },
  };
}

const simulate = async (l: Launched, creator: string | null = chain.account) =>
  (
    await simulateVenues(rpc, {
      chain: chain.chainConfig(),
      token: l.token,
      v4: [l.candidate],
      creator,
    })
  ).report;

const risk = (report: VenueReport) =>
  assessRisk({
    trusted: false,
    static: null,
    behaviour: [],
    simulation: report,
    similarHoneypots: 0,
  });

beforeAll(async () => {
  chain = await startTestChain({ v4: true });
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
}, 120_000);

afterAll(() => chain?.stop());

describe('the honeypot test through V4 pools', () => {
  it('trades a pool without a hook at every amount without tax, sending no transaction', async () => {
    const launched = await launch();
    const before = await chain.provider.getBlockNumber();
    const report = await simulate(launched);
    expect(await chain.provider.getBlockNumber()).toBe(before);
    expect(report).toMatchObject({
      is_buyable: true,
      is_sellable: true,
      is_honeypot: false,
      error: null,
      hook: null,
      pool: { dex: 'uniswap-v4', pool_id: launched.candidate.id, hook: null },
    });
    // The pool's own LP fee and price impact are in the quote: nothing is a tax.
    expect(report.buy_tax_pct).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(report.sell_tax_pct).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(report.amounts).toHaveLength(4);
  });

  it('measures a fee hook’s return-delta cut as the buy and sell tax, with no owner control', async () => {
    const flags = HOOK_FLAGS.afterSwap | HOOK_FLAGS.afterSwapReturnDelta;
    const feeTo = Wallet.createRandom().address;
    const launched = await launch(() =>
      deployHook(chain.signer, 'FeeHook', [chain.v4!.poolManager, feeTo, FEE_HOOK_BPS], flags),
    );
    const report = await simulate(launched);
    const hookPct = Number(FEE_HOOK_BPS) / 100;
    expect(report.is_honeypot).toBe(false);
    expect(Math.abs(report.sell_tax_pct! - hookPct)).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(Math.abs(report.buy_tax_pct! - hookPct)).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(report.hook).toMatchObject({
      address: launched.key.hooks,
      flags: '0x0044',
      permissions: ['afterSwap', 'afterSwapReturnDelta'],
      problems: [],
      control: { has_code: true, upgradeable: false, owner_settings: [] },
      effects: { swaps_blocked: false, sells_blocked: false, treats_creator_differently: false },
    });
    const codes = risk(report).risk_factors.map((f) => f.code);
    expect(codes).toEqual(expect.arrayContaining(['sell-tax', 'buy-tax', 'hook-fee']));
    expect(codes).not.toContain('hook_can_change_swaps');
  });

  it('calls a hook that lets only the creator sell a honeypot, with the hook and the creator’s sell as evidence', async () => {
    const launched = await launch((token) =>
      deployHook(
        chain.signer,
        'SellGateHook',
        [chain.v4!.poolManager, token, chain.account],
        HOOK_FLAGS.beforeSwap,
      ),
    );
    const report = await simulate(launched);
    const hook = launched.key.hooks;
    expect(report).toMatchObject({ is_buyable: true, is_sellable: false, is_honeypot: true });
    expect(report.honeypot_reason).toContain(
      `hook ${hook} reverted in beforeSwap: sells are disabled`,
    );
    expect(report.hook!.effects).toMatchObject({
      sells_blocked: true,
      treats_creator_differently: true,
      creator: { sell_ok: true },
    });
    // setSellsOpen is the owner's, and beforeSwap reads what it writes.
    expect(report.hook!.control!.owner_settings).toEqual([
      expect.objectContaining({
        selector: id('setSellsOpen(bool)').slice(2, 10),
        read_by: 'beforeSwap',
      }),
    ]);
    const assessed = risk(report);
    expect(assessed.level).toBe('honeypot');
    const byCode = new Map(assessed.risk_factors.map((f) => [f.code, f]));
    expect(
      byCode
        .get('honeypot')!
        .evidence.map((e) => e.detail)
        .join(' '),
    ).toContain(hook);
    expect(byCode.get('hook-creator-exempt')).toBeDefined();
    expect(byCode.get('hook_can_change_swaps')!.evidence[0]!.detail).toContain('beforeSwap');

    // Without a creator to compare with, the stranger's failed sell still makes the honeypot.
    const anonymous = await simulate(launched, null);
    expect(anonymous.is_honeypot).toBe(true);
    expect(anonymous.hook!.effects!.creator).toBeNull();
  });

  it('reports a hook behind an upgradeable proxy as one its owner can change', async () => {
    const implementation = (
      await chain.deploy('FeeHook', [chain.v4!.poolManager, chain.account, 100n])
    ).address;
    const flags = HOOK_FLAGS.afterSwap | HOOK_FLAGS.afterSwapReturnDelta;
    const launched = await launch(() =>
      deployHook(chain.signer, 'TokenProxy', [implementation, '0x'], flags),
    );
    const report = await simulate(launched);
    expect(report.hook!.control).toMatchObject({ upgradeable: true });
    expect(Math.abs(report.sell_tax_pct! - 1)).toBeLessThan(TAX_TOLERANCE_PCT);
    const factor = risk(report).risk_factors.find((f) => f.code === 'hook_can_change_swaps')!;
    expect(factor.evidence.map((e) => e.detail).join(' ')).toContain(implementation);
  });
});

describe('bad V4 input is a finding, never a failure', () => {
  it('a hook that reverts every call: not buyable, the hook named', async () => {
    const launched = await launch(() =>
      deployHook(chain.signer, 'RevertingHook', [], HOOK_FLAGS.beforeSwap | HOOK_FLAGS.afterSwap),
    );
    const report = await simulate(launched);
    expect(report).toMatchObject({ is_buyable: false, is_honeypot: false, error: null });
    expect(report.hook!.effects).toMatchObject({ swaps_blocked: true });
    expect(report.hook!.effects!.revert).toContain('hook refuses every call');
    const codes = risk(report).risk_factors.map((f) => f.code);
    expect(codes).toEqual(expect.arrayContaining(['not-buyable', 'hook-blocks-swaps']));
  });

  it('a hook address without code: every swap fails, the problem said', async () => {
    // Only beforeSwap: initializing and adding liquidity never call it.
    const eoa = `0x${Wallet.createRandom().address.slice(2, 38)}0080`.toLowerCase();
    const launched = await launch(eoa);
    const report = await simulate(launched);
    expect(report.is_buyable).toBe(false);
    expect(report.hook!.problems).toEqual([
      'the hook address has no code: every call the PoolManager makes to it fails',
    ]);
    expect(report.hook!.effects!.swaps_blocked).toBe(true);
    expect(risk(report).risk_factors.map((f) => f.code)).toContain('hook-invalid');
  });

  it('a recorded pool whose hook has impossible bits: no liquidity, and the hook refused', async () => {
    const { address: token } = await chain.deploy('SimpleToken', ['Bad bits', 'BAD', SUPPLY]);
    // beforeSwapReturnDelta without beforeSwap: the PoolManager never accepts this key.
    const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING, `0x${'12'.repeat(18)}0008`);
    const candidate = {
      dex: 'uniswap-v4',
      poolManager: chain.v4!.poolManager,
      id: poolId(key),
      key,
    };
    const report = await simulate({ token, key, candidate });
    expect(report.error).toBe('no liquidity');
    expect(report.hook!.problems[0]).toContain('impossible permission bits');
    expect(risk(report).risk_factors.map((f) => f.code)).toContain('hook-invalid');
  });

  it('a pool without liquidity: no liquidity, nothing simulated', async () => {
    const launched = await launch(NO_HOOK, false);
    const report = await simulate(launched);
    expect(report).toMatchObject({ error: 'no liquidity', is_honeypot: false, hook: null });
  });

  it('a token with a deeper V2 pair is simulated there, its V4 hook still reported', async () => {
    const launched = await launch((token) =>
      deployHook(
        chain.signer,
        'SellGateHook',
        [chain.v4!.poolManager, token, chain.account],
        HOOK_FLAGS.beforeSwap,
      ),
    );
    await addLiquidity(chain, launched.token, POOL_TOKENS, POOL_ETH * 2n);
    const { report, pool } = await simulateVenues(rpc, {
      chain: chain.chainConfig(),
      token: launched.token,
      v4: [launched.candidate],
      creator: chain.account,
    });
    expect(pool?.dex).toBe('uniswap-v2');
    expect(report.pool?.dex).toBe('uniswap-v2');
    expect(report.is_honeypot).toBe(false);
    expect(report.hook!.effects!.sells_blocked).toBe(true);
  });
});
