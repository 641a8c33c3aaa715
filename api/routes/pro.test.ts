import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tokens as tokensTable } from '../../db/schema.ts';
import { bumpTokenVersion } from '../../infra/token-cache.ts';
import {
  addr,
  bearer,
  expectError,
  expectShape,
  HIGH_LIMITS,
  MSG,
  SQL_ATTACKS,
  upper,
  useApiStack,
} from '../../test/support/api-stack.ts';
import * as S from '../schemas.ts';

/**
 * The PRO operations against the real stack (docs/api.md, "PRO token data"): the complete token
 * object field by field, the detail's parameters and defaults, the list's summary, filters,
 * pagination and `fields`, bulk with its limits and metadata, and the export. Every answer is
 * also checked against its route's declared schema by the app itself.
 */

const stack = useApiStack();
const h = (): Record<string, string> => ({ 'x-api-key': stack.proKey });
const get = (path: string, headers: Record<string, string> = h()) =>
  stack.call(stack.A, 'GET', path, { headers });

/** The complete object's fields, in the order docs/api.md gives them, additions last. */
const COMPLETE_KEYS = [
  'contract_address',
  'chain_id',
  'full_token_data',
  'security_hints',
  'current_risk_level',
  'current_risk_score',
  'current_liquidity_usd',
  'is_actively_traded',
  'dex_hints',
  'monitoring_recommendations',
  'data_quality_score',
  'analyses',
  'token_history',
  'last_updated',
  'trading_simulation',
  'is_honeypot',
  'holders',
  'lp_holders',
  'holder_sells',
  'impersonates',
];
const HINT_KEYS = [
  'contract_template',
  'security_risk_score',
  'ownership_renounced',
  'verified_contract',
  'has_pause_function',
  'has_blacklist_function',
  'has_mint_function',
  'is_proxy',
  'fee_modifiable',
  'has_max_tx_limit',
  'trading_restricted',
  'owner_can_change_balance',
  'hidden_owner',
  'owner_address',
  'creator_reputation_score',
  'liquidity_lock',
  'selfdestruct',
  'external_call',
  'is_open_source',
  'admin_functions',
];

