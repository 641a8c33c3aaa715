import { describe, expect, it } from 'vitest';
import { formatUsd, type MonitoringInput, monitoringRecommendations } from './monitoring.ts';

const quiet: MonitoringInput = {
  is_honeypot: false,
  has_mint_function: false,
  has_pause_function: false,
  has_blacklist_function: false,
  is_proxy: false,
  ownership_renounced: true,
  hidden_owner: false,
  fee_modifiable: false,
  has_max_tx_limit: false,
  trading_restricted: false,
  owner_can_change_balance: false,
  owner_address: null,
  buy_tax_pct: 0,
  sell_tax_pct: 0,
  price_usd: 2,
  liquidity_usd: 100_000,
  liquidity_secured_pct: 95,
};

describe('monitoringRecommendations', () => {
  it('a renounced, locked, untaxed token: nothing to watch but the price and liquidity levels', () => {
    expect(monitoringRecommendations(quiet)).toEqual({
      risk_monitoring: [],
      price_alerts: [
        'Price below $1.60 (20% under $2.00)',
        'Price above $3.00 (50% over $2.00)',
        'Liquidity below $70,000 (30% under $100,000)',
      ],
    });
  });

  it('each flag adds what to watch, naming the owner and the taxes', () => {
    const owner = '0x00000000000000000000000000000000000000aa';
    const { risk_monitoring } = monitoringRecommendations({
      ...quiet,
      has_mint_function: true,
      has_pause_function: true,
      has_blacklist_function: true,
      is_proxy: true,
      fee_modifiable: true,
      ownership_renounced: false,
      owner_address: owner,
      buy_tax_pct: 3,
      sell_tax_pct: 12,
      liquidity_secured_pct: 10,
    });
    expect(risk_monitoring).toEqual([
      `Mint function: watch total supply and Transfer events from the zero address (${owner})`,
      'Blacklist function: watch blacklist transactions that could freeze your wallet',
      'Pause function: watch Paused events, which stop all transfers',
      'Modifiable tax: watch fee changes by the owner (now buy 3%, sell 12%)',
      'Upgradeable proxy: watch Upgraded events, the rules can change with a new implementation',
      `Owned contract: watch transactions from the owner ${owner} and ownership transfers`,
      'Only 10% of the liquidity is locked or burned: watch liquidity removals',
    ]);
  });

  it('a honeypot is said first; a fixed high tax is still worth a line', () => {
    const r = monitoringRecommendations({ ...quiet, is_honeypot: true, sell_tax_pct: 99 });
    expect(r.risk_monitoring[0]).toMatch(/^Honeypot/);
    expect(r.risk_monitoring).toContain(
      'High tax (buy 0%, sell 99%): account for it on every trade',
    );
  });

  it('no liquidity and no price: watch for the first pool, no price levels', () => {
    const r = monitoringRecommendations({
      ...quiet,
      price_usd: null,
      liquidity_usd: null,
      liquidity_secured_pct: null,
    });
    expect(r).toEqual({
      risk_monitoring: ['No liquidity yet: watch for the first pool, then re-check the simulation'],
      price_alerts: [],
    });
  });

  it('unknown flags (null) advise nothing rather than guess', () => {
    const unknown = Object.fromEntries(
      Object.keys(quiet).map((k) => [k, null]),
    ) as unknown as MonitoringInput;
    expect(monitoringRecommendations({ ...unknown, liquidity_usd: 5 }).risk_monitoring).toEqual([]);
  });
});

describe('formatUsd', () => {
  it('keeps significant digits of tiny prices and groups large amounts', () => {
    expect(formatUsd(0.0000123456)).toBe('$0.00001235');
    expect(formatUsd(1.5)).toBe('$1.50');
    expect(formatUsd(1234567.8)).toBe('$1,234,568');
    expect(formatUsd(0)).toBe('$0');
  });
});
