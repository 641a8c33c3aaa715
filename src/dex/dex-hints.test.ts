import { describe, expect, it } from 'vitest';
import { buyUrl, dexHints, liquidityLock, valueToken } from './dex-hints.ts';
import type { TokenChainState } from './reader.ts';

const TOKEN = '0x1000000000000000000000000000000000000001';
const WETH = '0x2000000000000000000000000000000000000002';
const USDC = '0x3000000000000000000000000000000000000003';
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

function state(): TokenChainState {
  return {
    blockNumber: 100,
    totalSupply: 1_000_000n * E18,
    burnedSupply: 100_000n * E18,
    decimals: new Map([
      [TOKEN, 18],
      [WETH, 18],
      [USDC, 6],
    ]),
    pools: [
      {
        // 400 000 tokens / 20 WETH at 3 000: price 0.15, liquidity 120 000; half its LP burned, a quarter locked.
        ref: {
          dex: 'uniswap-v2',
          kind: 'v2',
          address: '0xaaaa',
          token0: TOKEN,
          token1: WETH,
          fee: null,
        },
        quote: WETH,
        reading: { amount0: 400_000n * E18, amount1: 20n * E18 },
        lp: {
          totalSupply: 1_000n,
          burned: 500n,
          locked: [{ name: 'unicrypt', address: '0xlock', amount: 250n }],
        },
      },
      {
        // 100 000 tokens / 14 000 USDC: price 0.14, liquidity 28 000; nothing locked.
        ref: {
          dex: 'uniswap-v2',
          kind: 'v2',
          address: '0xbbbb',
          token0: TOKEN,
          token1: USDC,
          fee: null,
        },
        quote: USDC,
        reading: { amount0: 100_000n * E18, amount1: 14_000n * E6 },
        lp: { totalSupply: 1_000n, burned: 0n, locked: [] },
      },
      {
        // An empty V3 pool: discovered, not a trading pair.
        ref: {
          dex: 'uniswap-v3',
          kind: 'v3',
          address: '0xcccc',
          token0: TOKEN,
          token1: WETH,
          fee: 3000,
        },
        quote: WETH,
        reading: { amount0: 0n, amount1: 0n, sqrtPriceX96: 0n, liquidity: 0n },
        lp: null,
      },
    ],
  };
}

const prices = new Map([
  [WETH, 3_000],
  [USDC, 1],
]);

describe('valueToken and dexHints', () => {
  it('prices from the deepest pair, sums liquidity, and computes the market cap without burned supply', () => {
    const figures = valueToken(TOKEN, state(), prices);
    expect(figures.priceUsd).toBeCloseTo(0.15, 12);
    expect(figures.liquidityUsd).toBeCloseTo(120_000 + 28_000, 6);
    expect(figures.marketCapUsd).toBeCloseTo(0.15 * 900_000, 4);
    const hints = dexHints(figures, {
      chainId: 1,
      token: TOKEN,
      dexes: [{ name: 'uniswap-v2', kind: 'v2', factory: '0xf' }],
      volume24hUsd: 1234.567,
    });
    expect(hints).toMatchObject({
      is_tradable: true,
      has_liquidity: true,
      has_v3_liquidity: false,
      total_liquidity_usd: 148_000,
      num_trading_pairs: 2,
      main_trading_pair: '0xaaaa',
      recommended_dex: 'uniswap-v2',
      volume_24h_usd: 1234.57,
      buy_url: `https://app.uniswap.org/swap?chain=mainnet&outputCurrency=${TOKEN}`,
    });
    expect(
      hints.trading_pairs.map((p) => [p.pair_address, p.quote_token, p.liquidity_usd]),
    ).toEqual([
      ['0xaaaa', WETH, 120_000],
      ['0xbbbb', USDC, 28_000],
    ]);
    expect(hints.trading_pairs[1]!.price_usd).toBeCloseTo(0.14, 12);
  });

  it('weights LP burned and locked shares by pair liquidity', () => {
    const lock = liquidityLock(valueToken(TOKEN, state(), prices));
    const w = 120_000 / 148_000;
    expect(lock.burned_pct).toBeCloseTo(50 * w, 2);
    expect(lock.locked_pct).toBeCloseTo(25 * w, 2);
    expect(lock.lockers).toEqual([
      { name: 'unicrypt', address: '0xlock', pair_address: '0xaaaa', locked_pct: 25 },
    ]);
  });

  it('reports no liquidity and no lock data for a token without pools', () => {
    const empty = { ...state(), pools: [] };
    const figures = valueToken(TOKEN, empty, prices);
    expect(
      dexHints(figures, { chainId: 1, token: TOKEN, dexes: [], volume24hUsd: null }),
    ).toMatchObject({
      is_tradable: false,
      has_liquidity: false,
      total_liquidity_usd: 0,
      token_price_usd: null,
      num_trading_pairs: 0,
      main_trading_pair: null,
      buy_url: null,
    });
    expect(liquidityLock(figures)).toEqual({ locked_pct: null, burned_pct: null, lockers: [] });
  });

  it('builds buy URLs by DEX and chain, a configured template first', () => {
    expect(buyUrl({ name: 'pancakeswap-v3', kind: 'v3', factory: '0xf' }, 56, TOKEN)).toContain(
      'pancakeswap.finance',
    );
    expect(buyUrl({ name: 'quickswap-v2', kind: 'v2', factory: '0xf' }, 137, TOKEN)).toContain(
      'quickswap.exchange',
    );
    expect(buyUrl({ name: 'uniswap-v2', kind: 'v2', factory: '0xf' }, 31337, TOKEN)).toBeNull();
    expect(
      buyUrl(
        { name: 'x', kind: 'v2', factory: '0xf', buy_url: 'https://dex.example/buy/{token}' },
        31337,
        TOKEN,
      ),
    ).toBe(`https://dex.example/buy/${TOKEN}`);
  });
});
