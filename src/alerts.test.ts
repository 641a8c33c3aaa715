import { describe, expect, it } from 'vitest';
import { alertEmail, alertKindsOf, alertOf, compareSnapshots, snapshotOf, wantsAlert, ALERT_KINDS } from './alerts.ts';
import type { EventMessage } from './events/types.ts';

const TOKEN = `0x${'aa'.repeat(20)}`;
const OWNER_A = `0x${'01'.repeat(20)}`;
const OWNER_B = `0x${'02'.repeat(20)}`;
const base = { contract_address: TOKEN, chain_id: 1 };

const kinds = (result: ReturnType<typeof compareSnapshots>) => result.alerts.map((a) => a.kind);

describe('compareSnapshots', () => {
  it('derives nothing but the next snapshot from the first payload', () => {
    const result = compareSnapshots(undefined, {
      ...base, total_supply: '1000', current_risk_level: 'low', previous_risk_score: null,
      security_hints: { owner_address: OWNER_A }, trading_simulation: { buy_tax_pct: 1, sell_tax_pct: 2 },
    });
    expect(result.alerts).toEqual([]);
    expect(result.next).toEqual({ total_supply: '1000', risk_level: 'low', owner_address: OWNER_A, buy_tax_pct: 1, sell_tax_pct: 2 });
  });

  it('owner changed: security_hints.owner_address differs (case-insensitive); a renounce is not an alert', () => {
    const previous = { owner_address: OWNER_A };
    expect(kinds(compareSnapshots(previous, { ...base, security_hints: { owner_address: OWNER_B } }))).toEqual(['owner_changed']);
    expect(kinds(compareSnapshots(previous, { ...base, security_hints: { owner_address: OWNER_A.toUpperCase().replace('0X', '0x') } }))).toEqual([]);
    expect(kinds(compareSnapshots(previous, { ...base, security_hints: { owner_address: null } }))).toEqual([]);
    // Renounced, then claimed again.
    expect(kinds(compareSnapshots({ owner_address: null }, { ...base, security_hints: { owner_address: OWNER_B } }))).toEqual(['owner_changed']);
    // No owner field in this payload: the snapshot keeps the old owner.
    const kept = compareSnapshots(previous, { ...base, current_risk_level: 'low' });
    expect(kept.alerts).toEqual([]);
    expect(kept.next.owner_address).toBe(OWNER_A);
  });

  it('tax raised: sell or buy tax up by at least one point', () => {
    const previous = { buy_tax_pct: 2, sell_tax_pct: 5 };
    const raised = compareSnapshots(previous, { ...base, trading_simulation: { buy_tax_pct: 2, sell_tax_pct: 25 } });
    expect(kinds(raised)).toEqual(['tax_raised']);
    expect(raised.alerts[0]!.detail).toEqual({ previous_sell_tax_pct: 5, sell_tax_pct: 25 });
    expect(kinds(compareSnapshots(previous, { ...base, trading_simulation: { buy_tax_pct: 10, sell_tax_pct: 5 } }))).toEqual(['tax_raised']);
    expect(kinds(compareSnapshots(previous, { ...base, trading_simulation: { buy_tax_pct: 2.5, sell_tax_pct: 5.9 } }))).toEqual([]);
    expect(kinds(compareSnapshots(previous, { ...base, trading_simulation: { buy_tax_pct: 0, sell_tax_pct: 1 } }))).toEqual([]);
    expect(kinds(compareSnapshots(previous, { ...base, trading_simulation: { buy_tax_pct: null, sell_tax_pct: null } }))).toEqual([]);
  });

  it('mint after launch: total_supply larger than the first snapshot', () => {
    const previous = { total_supply: '1000000000000000000000000' };
    expect(kinds(compareSnapshots(previous, { ...base, total_supply: '1000000000000000000000001' }))).toEqual(['mint_after_launch']);
    expect(kinds(compareSnapshots(previous, { ...base, total_supply: '1000000000000000000000000' }))).toEqual([]);
    expect(kinds(compareSnapshots(previous, { ...base, total_supply: '999' }))).toEqual([]);
    expect(kinds(compareSnapshots(previous, { ...base, total_supply: null }))).toEqual([]);
  });

  it('risk level changed: against the snapshot, else previous_risk_score; honeypot is left to its own alert', () => {
    expect(kinds(compareSnapshots({ risk_level: 'low' }, { ...base, current_risk_level: 'high' }))).toEqual(['risk_level_changed']);
    expect(kinds(compareSnapshots({ risk_level: 'low' }, { ...base, current_risk_level: 'low' }))).toEqual([]);
    expect(kinds(compareSnapshots({ risk_level: 'low' }, { ...base, current_risk_level: 'honeypot' }))).toEqual([]);
    // No snapshot yet: the level of previous_risk_score (20 → low).
    const first = compareSnapshots(undefined, { ...base, current_risk_level: 'medium', previous_risk_score: 20 });
    expect(kinds(first)).toEqual(['risk_level_changed']);
    expect(first.alerts[0]!.detail).toEqual({ previous_risk_level: 'low', current_risk_level: 'medium' });
    expect(kinds(compareSnapshots(undefined, { ...base, current_risk_level: 'medium', previous_risk_score: null }))).toEqual([]);
    // A DEX update carries no level: nothing, and the level is kept.
    const dex = compareSnapshots({ risk_level: 'high' }, { ...base, current_risk_score: 80 });
    expect(dex.alerts).toEqual([]);
    expect(dex.next.risk_level).toBe('high');
  });

  it('several changes in one payload give several alerts', () => {
    const result = compareSnapshots(
      { risk_level: 'low', owner_address: OWNER_A, sell_tax_pct: 0, total_supply: '10' },
      { ...base, current_risk_level: 'high', security_hints: { owner_address: OWNER_B }, trading_simulation: { sell_tax_pct: 50 }, total_supply: '20' },
    );
    expect(kinds(result).sort()).toEqual(['mint_after_launch', 'owner_changed', 'risk_level_changed', 'tax_raised']);
  });

  it('snapshotOf ignores malformed fields', () => {
    expect(snapshotOf({ total_supply: '1e18', security_hints: 'x', trading_simulation: { sell_tax_pct: 'NaN' }, current_risk_level: 3 })).toEqual({});
  });
});

