import { describe, expect, it } from 'vitest';
import { type PoolRef, relativeChange, v2Price1Per0, v3Price1Per0, valuePool } from './pricing.ts';

const TOKEN = '0x1000000000000000000000000000000000000001';
const WETH = '0x2000000000000000000000000000000000000002';
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

describe('V2 and V3 spot prices', () => {
  it('reads token1 per token0 from reserves, in whole tokens', () => {
    // 1 000 000 tokens (18 decimals) against 2 000 USDC (6 decimals): 0.002 USDC per token.
    expect(v2Price1Per0(1_000_000n * E18, 2_000n * E6, 18, 6)).toBeCloseTo(0.002, 15);
    expect(v2Price1Per0(0n, 5n, 18, 18)).toBeNull();
  });

  it('reads token1 per token0 from sqrtPriceX96', () => {
    // sqrtPriceX96 = 2^96 means raw1/raw0 = 1; with decimals 18/6 that is 1e12 token1 per token0.
    expect(v3Price1Per0(2n ** 96n, 18, 18)).toBe(1);
    expect(v3Price1Per0(2n ** 96n, 18, 6)).toBeCloseTo(1e12, 0);
    // sqrt(4) · 2^96 → 4.
    expect(v3Price1Per0(2n * 2n ** 96n, 18, 18)).toBe(4);
    expect(v3Price1Per0(0n, 18, 18)).toBeNull();
  });
});

describe('valuePool', () => {
  const v2: PoolRef = {
    dex: 'uniswap-v2',
    kind: 'v2',
    address: '0xp',
    token0: TOKEN,
    token1: WETH,
    fee: null,
  };

  it('prices the base token against its quote whichever side it is on', () => {
    const reading = { amount0: 500_000n * E18, amount1: 10n * E18 };
    const v = valuePool(v2, reading, TOKEN, { base: 18, quote: 18 }, 3_000);
    expect(v.priceInQuote).toBeCloseTo(10 / 500_000, 18);
    expect(v.priceUsd).toBeCloseTo((10 / 500_000) * 3_000, 12);
    // Both sides: 10 WETH at 3 000 plus 500 000 tokens at the pool price, i.e. twice the quote side.
    expect(v.liquidityUsd).toBeCloseTo(60_000, 6);
    expect(v.hasLiquidity).toBe(true);

    const flipped: PoolRef = { ...v2, token0: WETH, token1: TOKEN };
    const w = valuePool(
      flipped,
      { amount0: reading.amount1, amount1: reading.amount0 },
      TOKEN,
      { base: 18, quote: 18 },
      3_000,
    );
    expect(w.priceUsd).toBeCloseTo(v.priceUsd!, 12);
    expect(w.liquidityUsd).toBeCloseTo(60_000, 6);
  });

  it('gives a price but no USD figures when the quote has no USD price', () => {
    const v = valuePool(v2, { amount0: E18, amount1: E18 }, TOKEN, { base: 18, quote: 18 }, null);
    expect(v.priceInQuote).toBe(1);
    expect(v.priceUsd).toBeNull();
    expect(v.liquidityUsd).toBeNull();
  });

  it('treats an emptied pool as no liquidity', () => {
    const v = valuePool(v2, { amount0: 0n, amount1: 0n }, TOKEN, { base: 18, quote: 18 }, 3_000);
    expect(v).toMatchObject({ hasLiquidity: false, priceUsd: null, liquidityUsd: 0 });
  });

  it('prices V3 from slot0 and values its balances; no in-range liquidity means no price', () => {
    const v3: PoolRef = {
      dex: 'uniswap-v3',
      kind: 'v3',
      address: '0xq',
      token0: TOKEN,
      token1: WETH,
      fee: 3000,
    };
    // price 0.0004 WETH per token: sqrtPriceX96 = 0.02 · 2^96.
    const sqrtPriceX96 = (2n ** 96n * 2n) / 100n;
    const reading = {
      amount0: 1_000n * E18,
      amount1: (2n * E18) / 5n,
      sqrtPriceX96,
      liquidity: 10n ** 20n,
    };
    const v = valuePool(v3, reading, TOKEN, { base: 18, quote: 18 }, 2_500);
    expect(v.priceInQuote).toBeCloseTo(0.0004, 12);
    expect(v.priceUsd).toBeCloseTo(1, 9);
    expect(v.liquidityUsd).toBeCloseTo(1_000 * 1 + 0.4 * 2_500, 6);
    const idle = valuePool(
      v3,
      { ...reading, liquidity: 0n },
      TOKEN,
      { base: 18, quote: 18 },
      2_500,
    );
    expect(idle).toMatchObject({ hasLiquidity: false, priceUsd: null });
  });
});

describe('relativeChange', () => {
  it('measures moves as fractions, from zero as infinite', () => {
    expect(relativeChange(100, 105)).toBeCloseTo(0.05);
    expect(relativeChange(100, 40)).toBeCloseTo(0.6);
    expect(relativeChange(0, 0)).toBe(0);
    expect(relativeChange(0, 1)).toBe(Number.POSITIVE_INFINITY);
  });
});
