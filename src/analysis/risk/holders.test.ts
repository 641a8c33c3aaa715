import { describe, expect, it } from 'vitest';
import type { HolderRiskFacts } from './holder-facts.ts';
import { assessRisk } from './risk.ts';
import type { RiskInput } from './weights.ts';

const CREATOR = '0x00000000000000000000000000000000000000aa';
const holders = (over: Partial<NonNullable<HolderRiskFacts['holders']>> = {}) => ({
  holder_count: 20,
  creator_percent: 5,
  owner_percent: 5,
  pools_percent: 40,
  top10_outside_pools_percent: 30,
  block: 10,
  complete: true,
  creator: CREATOR,
  owner: CREATOR,
  ...over,
});
const base: RiskInput = {
  trusted: false,
  static: null,
  behaviour: [],
  simulation: {
    is_buyable: true,
    is_sellable: true,
    buy_tax_pct: 0,
    sell_tax_pct: 0,
    transfer_tax_pct: 0,
    max_tx_amount: null,
    simulated_at: new Date(0).toISOString(),
    error: null,
    is_honeypot: false,
    amounts: [],
  },
  similarHoneypots: 0,
};
const codes = (input: Partial<RiskInput>) =>
  assessRisk({ ...base, ...input })
    .risk_factors.filter((f) => f.points !== 0)
    .map((f) => f.code);

describe('holder factors', () => {
  it('scores a creator holding most of the supply once the token trades, not before', () => {
    const big = holders({ creator_percent: 61, top10_outside_pools_percent: 70 });
    expect(codes({ holderFacts: { holders: big, lp: [], sells: null } })).toEqual([
      'holders:creator',
    ]);
    const before = { ...big, pools_percent: 0 };
    expect(codes({ holderFacts: { holders: before, lp: [], sells: null } })).toEqual([]);
    // Incomplete balances (tracked after creation) prove nothing.
    const partial = { ...big, complete: false };
    expect(codes({ holderFacts: { holders: partial, lp: [], sells: null } })).toEqual([]);
  });

  it('scores concentration beyond what the creator share scored', () => {
    const facts = { holders: holders({ top10_outside_pools_percent: 85 }), lp: [], sells: null };
    const factor = assessRisk({ ...base, holderFacts: facts }).risk_factors.find(
      (f) => f.code === 'holders:concentration',
    );
    expect(factor?.points).toBe(15);
    expect(factor?.evidence[0]?.detail).toContain('85%');
  });

  it('makes a honeypot of real holders who cannot sell while a fresh buyer can', () => {
    const sells = {
      tried: 4,
      failed: 3,
      max_tax_pct: 0,
      block: 10,
      failures: [{ address: CREATOR, reason: 'blocked' }],
      siphoned: [],
    };
    const a = assessRisk({ ...base, holderFacts: { holders: holders(), lp: [], sells } });
    expect(a.level).toBe('honeypot');
    expect(a.risk_factors[0]?.evidence[0]?.detail).toContain(CREATOR);
    const fewer = { ...sells, failed: 1 };
    expect(codes({ holderFacts: { holders: holders(), lp: [], sells: fewer } })).toEqual([
      'holders:sells-failed',
    ]);
  });

  it('reports a siphon, a look-alike and LP held by the creator', () => {
    const sells = {
      tried: 2,
      failed: 0,
      max_tax_pct: 0,
      block: 10,
      failures: [],
      siphoned: [{ address: CREATOR, tracked_balance: '100', balance: '40' }],
    };
    const lp = [
      { pair_address: CREATOR, creator_percent: 90, locked_percent: 0, burned_percent: 0 },
    ];
    const found = codes({
      holderFacts: { holders: holders(), lp, sells },
      lookalike: {
        symbol: 'USDT',
        canonical_address: CREATOR,
        matched: 'symbol',
        name: 'Tether USD',
        own_symbol: 'USDT',
      },
    });
    expect(found.sort()).toEqual(['holders:lp-creator', 'holders:siphon', 'impersonation']);
  });
});