describe('alertOf', () => {
  const event = (data: Record<string, unknown>, id = '1700000000000-0'): EventMessage =>
    ({ id, type: 'alert', ts: new Date().toISOString(), data: { ...base, message: 'm', ...data } as EventMessage['data'] });

  it('keys: honeypot once per token, liquidity per bucket, derived by their own key, else stream id + kind', () => {
    expect(alertOf(event({ kind: 'honeypot' }))!.key).toBe(`honeypot:1:${TOKEN}`);
    expect(alertOf(event({ kind: 'honeypot' }, '1700000000001-0'))!.key).toBe(`honeypot:1:${TOKEN}`);
    expect(alertOf(event({ kind: 'rug', bucket_at: '2024-01-01T00:00:00.000Z' }))!.key).toBe(`rug:1:${TOKEN}:2024-01-01T00:00:00.000Z`);
    expect(alertOf(event({ kind: 'liquidity_pull' }))!.key).toBe('1700000000000-0:liquidity_pull');
    expect(alertOf(event({ kind: 'owner_changed', alert_key: 'k1' }))!.key).toBe('k1');
  });

  it('ignores other events and unknown kinds', () => {
    expect(alertOf(event({ kind: 'something_else' }))).toBeUndefined();
    expect(alertOf({ ...event({ kind: 'honeypot' }), type: 'token.updated' })).toBeUndefined();
  });
});

describe('preferences', () => {
  it('every kind unless alert_kinds narrows them', () => {
    expect(alertKindsOf({})).toEqual([...ALERT_KINDS]);
    expect(alertKindsOf(null)).toEqual([...ALERT_KINDS]);
    expect(wantsAlert({ alert_kinds: ['honeypot'] }, 'honeypot')).toBe(true);
    expect(wantsAlert({ alert_kinds: ['honeypot'] }, 'rug')).toBe(false);
    expect(wantsAlert({ alert_kinds: ['bogus'] }, 'rug')).toBe(true);
  });

  it('the email names the token, the chain and the alert', () => {
    const mail = alertEmail(alertOf(event())!, 'a@example.com', 'alerts@token-monitor.local');
    expect(mail.subject).toContain('Honeypot detected');
    expect(mail.text).toContain(TOKEN);
    function event(): EventMessage {
      return { id: '1-0', type: 'alert', ts: '', data: { ...base, kind: 'honeypot', message: 'honeypot detected' } };
    }
  });
});
