import { describe, expect, it } from 'vitest';
import {
  ALERT_KINDS,
  alertEmail,
  alertKindsOf,
  alertOf,
  compareSnapshots,
  snapshotOf,
  wantsAlert,
} from './alerts.ts';
import type { AlertData, EventMessage, TokenUpdatedData } from './events/types.ts';

const TOKEN = `0x${'aa'.repeat(20)}`;
const OWNER_A = `0x${'01'.repeat(20)}`;
const OWNER_B = `0x${'02'.repeat(20)}`;
const base = { contract_address: TOKEN, chain_id: 1 };

const kinds = (result: ReturnType<typeof compareSnapshots>) => result.alerts.map((a) => a.kind);

/** A risk-stage token.updated payload with the fields a test names. */
function risk(
  fields: {
    level?: string | null;
    owner?: string | null;
    buy?: number | null;
    sell?: number | null;
    supply?: string | null;
    previousScore?: number | null;
  } = {},
): TokenUpdatedData {
  const nulls = Object.fromEntries(
    [
      'contract_template',
      'security_risk_score',
      'ownership_renounced',
      'has_pause_function',
      'has_blacklist_function',
      'has_mint_function',
      'is_proxy',
      'fee_modifiable',
      'has_max_tx_limit',
      'trading_restricted',
      'owner_can_change_balance',
      'hidden_owner',
      'creator_reputation_score',
      'liquidity_lock',
      'selfdestruct',
      'external_call',
      'is_open_source',
    ].map((k) => [k, null]),
  );
  return {
    ...base,
    source: 'risk',
    changes: ['risk'],
    full_token_data: {
      token: {
        name: 'T',
        symbol: 'T',
        decimals: 18,
        total_supply: fields.supply === undefined ? '1000' : fields.supply,
      },
      block_timestamp: null,
      creation: {
        block_timestamp: null,
        tx_hash: null,
        creator: null,
        creator_is_contract: null,
        block_number: null,
        gas_used: null,
        bytecode_hash: null,
        code_len: null,
        proxy_like: null,
      },
      born_block: null,
    },
    current_risk_level: fields.level === undefined ? 'low' : fields.level,
    current_risk_score: 10,
    is_honeypot: false,
    current_liquidity_usd: null,
    is_actively_traded: false,
    price_usd: null,
    market_cap_usd: null,
    volume_24h_usd: null,
    security_hints: {
      ...nulls,
      verified_contract: false,
      owner_address: fields.owner === undefined ? OWNER_A : fields.owner,
    } as TokenUpdatedData['security_hints'],
    trading_simulation: {
      is_buyable: true,
      is_sellable: true,
      buy_tax_pct: fields.buy === undefined ? 0 : fields.buy,
      sell_tax_pct: fields.sell === undefined ? 0 : fields.sell,
      transfer_tax_pct: 0,
      max_tx_amount: null,
      simulated_at: null,
      error: null,
      hook: null,
    },
    dex_hints: null,
    holders: null,
    lp_holders: [],
    holder_sells: null,
    impersonates: null,
    previous: {
      current_risk_score: fields.previousScore ?? null,
      current_risk_level: null,
      current_liquidity_usd: null,
      price_usd: null,
    },
    last_updated: '2024-01-01T00:00:00.000Z',
  };
}
/** A DEX-stage update: its risk level, owner and taxes are stored copies, not measurements. */
const dex = (fields: Parameters<typeof risk>[0] = {}): TokenUpdatedData => ({
  ...risk(fields),
  source: 'dex',
  changes: ['price'],
});

