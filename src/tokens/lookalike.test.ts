import { describe, expect, it } from 'vitest';
import { findLookalike, foldName } from './lookalike.ts';

const USDT = {
  symbol: 'USDT',
  name: 'Tether USD',
  address: '0xdac17f958d2ee523a2206206994597c13d831ec7',
};
const WETH = {
  symbol: 'WETH',
  name: 'Wrapped Ether',
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
};
const OTHER = '0x00000000000000000000000000000000000000aa';

describe('findLookalike', () => {
  it('flags a copy of a known symbol or name at another address', () => {
    expect(findLookalike({ address: OTHER, name: 'Tether', symbol: 'USDT' }, [WETH, USDT])).toEqual(
      {
        symbol: 'USDT',
        canonical_address: USDT.address,
        matched: 'symbol',
      },
    );
    expect(
      findLookalike({ address: OTHER, name: 'wrapped ether', symbol: 'W-ETH2' }, [WETH]),
    ).toEqual({
      symbol: 'WETH',
      canonical_address: WETH.address,
      matched: 'name',
    });
  });

  it('sees through Cyrillic letters, full-width forms, case and punctuation', () => {
    expect(foldName('UЅDТ')).toBe('USDT');
    expect(foldName('ＵＳＤＴ')).toBe('USDT');
    expect(foldName('$usdt.')).toBe('USDT');
    expect(findLookalike({ address: OTHER, name: null, symbol: 'UЅDТ' }, [USDT])?.symbol).toBe(
      'USDT',
    );
  });

  it('leaves the canonical token itself, other names and too-short names alone', () => {
    expect(findLookalike({ ...USDT, address: USDT.address.toUpperCase() }, [USDT])).toBeNull();
    expect(
      findLookalike({ address: OTHER, name: 'Moon Inu', symbol: 'MOIN' }, [USDT, WETH]),
    ).toBeNull();
    expect(
      findLookalike({ address: OTHER, name: 'T', symbol: 'U$' }, [
        { ...USDT, symbol: 'U', name: 'T' },
      ]),
    ).toBeNull();
  });
});
