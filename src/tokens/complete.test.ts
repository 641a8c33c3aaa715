import { describe, expect, it } from 'vitest';
import { detailHolders } from './complete.ts';

const HOLDER = '0x00000000000000000000000000000000000000aa';
const stored = {
  holders: {
    holders: {
      holder_count: 3,
      top_holders: [
        { address: HOLDER, balance: '10', percent: 50, is_contract: false, tag: 'creator' },
      ],
      creator_percent: 50,
      owner_percent: 50,
      contract_percent: 0,
      burned_percent: 0,
      pools_percent: 40,
      top10_outside_pools_percent: 60,
      block: 9,
      complete: true,
    },
    lp_holders: [],
  },
  tradingSimulation: {
    holder_sells: {
      tried: 2,
      failed: 1,
      average_tax_pct: 1,
      max_tax_pct: 2,
      block: 9,
      holder_count: 3,
      failures: [{ address: HOLDER, reason: 'TRANSFER_FAILED' }],
      siphoned: [],
      simulated_at: new Date(0).toISOString(),
    },
  },
  securityHints: { impersonates: { symbol: 'USDT', canonical_address: HOLDER, matched: 'symbol' } },
};

describe('detailHolders: the holder parts of the general detail by plan', () => {
  it('PRO: everything, BASIC: the shares and counts without the lists, FREE: nothing', () => {
    const all = detailHolders(stored, 'all');
    expect((all.holders as { top_holders: unknown[] }).top_holders).toHaveLength(1);
    expect(all.holder_sells).toMatchObject({ failures: [{ address: HOLDER }] });
    expect(all.lp_holders).toEqual([]);

    const summary = detailHolders(stored, 'summary');
    expect(summary.holders).not.toHaveProperty('top_holders');
    expect(summary.holders).toMatchObject({ holder_count: 3, creator_percent: 50 });
    expect(summary.holder_sells).toEqual({
      tried: 2,
      failed: 1,
      average_tax_pct: 1,
      max_tax_pct: 2,
      block: 9,
    });
    expect(summary.lp_holders).toBeNull();
    expect(summary.impersonates).toEqual({
      symbol: 'USDT',
      canonical_address: HOLDER,
      matched: 'symbol',
    });

    expect(detailHolders(stored, 'none')).toEqual({
      holders: null,
      lp_holders: null,
      holder_sells: null,
      impersonates: null,
    });
  });
});
