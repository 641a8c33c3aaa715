import { AbiCoder } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { startFaultProxy } from '../../../test/support/fault-proxy.ts';
import { type CorpusToken, deployCorpusToken, MAX_TX } from '../../../test/support/token-corpus.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import {
  amountsFor,
  decodeRevert,
  ERRORS,
  findPool,
  type Pool,
  type RawResult,
  simulateTrading,
  summarize,
} from './simulation.ts';

/** The honeypot test on real Anvil, real compiled tokens and a real Uniswap V2 router. */

const TAX_TOLERANCE_PCT = 0.05;

let chain: TestChain;
let rpc: RpcClient;
const tokens = new Map<string, CorpusToken>();

beforeAll(async () => {
  chain = await startTestChain();
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  for (const kind of [
    'simple',
    'fixed-tax',
    'tax',
    'tax-punitive',
    'honeypot',
    'tiered-honeypot',
    'trading-disabled',
    'max-tx',
  ]) {
    tokens.set(kind, await deployCorpusToken(chain, kind));
  }
  tokens.set('no-liquidity', await deployCorpusToken(chain, 'simple', 1, { liquidity: false }));
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

const simulate = (kind: string) =>
  simulateTrading(rpc, { chain: chain.chainConfig(), token: tokens.get(kind)!.address });

describe('simulateTrading', () => {
  it('buys, transfers and sells an honest token at every amount without tax, sending no transaction', async () => {
    const before = await chain.provider.getBlockNumber();
    const { report, pool } = await simulate('simple');
    expect(await chain.provider.getBlockNumber()).toBe(before);
    expect(pool?.pair).toBe(tokens.get('simple')!.pair);
    expect(report).toMatchObject({
      is_buyable: true,
      is_sellable: true,
      is_honeypot: false,
      buy_tax_pct: 0,
      sell_tax_pct: 0,
      transfer_tax_pct: 0,
      max_tx_amount: null,
      error: null,
    });
    expect(report.amounts).toHaveLength(amountsFor(pool!.nativeReserve).length);
    for (const a of report.amounts)
      expect(a).toMatchObject({ buy_ok: true, sell_ok: true, transfer_ok: true, error: null });
    expect(report.gas!.buy).toBeGreaterThan(50_000);
    expect(report.gas!.sell).toBeGreaterThan(50_000);
    expect(report.gas!.transfer).toBeGreaterThan(20_000);
  });

  it('measures buy, sell and transfer taxes', async () => {
    const fixed = (await simulate('fixed-tax')).report;
    expect(fixed.buy_tax_pct).toBeCloseTo(3, 1);
    expect(fixed.sell_tax_pct).toBeCloseTo(5, 1);
    expect(fixed.transfer_tax_pct).toBe(0);
    const tax = (await simulate('tax')).report;
    expect(Math.abs(tax.buy_tax_pct! - 5)).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(Math.abs(tax.sell_tax_pct! - 10)).toBeLessThan(TAX_TOLERANCE_PCT);
    expect(tax.is_honeypot).toBe(false);
  });

  it('calls a 95 % sell tax a honeypot', async () => {
    const { report } = await simulate('tax-punitive');
    expect(report.is_buyable).toBe(true);
    expect(report.sell_tax_pct).toBeGreaterThanOrEqual(90);
    expect(report.is_honeypot).toBe(true);
    expect(report.honeypot_reason).toMatch(/sell tax/);
  });

  it('finds a sell-blocking honeypot and keeps its revert reason', async () => {
    const { report } = await simulate('honeypot');
    expect(report).toMatchObject({ is_buyable: true, is_sellable: false, is_honeypot: true });
    expect(report.amounts.every((a) => a.buy_ok && !a.sell_ok)).toBe(true);
    // The router wraps the token's revert in its own.
    expect(report.amounts[0]!.error).toBe('sell reverted: TransferHelper: TRANSFER_FROM_FAILED');
  });

  it('finds a tiered honeypot that lets small sells through', async () => {
    const { report } = await simulate('tiered-honeypot');
    expect(report.amounts[0]).toMatchObject({ buy_ok: true, sell_ok: true });
    expect(report.amounts.some((a) => a.buy_ok && !a.sell_ok)).toBe(true);
    expect(report).toMatchObject({ is_sellable: false, is_honeypot: true });
  });

  it('reports a token whose trading is not enabled as not buyable, not as a honeypot', async () => {
    const { report } = await simulate('trading-disabled');
    expect(report).toMatchObject({
      is_buyable: false,
      is_sellable: null,
      is_honeypot: false,
      error: null,
    });
    expect(report.amounts[0]!.error).toContain('TRANSFER_FAILED'); // the pair's transfer failed inside the router
  });

  it('detects the max tx amount by bisection', async () => {
    const { report } = await simulate('max-tx');
    expect(report.is_buyable).toBe(true);
    expect(report.is_honeypot).toBe(false);
    const max = BigInt(report.max_tx_amount!);
    expect(max).toBeLessThanOrEqual(MAX_TX);
    // Ten bisection steps over one decade of amounts: within 2 % of the real limit.
    expect(Number(max)).toBeGreaterThan(Number(MAX_TX) * 0.98);
  });

  it('runs the whole test — pool, every amount, the max-tx bisection — in one eth_call', async () => {
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const counted = createRpcClient({ urls: [proxy.url] });
      const token = tokens.get('max-tx')!.address;
      const { report } = await simulateTrading(counted, { chain: chain.chainConfig(), token });
      expect(report.max_tx_amount).not.toBeNull();
      expect(report.amounts.length).toBeGreaterThan(1);
      expect([...proxy.calls]).toEqual([['eth_call', 1]]);
    } finally {
      await proxy.close();
    }
  });

  it("says 'no liquidity' without a pool", async () => {
    const address = tokens.get('no-liquidity')!.address;
    expect(await findPool(rpc, chain.chainConfig(), address)).toBeNull();
    const { report } = await simulateTrading(rpc, { chain: chain.chainConfig(), token: address });
    expect(report).toMatchObject({
      error: ERRORS.noLiquidity,
      is_buyable: null,
      is_sellable: null,
      is_honeypot: false,
      amounts: [],
    });
  });

  it('refuses to trade the wrapped native token against itself', async () => {
    const { report } = await simulateTrading(rpc, {
      chain: chain.chainConfig(),
      token: chain.uniswap.weth,
    });
    expect(report.error).toBe(ERRORS.wrappedNative);
  });
});

describe('decodeRevert', () => {
  it('reads Error(string), Panic(uint256), custom errors and empty data', () => {
    expect(
      decodeRevert(`0x08c379a0${'0'.repeat(62)}20${'0'.repeat(63)}26869${'0'.repeat(60)}`),
    ).toBe('hi');
    expect(decodeRevert(`0x4e487b71${'0'.repeat(62)}11`)).toBe('panic 0x11');
    expect(decodeRevert('0xdeadbeef')).toBe('custom error 0xdeadbeef');
    expect(decodeRevert('0x')).toBe('reverted without a reason');
  });
});

describe('summarize', () => {
  const pool: Pool = {
    dex: 'v2',
    factory: '0xf',
    router: '0xr',
    pair: '0xp',
    weth: '0xw',
    nativeReserve: 10n ** 19n,
    tokenReserve: 10n ** 24n,
  };
  const ok = { ok: true, revertData: '0x', gasUsed: 100_000n };
  const reverted = (reason: string) => ({
    ok: false,
    revertData: `0x08c379a0${AbiCoder.defaultAbiCoder().encode(['string'], [reason]).slice(2)}`,
    gasUsed: 50_000n,
  });
  const raw = (r: Partial<RawResult> = {}): RawResult => ({
    buy: ok,
    buyExpected: 1_000n,
    buyReceived: 1_000n,
    transfer: ok,
    transferSent: 100n,
    transferReceived: 100n,
    sell: ok,
    sellAmount: 900n,
    sellPairReceived: 900n,
    sellExpectedEth: 10n ** 15n,
    sellEthReceived: 10n ** 15n,
    ...r,
  });
  const now = new Date('2025-01-01T00:00:00Z');

  it('takes the worst tax over the amounts and the gas of the smallest buy', () => {
    const report = summarize(
      [
        { amountIn: 1n, raw: raw({ buyReceived: 950n }) },
        {
          amountIn: 2n,
          raw: raw({ buyReceived: 900n, sellPairReceived: 810n, buy: { ...ok, gasUsed: 7n } }),
        },
      ],
      pool,
      now,
      null,
    );
    expect(report).toMatchObject({
      buy_tax_pct: 10,
      sell_tax_pct: 10,
      transfer_tax_pct: 0,
      is_honeypot: false,
      gas: { buy: 100_000 },
    });
  });

  it("keeps a whole-call revert as that amount's error and summarizes the rest", () => {
    const report = summarize(
      [
        { amountIn: 1n, error: 'simulation call reverted: out of gas' },
        { amountIn: 2n, raw: raw() },
      ],
      pool,
      now,
      null,
    );
    expect(report.amounts[0]!.error).toMatch(/out of gas/);
    expect(report).toMatchObject({ is_buyable: true, is_sellable: true, error: null });
    const none = summarize(
      [{ amountIn: 1n, error: 'simulation call reverted: x' }],
      pool,
      now,
      null,
    );
    expect(none).toMatchObject({ is_buyable: null, error: 'simulation call reverted: x' });
  });

  it('calls nothing received a failed sell (a 100 % buy tax traps the buyer)', () => {
    const report = summarize(
      [
        {
          amountIn: 1n,
          raw: raw({
            buyReceived: 0n,
            sellAmount: 0n,
            sellPairReceived: 0n,
            transferSent: 0n,
            sell: reverted('nothing to sell'),
          }),
        },
      ],
      pool,
      now,
      null,
    );
    expect(report).toMatchObject({ buy_tax_pct: 100, is_sellable: false, is_honeypot: true });
  });
});
