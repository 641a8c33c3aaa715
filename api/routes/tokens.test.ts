import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import {
  addr,
  bearer,
  CREATOR,
  expectError,
  expectShape,
  MSG,
  SQL_ATTACKS,
  type TestUser,
  useApiStack,
} from '../../test/support/api-stack.ts';
import { createAccountsProcessor } from '../../workers/accounts/index.ts';
import * as S from '../schemas.ts';

/**
 * The general token API against the real stack (docs/api.md, "General API"): the list with the
 * document's filters and limits, the detail view, manual refresh, plan gating across every
 * resource, and the OpenAPI document that describes exactly the mounted routes.
 */

const stack = useApiStack();
const call: typeof stack.call = (...args) => stack.call(...args);

describe('the general view (docs/api.md)', () => {
  it('GET /api/tokens: {items, total, page, limit}; page 1 and limit 20 by default, at most 100', async () => {
    const page = expectShape(
      S.tokenList,
      await call(stack.A, 'GET', '/api/tokens', { headers: bearer(stack.proKey) }),
    );
    expect(Object.keys(page)).toEqual(['items', 'total', 'page', 'limit']);
    expect(page).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(Object.keys(page.items[0]!)).toEqual([
      'contract_address',
      'chain_id',
      'name',
      'symbol',
      'current_risk_score',
      'current_risk_level',
      'current_liquidity_usd',
      'is_actively_traded',
      'detected_at',
    ]);
    expect(
      expectShape(
        S.tokenList,
        await call(stack.A, 'GET', '/api/tokens?limit=100', { headers: bearer(stack.proKey) }),
      ).limit,
    ).toBe(100);
  });

  it('GET /api/tokens/{address}: at least contract_address, chain_id, current_risk_score, current_risk_level, current_liquidity_usd', async () => {
    const detail = expectShape(
      S.tokenDetail,
      await call(stack.A, 'GET', `/api/tokens/${addr(0xa001)}?chain_id=1`, {
        headers: bearer(stack.proKey),
      }),
    );
    expect(detail).toMatchObject({
      contract_address: addr(0xa001),
      chain_id: 1,
      current_risk_score: 10,
      current_risk_level: 'low',
      current_liquidity_usd: 250000.5,
    });
  });

  it('security: injection in the detail path and every list filter is a 400, and free text finds nothing', async () => {
    for (const attack of SQL_ATTACKS) {
      const e = encodeURIComponent(attack);
      expect(
        (await call(stack.A, 'GET', `/api/tokens/${e}`, { headers: bearer(stack.proKey) })).status,
      ).toBe(400);
      for (const p of [
        'chain_id',
        'page',
        'limit',
        'risk_level',
        'has_liquidity',
        'is_actively_traded',
      ]) {
        expect(
          (await call(stack.A, 'GET', `/api/tokens?${p}=${e}`, { headers: bearer(stack.proKey) }))
            .status,
        ).toBe(400);
      }
      expect(
        expectShape(
          S.tokenList,
          await call(stack.A, 'GET', `/api/tokens?q=${e}`, { headers: bearer(stack.proKey) }),
        ).items,
      ).toEqual([]);
    }
    expectError(
      await call(stack.A, 'GET', '/api/tokens', { headers: { 'x-api-key': stack.proKey } }),
      401,
      MSG.unauthorized,
    );
  });
});