describe('compareSnapshots', () => {
  it('derives nothing but the next snapshot from the first payload', () => {
    const result = compareSnapshots(undefined, risk({ buy: 1, sell: 2 }));
    expect(result.alerts).toEqual([]);
    expect(result.next).toEqual({
      total_supply: '1000',
      risk_level: 'low',
      owner_address: OWNER_A,
      buy_tax_pct: 1,
      sell_tax_pct: 2,
    });
  });

  it('owner changed: security_hints.owner_address differs (case-insensitive); a renounce is not an alert', () => {
    const previous = { owner_address: OWNER_A };
    expect(kinds(compareSnapshots(previous, risk({ owner: OWNER_B })))).toEqual(['owner_changed']);
    expect(
      kinds(compareSnapshots(previous, risk({ owner: OWNER_A.toUpperCase().replace('0X', '0x') }))),
    ).toEqual([]);
    expect(kinds(compareSnapshots(previous, risk({ owner: null })))).toEqual([]);
    // Renounced, then claimed again.
    expect(kinds(compareSnapshots({ owner_address: null }, risk({ owner: OWNER_B })))).toEqual([
      'owner_changed',
    ]);
    // A DEX update's owner is a stored copy: the snapshot keeps the measured owner.
    const kept = compareSnapshots(previous, dex({ owner: OWNER_B }));
    expect(kept.alerts).toEqual([]);
    expect(kept.next.owner_address).toBe(OWNER_A);
  });

  it('tax raised: sell or buy tax up by at least one point', () => {
    const previous = { buy_tax_pct: 2, sell_tax_pct: 5 };
    const raised = compareSnapshots(previous, risk({ buy: 2, sell: 25 }));
    expect(kinds(raised)).toEqual(['tax_raised']);
    expect(raised.alerts[0]!.detail).toEqual({ previous_sell_tax_pct: 5, sell_tax_pct: 25 });
    expect(kinds(compareSnapshots(previous, risk({ buy: 10, sell: 5 })))).toEqual(['tax_raised']);
    expect(kinds(compareSnapshots(previous, risk({ buy: 2.5, sell: 5.9 })))).toEqual([]);
    expect(kinds(compareSnapshots(previous, risk({ buy: 0, sell: 1 })))).toEqual([]);
    expect(kinds(compareSnapshots(previous, risk({ buy: null, sell: null })))).toEqual([]);
    expect(kinds(compareSnapshots(previous, dex({ buy: 50, sell: 50 })))).toEqual([]);
  });

  it("mint after launch: total supply larger than the snapshot's, from either stage", () => {
    const previous = { total_supply: '1000000000000000000000000' };
    expect(
      kinds(compareSnapshots(previous, risk({ supply: '1000000000000000000000001' }))),
    ).toEqual(['mint_after_launch']);
    expect(kinds(compareSnapshots(previous, dex({ supply: '1000000000000000000000001' })))).toEqual(
      ['mint_after_launch'],
    );
    expect(
      kinds(compareSnapshots(previous, risk({ supply: '1000000000000000000000000' }))),
    ).toEqual([]);
    expect(kinds(compareSnapshots(previous, risk({ supply: '999' })))).toEqual([]);
    expect(kinds(compareSnapshots(previous, risk({ supply: null })))).toEqual([]);
  });

  it('risk level changed: against the snapshot, else previous.current_risk_score; honeypot is left to its own alert', () => {
    expect(kinds(compareSnapshots({ risk_level: 'low' }, risk({ level: 'high' })))).toEqual([
      'risk_level_changed',
    ]);
    expect(kinds(compareSnapshots({ risk_level: 'low' }, risk({ level: 'low' })))).toEqual([]);
    expect(kinds(compareSnapshots({ risk_level: 'low' }, risk({ level: 'honeypot' })))).toEqual([]);
    // No snapshot yet: the level of the previous score (20 → low).
    const first = compareSnapshots(undefined, risk({ level: 'medium', previousScore: 20 }));
    expect(kinds(first)).toEqual(['risk_level_changed']);
    expect(first.alerts[0]!.detail).toEqual({
      previous_risk_level: 'low',
      current_risk_level: 'medium',
    });
    expect(
      kinds(compareSnapshots(undefined, risk({ level: 'medium', previousScore: null }))),
    ).toEqual([]);
    // A DEX update's level is a stored copy (maybe older than a concurrent risk update): nothing, the level is kept.
    const fromDex = compareSnapshots({ risk_level: 'high' }, dex({ level: 'low' }));
    expect(fromDex.alerts).toEqual([]);
    expect(fromDex.next.risk_level).toBe('high');
  });

  it('several changes in one payload give several alerts', () => {
    const result = compareSnapshots(
      { risk_level: 'low', owner_address: OWNER_A, sell_tax_pct: 0, total_supply: '10' },
      risk({ level: 'high', owner: OWNER_B, sell: 50, supply: '20' }),
    );
    expect(kinds(result).sort()).toEqual([
      'mint_after_launch',
      'owner_changed',
      'risk_level_changed',
      'tax_raised',
    ]);
  });

  it('snapshotOf ignores a total supply that is no decimal integer', () => {
    expect(snapshotOf(dex({ supply: '1e18' }))).toEqual({});
  });
});

describe('alertOf', () => {
  const event = (data: Partial<AlertData>, id = '1700000000000-0'): EventMessage => ({
    id,
    type: 'alert',
    ts: new Date().toISOString(),
    data: {
      ...base,
      type: 'honeypot',
      message: 'm',
      alert_key: null,
      bucket_at: null,
      details: {},
      ...data,
    },
  });

  it('keys: honeypot once per token, liquidity per bucket, derived by their own key, else stream id + type', () => {
    expect(alertOf(event({ type: 'honeypot' }))!.key).toBe(`honeypot:1:${TOKEN}`);
    expect(alertOf(event({ type: 'honeypot' }, '1700000000001-0'))!.key).toBe(
      `honeypot:1:${TOKEN}`,
    );
    expect(alertOf(event({ type: 'rug', bucket_at: '2024-01-01T00:00:00.000Z' }))!.key).toBe(
      `rug:1:${TOKEN}:2024-01-01T00:00:00.000Z`,
    );
    expect(alertOf(event({ type: 'liquidity_pull' }))!.key).toBe('1700000000000-0:liquidity_pull');
    expect(alertOf(event({ type: 'owner_changed', alert_key: 'k1' }))!.key).toBe('k1');
  });

  it('ignores other events and unknown types', () => {
    expect(alertOf(event({ type: 'something_else' }))).toBeUndefined();
    expect(alertOf({ id: '1-0', ts: '', type: 'token.updated', data: risk() })).toBeUndefined();
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
    const alert = alertOf({
      id: '1-0',
      type: 'alert',
      ts: '',
      data: {
        ...base,
        type: 'honeypot',
        message: 'honeypot detected',
        alert_key: null,
        bucket_at: null,
        details: {},
      },
    });
    const mail = alertEmail(alert!, 'a@example.com', 'alerts@token-monitor.local');
    expect(mail.subject).toContain('Honeypot detected');
    expect(mail.text).toContain(TOKEN);
  });
});