describe('GET /api/pro/tokens/{address}: the complete token object', () => {
  it('every field docs/api.md lists, under its name and type, in its order', async () => {
    const token = expectShape(
      S.completeToken,
      await get(`/api/pro/tokens/${upper(addr(0xa001))}?chain_id=1`),
    );
    expect(Object.keys(token)).toEqual(COMPLETE_KEYS);
    expect(Object.keys(token.security_hints)).toEqual(HINT_KEYS);
    expect(token.full_token_data).toEqual({
      token: {
        name: 'SAFE Token',
        symbol: 'SAFE',
        decimals: 18,
        total_supply: '1000000000000000000000000',
      },
      block_timestamp: Date.parse('2024-05-01T12:00:00.000Z') / 1000,
      creation: {
        block_timestamp: Date.parse('2024-05-01T12:00:00.000Z') / 1000,
        tx_hash: `0x${'ab'.repeat(32)}`,
        creator: addr(0xc0ffee),
        creator_is_contract: false,
        block_number: 100,
        gas_used: 1000,
        bytecode_hash: `0x${'ee'.repeat(32)}`,
        code_len: 1234,
        proxy_like: false,
      },
      born_block: 100,
    });
    expect(token.security_hints).toMatchObject({
      contract_template: 'openzeppelin-erc20',
      security_risk_score: 10,
      ownership_renounced: false,
      verified_contract: false,
      has_pause_function: false,
      has_blacklist_function: false,
      has_mint_function: true,
      is_proxy: false,
      creator_reputation_score: 40,
      liquidity_lock: { locked_pct: 80, burned_pct: 15 },
      admin_functions: [
        {
          name: 'mint',
          selector: '40c10f19',
          access_control: 'owner-only',
          risk_level: 3,
          description: 'Creates new tokens',
        },
      ],
    });
    expect(token).toMatchObject({
      current_risk_level: 'low',
      current_risk_score: 10,
      current_liquidity_usd: 250000.5,
      is_actively_traded: true,
      is_honeypot: false,
    });
    expect(token.dex_hints).toMatchObject({
      token_price_usd: 1.25,
      num_trading_pairs: 1,
      recommended_dex: 'uniswap-v2',
    });
    expect(token.monitoring_recommendations.risk_monitoring[0]).toMatch(/^Mint function/);
    expect(token.monitoring_recommendations.price_alerts).toEqual([
      'Price below $1.00 (20% under $1.25)',
      'Price above $1.88 (50% over $1.25)',
      'Liquidity below $175,000 (30% under $250,001)',
    ]);
    // Creation, code analysis, simulation and a DEX read just now: every fact measured and fresh.
    expect(token.data_quality_score).toBe(1);
    expect(token.analyses!.map((a) => a.timestamp)).toEqual([
      '2024-05-01T12:06:00.000Z',
      '2024-05-01T12:01:00.000Z',
    ]);
    expect(token.analyses![0]).toMatchObject({
      risk_factors: ['The owner can mint new tokens', 'Liquidity 95% locked or burned'],
      alerts: [{ type: 'admin:mint', message: 'The owner can mint new tokens' }],
      risk_factor_details: [
        { code: 'admin:mint', points: 15, evidence: [{ kind: 'function', selector: '40c10f19' }] },
        { code: 'liquidity-locked' },
      ],
    });
    expect(Date.now() - Date.parse(token.last_updated)).toBeLessThan(600_000);
  });

  it('defaults: chain_id 56, and history (≤ 100, newest first), analyses and admin functions included', async () => {
    const token = expectShape(
      S.completeToken,
      await get(`/api/pro/tokens/${addr(0xa001)}?chain_id=1`),
    );
    expect(token.token_history).toHaveLength(100);
    const times = token.token_history!.map((x) => Date.parse(x.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(token.token_history![0]).toEqual({
      timestamp: new Date(Date.UTC(2024, 4, 1, 0, 119)).toISOString(),
      risk_score: 10,
      price_usd: 1.119,
      liquidity_usd: 250000,
      volume_24h_usd: 100,
      market_cap_usd: 1000000,
    });
    // The honeypot lives on chain 56: found without chain_id; the chain-1 token is not.
    expect(
      expectShape(S.completeToken, await get(`/api/pro/tokens/${addr(0xa003)}`)).chain_id,
    ).toBe(56);
    expectError(await get(`/api/pro/tokens/${addr(0xa001)}`), 404, MSG.tokenNotFound);
  });

  it('include_history, include_analyses and include_admin_functions leave their parts out when false', async () => {
    const lean = expectShape(
      S.completeToken,
      await get(
        `/api/pro/tokens/${addr(0xa001)}?chain_id=1&include_history=false&include_analyses=false&include_admin_functions=false`,
      ),
    );
    expect(lean).not.toHaveProperty('token_history');
    expect(lean).not.toHaveProperty('analyses');
    expect(lean.security_hints).not.toHaveProperty('admin_functions');
    expect(Object.keys(lean)).toEqual(
      COMPLETE_KEYS.filter((k) => k !== 'analyses' && k !== 'token_history'),
    );
  });

  it('a token no analysis stage reached: every part null or empty, never a missing key', async () => {
    const token = expectShape(
      S.completeToken,
      await get(`/api/pro/tokens/${addr(0xa004)}?chain_id=137`),
    );
    expect(Object.keys(token)).toEqual(COMPLETE_KEYS);
    expect(token).toMatchObject({
      trading_simulation: null,
      dex_hints: null,
      is_honeypot: null,
      current_risk_score: null,
      analyses: [],
      token_history: [],
      holders: null,
      lp_holders: [],
      holder_sells: null,
      impersonates: null,
    });
    expect(token.security_hints).toMatchObject({
      has_mint_function: null,
      ownership_renounced: null,
      verified_contract: false,
      admin_functions: [],
    });
    // Only the creation facts are known.
    expect(token.data_quality_score).toBe(0.25);
  });

  it('errors: unknown token 404; bad flags, addresses and chains 400 naming the parameter; FREE JWT 403; no key 401', async () => {
    expectError(await get(`/api/pro/tokens/${addr(0xdead)}?chain_id=1`), 404, MSG.tokenNotFound);
    for (const [query, field] of [
      ['include_history=1', 'include_history'],
      ['include_analyses=yes', 'include_analyses'],
      ['include_admin_functions=', 'include_admin_functions'],
      ['chain_id=999', 'chain_id'],
      ['chain_id=1.5', 'chain_id'],
    ] as const) {
      expect(expectError(await get(`/api/pro/tokens/${addr(0xa001)}?${query}`), 400)).toContain(
        field,
      );
    }
    expect(expectError(await get('/api/pro/tokens/0x1234?chain_id=1'), 400)).toContain('address');
    expectError(
      await get(
        `/api/pro/tokens/${addr(0xa001)}?chain_id=1`,
        bearer((await stack.makeUser('FREE')).jwt),
      ),
      403,
      MSG.pro,
    );
    expectError(await get(`/api/pro/tokens/${addr(0xa001)}?chain_id=1`, {}), 401, MSG.unauthorized);
  });

  it('security: injection in the path and the query is a 400, never a query', async () => {
    for (const attack of SQL_ATTACKS) {
      const e = encodeURIComponent(attack);
      for (const path of [
        `/api/pro/tokens/${e}`,
        `/api/pro/tokens/${addr(0xa001)}?chain_id=${e}`,
        `/api/pro/tokens/${addr(0xa001)}?include_history=${e}`,
      ]) {
        expect([400, 404]).toContain((await get(path)).status);
      }
    }
    const [row] = await stack.handle.sql<{ n: number }[]>`select count(*)::int n from tokens`;
    expect(row!.n).toBe(5);
  });
});

describe('GET /api/pro/tokens: summary list, filters, pagination, fields', () => {
  const list = async (query: string) =>
    expectShape(S.proTokenList, await get(`/api/pro/tokens?${query}`));

  it('the summary fields and {tokens, pagination}; limit 50 and offset 0 by default; newest first', async () => {
    const page = await list('');
    expect(page.pagination).toEqual({ total: 5, limit: 50, offset: 0, has_more: false });
    expect(page.tokens.map((t) => t.contract_address)).toEqual(
      [0xa005, 0xa004, 0xa003, 0xa002, 0xa001].map(addr),
    );
    for (const t of page.tokens) {
      expect(Object.keys(t)).toEqual([
        'contract_address',
        'chain_id',
        'current_risk_score',
        'current_liquidity_usd',
        'data_quality_score',
        'last_updated',
      ]);
    }
    expect(page.tokens.find((t) => t.contract_address === addr(0xa001))).toMatchObject({
      current_risk_score: 10,
      current_liquidity_usd: 250000.5,
      data_quality_score: 1,
    });
  });

  it('offset pagination: has_more until the last page', async () => {
    const first = await list('limit=2&offset=0');
    expect(first.pagination).toEqual({ total: 5, limit: 2, offset: 0, has_more: true });
    const last = await list('limit=2&offset=4');
    expect(last.pagination).toEqual({ total: 5, limit: 2, offset: 4, has_more: false });
    expect(last.tokens.map((t) => t.contract_address)).toEqual([addr(0xa001)]);
    expect((await list('offset=10')).tokens).toEqual([]);
  });

  it('addresses, chain_ids, min_liquidity and max_risk_score filter', async () => {
    const addresses = async (query: string) =>
      (await list(query)).tokens.map((t) => t.contract_address);
    expect(await addresses(`addresses=${upper(addr(0xa001))},${addr(0xa003)}`)).toEqual([
      addr(0xa003),
      addr(0xa001),
    ]);
    expect(await addresses('chain_ids=56,137')).toEqual([addr(0xa004), addr(0xa003)]);
    expect(await addresses('min_liquidity=1000')).toEqual([
      addr(0xa005),
      addr(0xa002),
      addr(0xa001),
    ]);
    expect(await addresses('max_risk_score=45')).toEqual([addr(0xa002), addr(0xa001)]);
    expect(await addresses('chain_ids=1&max_risk_score=45&min_liquidity=5000')).toEqual([
      addr(0xa001),
    ]);
  });

  it('include_history adds token_history (≤ 50 per token); fields selects among every field of the complete object', async () => {
    const withHistory = await list(`addresses=${addr(0xa001)}&include_history=true`);
    expect(withHistory.tokens[0]!.token_history).toHaveLength(50);
    const narrow = await list('fields=security_hints,full_token_data&limit=2');
    for (const t of narrow.tokens)
      expect(Object.keys(t)).toEqual([
        'contract_address',
        'chain_id',
        'full_token_data',
        'security_hints',
      ]);
    expect(narrow.pagination).toMatchObject({ total: 5, limit: 2, has_more: true });
    const single = await list(`addresses=${addr(0xa001)}&fields=data_quality_score`);
    expect(single.tokens).toEqual([
      { contract_address: addr(0xa001), chain_id: 1, data_quality_score: 1 },
    ]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['addresses=0x12', 'addresses'],
    ['chain_ids=1,999', 'chain_ids'],
    ['min_liquidity=abc', 'min_liquidity'],
    ['max_risk_score=101', 'max_risk_score'],
    ['include_history=1', 'include_history'],
    ['fields=symbol,password_hash', 'fields'],
    ['fields=,', 'fields'],
  ])('?%s → 400 naming %s', async (query, field) => {
    expect(expectError(await get(`/api/pro/tokens?${query}`), 400)).toContain(field);
  });

  it('security: a revoked or absent key is 401; injection in every parameter is a 400 or finds nothing', async () => {
    expectError(await get('/api/pro/tokens', {}), 401, MSG.unauthorized);
    expectError(
      await get('/api/pro/tokens', { 'x-api-key': `svc_pro_${'0'.repeat(40)}` }),
      401,
      MSG.unauthorized,
    );
    for (const attack of SQL_ATTACKS) {
      const e = encodeURIComponent(attack);
      for (const p of [
        'addresses',
        'chain_ids',
        'min_liquidity',
        'max_risk_score',
        'limit',
        'offset',
        'fields',
      ]) {
        expect((await get(`/api/pro/tokens?${p}=${e}`)).status).toBe(400);
      }
    }
  });
});

describe('POST /api/pro/tokens/bulk', () => {
  const bulk = (body: unknown, headers: Record<string, string> = h()) =>
    stack.call(stack.A, 'POST', '/api/pro/tokens/bulk', { headers, body });

  it('complete objects, history ≤ 50 by default, metadata with total_tokens, processing_time_ms, cache_hit_rate, not_found', async () => {
    const body = {
      tokens: [
        { address: addr(0xa001), chain_id: 1 },
        { address: upper(addr(0xa003)), chain_id: 56 },
        { address: addr(0xbeef), chain_id: 1 },
        { address: addr(0xa001), chain_id: 1 },
      ],
    };
    await bumpTokenVersion(stack.redisA, stack.testRedis.prefix, {
      chainId: 1,
      address: addr(0xa001),
    });
    await bumpTokenVersion(stack.redisA, stack.testRedis.prefix, {
      chainId: 56,
      address: addr(0xa003),
    });
    const first = expectShape(S.bulkResponse, await bulk(body));
    expect(first.tokens.map((t) => t.contract_address)).toEqual([addr(0xa001), addr(0xa003)]);
    for (const t of first.tokens) expect(Object.keys(t)).toEqual(COMPLETE_KEYS);
    expect(first.tokens[0]!.token_history).toHaveLength(50);
    expect(first.tokens[0]!.security_hints.admin_functions).toHaveLength(1);
    expect(first.metadata).toMatchObject({
      total_tokens: 2,
      requested: 3,
      cache_hit_rate: 0,
      not_found: [{ address: addr(0xbeef), chain_id: 1 }],
    });
    expect(Number.isInteger(first.metadata.processing_time_ms)).toBe(true);
    const second = expectShape(
      S.bulkResponse,
      await stack.call(stack.B, 'POST', '/api/pro/tokens/bulk', { headers: h(), body }),
    );
    expect(second.metadata.cache_hit_rate).toBe(0.667);
    expect(second.tokens).toEqual(first.tokens);
    // A writer changes the token and bumps its version: the next answer is fresh.
    await stack.handle.db
      .update(tokensTable)
      .set({ name: 'Renamed Safe' })
      .where(eq(tokensTable.address, addr(0xa001)));
    await bumpTokenVersion(stack.redisA, stack.testRedis.prefix, {
      chainId: 1,
      address: addr(0xa001),
    });
    const third = expectShape(S.bulkResponse, await bulk(body));
    expect(third.tokens[0]!.full_token_data.token.name).toBe('Renamed Safe');
    await stack.handle.db
      .update(tokensTable)
      .set({ name: 'SAFE Token' })
      .where(eq(tokensTable.address, addr(0xa001)));
    await bumpTokenVersion(stack.redisA, stack.testRedis.prefix, {
      chainId: 1,
      address: addr(0xa001),
    });
  });

  it('include flags leave their parts out', async () => {
    const lean = expectShape(
      S.bulkResponse,
      await bulk({
        tokens: [{ address: addr(0xa001), chain_id: 1 }],
        include_history: false,
        include_analyses: false,
        include_admin_functions: false,
      }),
    );
    expect(lean.tokens[0]).not.toHaveProperty('token_history');
    expect(lean.tokens[0]).not.toHaveProperty('analyses');
    expect(lean.tokens[0]!.security_hints).not.toHaveProperty('admin_functions');
  });

  it('50 entries pass, 51 are a 400; empty, malformed entries and unknown chains are 400 naming tokens', async () => {
    const many = {
      tokens: Array.from({ length: 51 }, (_, i) => ({ address: addr(0x1000 + i), chain_id: 1 })),
    };
    expect(expectError(await bulk(many), 400)).toMatch(/tokens.*50/);
    expect(
      expectShape(S.bulkResponse, await bulk({ tokens: many.tokens.slice(0, 50) })).metadata
        .not_found,
    ).toHaveLength(50);
    for (const bad of [
      { tokens: [] },
      {},
      { tokens: [{ address: '0x12', chain_id: 1 }] },
      { tokens: [{ address: addr(1), chain_id: 999 }] },
      { tokens: [{ address: addr(1), chain_id: '1' }] },
      { tokens: 'all' },
    ]) {
      expect(expectError(await bulk(bad), 400)).toContain('tokens');
    }
    expect(
      expectError(
        await bulk({ tokens: [{ address: addr(1), chain_id: 1 }], include_history: 'yes' }),
        400,
      ),
    ).toContain('include_history');
  });

  it('security: oversized and malformed bodies are 413 and 400; deep nesting is refused by the schema', async () => {
    expectError(
      await stack.call(stack.A, 'POST', '/api/pro/tokens/bulk', {
        headers: h(),
        raw: JSON.stringify({ padding: 'x'.repeat(120 * 1024) }),
      }),
      413,
    );
    for (const raw of ['{"tokens": [1,2,', 'null', '"just a string"'])
      expectError(
        await stack.call(stack.A, 'POST', '/api/pro/tokens/bulk', { headers: h(), raw }),
        400,
      );
    expectError(
      await stack.call(stack.A, 'POST', '/api/pro/tokens/bulk', {
        headers: h(),
        raw: `{"tokens": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
      }),
      400,
    );
    expectError(
      await bulk(
        { tokens: [{ address: addr(0xa001), chain_id: 1 }] },
        bearer((await stack.makeUser('BASIC')).jwt),
      ),
      403,
      MSG.pro,
    );
  });
});

describe('GET /api/pro/export', () => {
  const exported = async (query: string, headers: Record<string, string> = h()) => {
    const response = await fetch(`${stack.A}/api/pro/export?${query}`, { headers });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
      headers: response.headers,
    };
  };

  it('NDJSON: one record per token, newest first, with the list filters; history on request', async () => {
    // A holders report on one token: the export carries its figures as flat columns.
    await stack.handle.db
      .update(tokensTable)
      .set({
        holders: {
          holders: {
            holder_count: 3,
            top_holders: [],
            creator_percent: 20,
            owner_percent: 20,
            contract_percent: 0,
            burned_percent: 5,
            pools_percent: 50,
            top10_outside_pools_percent: 45,
            block: 7,
            complete: true,
          },
          lp_holders: [],
        },
      })
      .where(eq(tokensTable.address, addr(0xa001)));
    const r = await exported('chain_ids=1&max_risk_score=45');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/x-ndjson/);
    const lines = r.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.contract_address)).toEqual([addr(0xa002), addr(0xa001)]);
    expect(lines[1]).toMatchObject({
      chain_id: 1,
      symbol: 'SAFE',
      current_risk_score: 10,
      current_liquidity_usd: 250000.5,
      data_quality_score: 1,
      born_block: 100,
      holder_count: 3,
      creator_percent: 20,
      top10_outside_pools_percent: 45,
      burned_percent: 5,
      holder_sells_tried: null,
      impersonates: null,
    });
    expect(lines[0]).toMatchObject({ holder_count: null });
    expect(lines[1]).not.toHaveProperty('token_history');
    const history = await exported(`addresses=${addr(0xa001)}&include_history=true`);
    expect(
      (JSON.parse(history.text.trim()) as { token_history: unknown[] }).token_history,
    ).toHaveLength(100);
  });

  it('CSV: a header, then one line per token, or per snapshot with history; fields quoted as RFC 4180 says', async () => {
    await stack.handle.db
      .update(tokensTable)
      .set({ name: 'Pepe, "the" Classic' })
      .where(eq(tokensTable.address, addr(0xa005)));
    const r = await exported('format=csv&chain_ids=1');
    expect(r.type).toMatch(/^text\/csv/);
    const lines = r.text.trimEnd().split('\r\n');
    expect(lines[0]!.split(',').slice(0, 4)).toEqual([
      'contract_address',
      'chain_id',
      'name',
      'symbol',
    ]);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('"Pepe, ""the"" Classic"');
    const history = (
      await exported(`format=csv&addresses=${addr(0xa001)}&include_history=true`)
    ).text
      .trimEnd()
      .split('\r\n');
    expect(history).toHaveLength(101);
    expect(history[0]).toMatch(/snapshot_timestamp,snapshot_risk_score/);
    await stack.handle.db
      .update(tokensTable)
      .set({ name: 'Pepe Classic' })
      .where(eq(tokensTable.address, addr(0xa005)));
  });

  it('streams more rows than one cursor batch, and counts as one request against the key', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user);
    const rows = Array.from(
      { length: 1_203 },
      (_, i) => `(31337, '${addr(0x500000 + i)}', 'receipt')`,
    ).join(',');
    await stack.handle.sql.unsafe(
      `insert into tokens (chain_id, address, detection_source) values ${rows}`,
    );
    const r = await exported('chain_ids=31337', { 'x-api-key': key });
    expect(r.status).toBe(200);
    const lines = r.text.trimEnd().split('\n');
    expect(lines).toHaveLength(1_203);
    expect(
      new Set(lines.map((l) => (JSON.parse(l) as { contract_address: string }).contract_address))
        .size,
    ).toBe(1_203);
    // The export was one request: 9 of the minute's 10 remain.
    expect(r.headers.get('x-ratelimit-remaining')).toBe('9');
    await stack.handle.sql`delete from tokens where chain_id = 31337`;
  });

  it('errors: bad format and filters 400 before any byte streams; BASIC 403; no key 401', async () => {
    for (const [query, field] of [
      ['format=xml', 'format'],
      ['chain_ids=999', 'chain_ids'],
      ['max_risk_score=x', 'max_risk_score'],
      ['include_history=2', 'include_history'],
    ] as const) {
      const r = await exported(query);
      expect(r.status).toBe(400);
      expect((JSON.parse(r.text) as { error: string }).error).toContain(field);
    }
    expect((await exported('', bearer((await stack.makeUser('BASIC')).jwt))).status).toBe(403);
    expect((await exported('', {})).status).toBe(401);
  });
});

describe('the key limits apply to the PRO operations', () => {
  it('the 11th request in a minute is a 429 with Retry-After, counted across both instances', async () => {
    const user = await stack.makeUser('PRO');
    const key = await stack.generateKey(stack.A, user);
    for (let i = 0; i < 10; i++)
      expect(
        (
          await stack.call(i % 2 ? stack.B : stack.A, 'GET', '/api/pro/tokens?limit=1', {
            headers: { 'x-api-key': key },
          })
        ).status,
      ).toBe(200);
    const refused = await stack.call(stack.A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, {
      headers: { 'x-api-key': key },
    });
    expectError(refused, 429, MSG.rateLimited);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await stack.accounts.setKeyLimits(
      { keyHash: (await import('../../src/accounts/credentials.ts')).sha256Hex(key) },
      HIGH_LIMITS,
    );
  });
});