describe('tokens: list filters and detail', () => {
  const list = async (query: string) =>
    expectShape(
      S.tokenList,
      await call(stack.A, 'GET', `/api/tokens?${query}`, { headers: bearer(stack.proKey) }),
    );
  const symbols = async (query: string) => (await list(query)).items.map((i) => i.symbol);

  it('filters: chain_id, risk_level, min/max_risk_score, is_honeypot, min_liquidity_usd, created_after/before, q, sort', async () => {
    expect(await symbols('chain_id=1')).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expect(await symbols('risk_level=honeypot')).toEqual(['HONY']);
    expect(await symbols('min_risk_score=40&max_risk_score=80')).toEqual(['PEPE', 'MEDI']);
    expect(await symbols('is_honeypot=true')).toEqual(['HONY']);
    expect(await symbols('is_honeypot=false')).toEqual(['PEPE', 'NEWT', 'MEDI', 'SAFE']);
    expect(await symbols('min_liquidity_usd=1000')).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expect(await symbols('has_liquidity=true')).toEqual(['PEPE', 'HONY', 'MEDI', 'SAFE']);
    expect(await symbols('has_liquidity=false')).toEqual(['NEWT']);
    expect(await symbols('is_actively_traded=false')).toEqual(['NEWT']);
    expect(await symbols('created_after=2024-05-01T12:00:00Z')).toHaveLength(5);
    expect(await symbols('created_before=2024-05-01')).toEqual([]);
    expect(await symbols('q=pepe')).toEqual(['PEPE']);
    expect(await symbols('q=classic')).toEqual(['PEPE']);
    expect(await symbols(`q=${addr(0xa003)}`)).toEqual(['HONY']);
    expect(await symbols('q=0x0000')).toHaveLength(5);
    expect(await symbols(`q=${addr(0xa003).toUpperCase().replace('0X', '0x')}`)).toEqual(['HONY']);
    expect(await symbols('q=%25')).toEqual([]);
    expect(await symbols('q=_')).toEqual([]);
    expect(await symbols('sort=current_risk_score')).toEqual([
      'SAFE',
      'MEDI',
      'PEPE',
      'HONY',
      'NEWT',
    ]);
    expect(await symbols('sort=-current_liquidity_usd')).toEqual([
      'SAFE',
      'PEPE',
      'MEDI',
      'HONY',
      'NEWT',
    ]);
    expect(await symbols('sort=detected_at')).toEqual(['SAFE', 'MEDI', 'HONY', 'NEWT', 'PEPE']);
    const page = await list('limit=2&page=2');
    expect(page).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(page.items.map((i) => i.symbol)).toEqual(['HONY', 'MEDI']);
  });

  it('cursor: X-Next-Cursor on a full page; following it walks the same order as the pages, with the same total', async () => {
    const get = (query: string) =>
      call(stack.A, 'GET', `/api/tokens?${query}`, { headers: bearer(stack.proKey) });
    const walked: string[] = [];
    let result = await get('limit=2');
    for (let pages = 0; pages < 5; pages++) {
      const page = expectShape(S.tokenList, result);
      expect(page).toMatchObject({ total: 5, page: 1, limit: 2 });
      walked.push(...page.items.map((i) => i.symbol ?? ''));
      const next = result.headers.get('x-next-cursor');
      if (!next) break;
      result = await get(`limit=2&cursor=${next}`);
    }
    expect(walked).toEqual(await symbols('limit=100'));
    // The last page (one token) is not full: no cursor after it.
    expect(walked).toHaveLength(5);
    // The cursor keeps the filters it is sent with.
    const first = await get('limit=1&chain_id=1');
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    expect(
      expectShape(S.tokenList, await get(`limit=5&chain_id=1&cursor=${cursor}`)).items.map(
        (i) => i.symbol,
      ),
    ).toEqual(['MEDI', 'SAFE']);
    // No cursor in another order: it would not match the keyset.
    expect((await get('limit=1&sort=name')).headers.get('x-next-cursor')).toBeNull();
    expect(expectError(await get(`limit=1&page=2&cursor=${cursor}`), 400)).toContain('page');
    expect(expectError(await get(`limit=1&sort=name&cursor=${cursor}`), 400)).toContain('sort');
  });

  it.each([
    ['cursor=abc', 'cursor'],
    [`cursor=${Buffer.from("2024-01-01T00:00:00Z|0x1' or 1=1").toString('base64url')}`, 'cursor'],
    ['risk_level=extreme', 'risk_level'],
    ['min_risk_score=101', 'min_risk_score'],
    ['max_risk_score=-1', 'max_risk_score'],
    ['min_risk_score=50&max_risk_score=10', 'min_risk_score'],
    ['is_honeypot=yes', 'is_honeypot'],
    ['min_liquidity_usd=abc', 'min_liquidity_usd'],
    ['created_after=yesterday', 'created_after'],
    ['created_after=2024-13-45', 'created_after'],
    ['q=', 'q'],
    [`q=${'x'.repeat(65)}`, 'q'],
    ['sort=price', 'sort'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['chain_id=999', 'chain_id'],
    ['has_liquidity=1', 'has_liquidity'],
    ['is_actively_traded=maybe', 'is_actively_traded'],
  ])('?%s → 400 naming %s', async (query, field) => {
    expect(
      expectError(
        await call(stack.A, 'GET', `/api/tokens?${query}`, { headers: bearer(stack.proKey) }),
        400,
      ),
    ).toContain(field);
  });

  it('detail → 200; unknown → 404 Token not found; addresses case-insensitive, answered lower-case', async () => {
    const detail = expectShape(
      S.tokenDetail,
      await call(
        stack.A,
        'GET',
        `/api/tokens/${addr(0xa001).toUpperCase().replace('0X', '0x')}?chain_id=1`,
        { headers: bearer(stack.proKey) },
      ),
    );
    expect(detail).toMatchObject({
      contract_address: addr(0xa001),
      symbol: 'SAFE',
      current_risk_score: 10,
      code_length: 1234,
    });
    expectError(
      await call(stack.A, 'GET', `/api/tokens/${addr(0xdead)}?chain_id=1`, {
        headers: bearer(stack.proKey),
      }),
      404,
      MSG.tokenNotFound,
    );
  });
});

describe('manual refresh', () => {
  it('202 {status: queued} for a known token, then 429 Refresh cooldown active with Retry-After for 10 s', async () => {
    const r = await call(stack.A, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, {
      headers: bearer(stack.proKey),
    });
    expect(expectShape(S.refreshResponse, r, 202)).toEqual({ status: 'queued' });
    const jobs = await stack.producer
      .queue('bytecode')
      .getJobs(['waiting', 'prioritized', 'delayed']);
    expect(
      jobs.some(
        (j) =>
          j.data.address === addr(0xa002) &&
          String(j.id).startsWith(`bytecode-1-${addr(0xa002)}-manual-`),
      ),
    ).toBe(true);
    const again = await call(stack.B, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, {
      headers: bearer(stack.proKey),
    });
    expectError(again, 429, MSG.cooldown);
    const retry = Number(again.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(10);
  });

  it('an unknown token on a chain without RPC → 404; missing chain_id → 400; FREE → 403', async () => {
    expectError(
      await call(stack.A, 'POST', `/api/tokens/${addr(0xfeed)}/refresh?chain_id=1`, {
        headers: bearer(stack.proKey),
      }),
      404,
      MSG.tokenNotFound,
    );
    expect(
      expectError(
        await call(stack.A, 'POST', `/api/tokens/${addr(0xfeed)}/refresh`, {
          headers: bearer(stack.proKey),
        }),
        400,
      ),
    ).toContain('chain_id');
    expectError(
      await call(stack.A, 'POST', `/api/tokens/${addr(0xa002)}/refresh?chain_id=1`, {
        headers: bearer((await stack.makeUser('FREE')).jwt),
      }),
      403,
      MSG.basic,
    );
  });
});

describe('OpenAPI 3.1 at /docs', () => {
  it('serves the document generated from the route schemas, and a page that needs no other origin', async () => {
    const doc = (await call(stack.A, 'GET', '/docs/openapi.json')).body as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { parameters: { name: string }[]; responses: Record<string, unknown> }>
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    const expected: [string, string][] = [
      ['/api/auth/signup', 'post'],
      ['/api/auth/signin', 'post'],
      ['/api/auth/me', 'get'],
      ['/api/auth/generate-api-key', 'post'],
      ['/api/auth/api-keys', 'get'],
      ['/api/auth/api-keys/{apiKey}', 'delete'],
      ['/api/tokens', 'get'],
      ['/api/tokens/{address}', 'get'],
      ['/api/tokens/{address}/refresh', 'post'],
      ['/api/creators', 'get'],
      ['/api/creators/{address}', 'get'],
      ['/api/watchlist', 'get'],
      ['/api/watchlist', 'post'],
      ['/api/watchlist/{address}', 'delete'],
      ['/api/pro/tokens/{address}', 'get'],
      ['/api/pro/tokens', 'get'],
      ['/api/pro/tokens/bulk', 'post'],
      ['/api/pro/export', 'get'],
      ['/api/preferences', 'get'],
      ['/api/preferences', 'put'],
    ];
    // Exactly the mounted routes: one declaration each, nothing documented that is not served.
    expect(
      Object.entries(doc.paths)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`))
        .sort(),
    ).toEqual(
      stack.routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`).sort(),
    );
    for (const [path, method] of expected)
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths['/api/tokens']!.get!.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['q', 'risk_level', 'min_liquidity_usd', 'sort']),
    );
    expect(doc.paths['/api/pro/tokens']!.get!.parameters.map((p) => p.name)).toEqual([
      'addresses',
      'chain_ids',
      'min_liquidity',
      'max_risk_score',
      'include_history',
      'limit',
      'offset',
      'fields',
    ]);
    expect(doc.paths['/api/pro/tokens/{address}']!.get!.parameters.map((p) => p.name)).toEqual([
      'address',
      'chain_id',
      'include_history',
      'include_analyses',
      'include_admin_functions',
    ]);
    expect(Object.keys(doc.paths['/api/pro/tokens/bulk']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '429']),
    );
    const page = await fetch(`${stack.A}/docs`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    // The renderer's bundle from this origin; no inline script, nothing from elsewhere.
    expect(html).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|https?:\/\//);
  });
});

describe('plan gating for JWT callers', () => {
  const gated = async (user: TestUser) => {
    const h = bearer(user.jwt);
    return {
      tokens: await call(stack.A, 'GET', '/api/tokens', { headers: h }),
      detail: await call(stack.A, 'GET', `/api/tokens/${addr(0xa001)}?chain_id=1`, { headers: h }),
      riskFilter: await call(stack.A, 'GET', '/api/tokens?risk_level=low', { headers: h }),
      watchlist: await call(stack.A, 'GET', '/api/watchlist', { headers: h }),
      watchAdd: await call(stack.A, 'POST', '/api/watchlist', {
        headers: h,
        body: { address: addr(0xa001), chain_id: 1 },
      }),
      watchDelete: await call(stack.A, 'DELETE', `/api/watchlist/${addr(0xa001)}?chain_id=1`, {
        headers: h,
      }),
      creators: await call(stack.A, 'GET', '/api/creators', { headers: h }),
      creator: await call(stack.A, 'GET', `/api/creators/${CREATOR}`, { headers: h }),
      pro: await call(stack.A, 'GET', `/api/pro/tokens/${addr(0xa001)}?chain_id=1`, { headers: h }),
      proList: await call(stack.A, 'GET', '/api/pro/tokens', { headers: h }),
      bulk: await call(stack.A, 'POST', '/api/pro/tokens/bulk', {
        headers: h,
        body: { tokens: [{ address: addr(0xa001), chain_id: 1 }] },
      }),
    };
  };

  const expectFree = (r: Awaited<ReturnType<typeof gated>>) => {
    const list = expectShape(S.tokenList, r.tokens);
    // The keys stay (one client model), the values are not theirs.
    for (const item of list.items)
      expect(item).toMatchObject({ current_risk_score: null, current_risk_level: null });
    const detail = expectShape(S.tokenDetail, r.detail);
    expect(detail).toMatchObject({ current_risk_score: null, current_risk_level: null });
    expectError(r.riskFilter, 403, MSG.basic);
    for (const x of [r.watchlist, r.watchAdd, r.watchDelete, r.creators, r.creator])
      expectError(x, 403, MSG.basic);
    for (const x of [r.pro, r.proList, r.bulk]) expectError(x, 403, MSG.pro);
  };

  it('FREE: tokens without risk fields; 403 on risk filters, watchlist, creators and PRO routes', async () => {
    expectFree(await gated(await stack.makeUser('FREE')));
  });

  it('BASIC: risk fields, watchlist and creators; 403 PRO plan required on PRO routes', async () => {
    const r = await gated(await stack.makeUser('BASIC'));
    const list = expectShape(S.tokenList, r.tokens);
    expect(list.items.find((i) => i.symbol === 'SAFE')).toMatchObject({
      current_risk_score: 10,
      current_risk_level: 'low',
    });
    expect(expectShape(S.tokenDetail, r.detail).current_risk_score).toBe(10);
    expect(expectShape(S.tokenList, r.riskFilter).items.map((i) => i.symbol)).toEqual(['SAFE']);
    expectShape(S.watchlistResponse, r.watchlist);
    expectShape(S.watchlistItem, r.watchAdd, 201);
    expectShape(S.watchlistRemoved, r.watchDelete);
    expectShape(S.creatorList, r.creators);
    expectShape(S.creatorDetail, r.creator);
    for (const x of [r.pro, r.proList, r.bulk]) expectError(x, 403, MSG.pro);
  });

  it('PRO: everything, the PRO routes included with a Bearer JWT', async () => {
    const r = await gated(await stack.makeUser('PRO'));
    expectShape(S.tokenList, r.tokens);
    expectShape(S.watchlistItem, r.watchAdd, 201);
    expectShape(S.creatorList, r.creators);
    expectShape(S.completeToken, r.pro);
    expectShape(S.proTokenList, r.proList);
    expectShape(S.bulkResponse, r.bulk);
  });

  it('an expired trial is FREE at once, and the scheduled job records the downgrade', async () => {
    const user = await stack.makeUser('PRO', { trialEndsAt: new Date(Date.now() - 1_000) });
    expectFree(await gated(user));
    const me = expectShape(
      S.userSchema,
      await call(stack.A, 'GET', '/api/auth/me', { headers: bearer(user.jwt) }),
    );
    expect(me).toMatchObject({ plan: 'FREE', plan_state: 'trial_expired' });
    await createAccountsProcessor({ accounts: stack.accounts, logger: silentLogger })({
      task: 'maintenance',
    });
    const row = await stack.accounts.userById(user.user.id);
    expect(row).toMatchObject({ plan: 'FREE', downgradedFrom: 'PRO' });
    expect(row!.downgradedAt).not.toBeNull();
  });
});
