import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, createDemoLauncher } from '../../app/embedded/index.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../support/services.ts';
import {
  browserAvailable,
  buildWeb,
  launchBrowser,
  type Stack,
  screenshots,
  seriousViolations,
  startStack,
  waitFor,
} from './web-support.ts';

/**
 * The web app in a real browser (Debian's chromium) against the real stack on the demo chain:
 * FREE without scores, BASIC with scores, creator page and watching, the live feed within 10 s
 * of a block, a honeypot's failed sell as evidence, PRO API keys, the second tab's fallback to
 * polling, an expired session, the API down. Every page is checked with axe-core and
 * photographed at 375 and 1440 px (test/e2e/screenshots/).
 */

const RUN = browserAvailable();
const DEMO_INTERVAL_SECONDS = '2';
/** docs/web.md promises a new token in the feed within 10 s of its block. */
const FEED_LATENCY_MS = 10_000;
const HONEYPOT_WAIT_MS = 120_000;
/** Longer than the app's second retry of a refused live connection (3 s, then 30 s). */
const FIRST_TAB_LIVE_MS = 40_000;
const REFRESH_EVERY_MS = 20_000;

let database: TestDatabase;
let redis: TestRedis;
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = `web-${randomBytes(4).toString('hex')}@example.test`;
const password = `pw-${randomBytes(8).toString('hex')}`;
const pageErrors: string[] = [];

interface ListedToken {
  contract_address: string;
  chain_id: number;
  current_risk_level?: string | null;
  name: string | null;
  creator?: string | null;
}

async function apiGet<T>(path: string): Promise<T> {
  const response = await fetch(`${stack.banner.api}${path}`, {
    headers: { authorization: `Bearer ${opsKey}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(stack.banner.chains[0]!.rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

async function expectAccessible(name: string) {
  const violations = await seriousViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
}

async function setPlan(plan: 'basic' | 'pro' | 'free') {
  await stack.cli('users', 'set-plan', '--email', email, '--plan', plan);
}

async function visit(path: string, ready: string) {
  await page.goto(new URL(path, stack.banner.web).toString());
  await page.locator(ready).first().waitFor({ timeout: 20_000 });
}

let opsKey = '';

/** A PRO account made with the CLI, and an API key generated for it through the API. */
async function proKeyOfItsOwn(): Promise<string> {
  const opsEmail = `ops-${randomBytes(4).toString('hex')}@example.test`;
  const opsPassword = `pw-${randomBytes(8).toString('hex')}`;
  await stack.cli(
    'users',
    'create',
    '--email',
    opsEmail,
    '--password',
    opsPassword,
    '--plan',
    'pro',
  );
  const signin = await fetch(`${stack.banner.api}/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: opsEmail, password: opsPassword }),
  });
  const { token } = (await signin.json()) as { token: string };
  const generate = (body: object) =>
    fetch(`${stack.banner.api}/auth/generate-api-key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  let response = await generate({ plan: 'pro', name: 'e2e reader' });
  if (response.status === 400) response = await generate({ name: 'e2e reader' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { api_key: string }).api_key;
}

describe.runIf(RUN)('web app in chromium', () => {
  beforeAll(async () => {
    buildWeb();
    [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    stack = await startStack({
      DATABASE_URL: database.url,
      REDIS_PREFIX: redis.prefix,
      DEMO_INTERVAL_SECONDS,
      LOG_LEVEL: 'info',
      DATA_DIR: `/tmp/tm-web-e2e-${randomBytes(4).toString('hex')}`,
    });
    // With a DATABASE_URL there is no demo account (embedded default only): the test reads the
    // API with a PRO key of its own, far more often than a person would.
    opsKey = await proKeyOfItsOwn();
    await stack.cli(
      'keys',
      'set-limits',
      '--key',
      opsKey,
      '--per-minute',
      '100000',
      '--per-hour',
      '1000000',
      '--per-day',
      '10000000',
    );
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
        pageErrors.push(m.text());
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await Promise.all([database?.drop(), redis?.cleanup()]);
  });

  it('serves the page with a CSP without inline scripts; the banner names the web app first', async () => {
    expect(stack.banner.web).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(Object.keys(stack.banner).indexOf('web')).toBeLessThan(
      Object.keys(stack.banner).indexOf('api'),
    );
    // A real database is not the embedded default: no demo account is printed.
    expect(stack.banner.demo_account).toBeNull();
    const response = await fetch(stack.banner.web, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // The API keeps its JSON 404.
    const missing = await fetch(`${stack.banner.api}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: expect.any(String) });
  });

  it('sign-in and sign-up pages, then a FREE account sees tokens without scores', async () => {
    await visit('/', 'h1:has-text("Sign in")');
    await expectAccessible('sign in');
    await screenshots(page, 'signin');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.locator('h1:has-text("Create your account")').waitFor();
    await expectAccessible('sign up');
    await screenshots(page, 'signup');
    // Keyboard only: type, tab, submit with Enter.
    await page.locator('#email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.locator('h1:has-text("Live feed")').waitFor();
    await expect(page.locator('.plan').textContent()).resolves.toBe('FREE');
    await page.locator('table.feed tbody tr').first().waitFor({ timeout: 30_000 });
    await expect(page.getByText('BASIC shows the risk score').count()).resolves.toBeGreaterThan(0);
    await expect(
      page
        .locator(
          'table.feed .badge-low, table.feed .badge-medium, table.feed .badge-high, table.feed .badge-honeypot',
        )
        .count(),
    ).resolves.toBe(0);
    await expect(page.locator('.live-polling').textContent()).resolves.toContain('BASIC');
    await expectAccessible('feed (FREE)');
    await screenshots(page, 'feed-free');
    await visit('/watchlist', 'h1:has-text("Watchlist")');
    await expect(page.getByText('comes with the BASIC plan').count()).resolves.toBe(1);
    await expectAccessible('watchlist (FREE)');
  });

  it('BASIC: scores, the token page, the creator page and watching appear', async () => {
    await setPlan('basic');
    await visit('/', 'table.feed tbody tr');
    await waitFor(
      async () => (await page.locator('.plan').textContent()) === 'BASIC',
      20_000,
      'the BASIC plan in the header',
    );
    await waitFor(
      async () =>
        (await page
          .locator(
            'table.feed .badge-low, table.feed .badge-medium, table.feed .badge-high, table.feed .badge-honeypot',
          )
          .count()) > 0,
      30_000,
      'risk badges',
    );
    await waitFor(
      async () => (await page.locator('.live-on').count()) > 0,
      20_000,
      'the live connection',
    );

    const tokens = await apiGet<{ items: ListedToken[] }>('/tokens?limit=50');
    const scored = tokens.items.find(
      (t) =>
        t.current_risk_level && t.current_risk_level !== 'honeypot' && t.name !== 'Wrapped Ether',
    );
    expect(scored).toBeDefined();
    await visit(`/token/${scored!.chain_id}/${scored!.contract_address}`, '#token-title');
    await page.locator('#why-title').waitFor();
    await expect(page.locator('.verdict-panel .badge').first().textContent()).resolves.toMatch(
      /^\d+ · (low|medium|high|honeypot)$/,
    );
    await page.getByRole('button', { name: 'Watch', exact: true }).click();
    await page.getByRole('button', { name: 'Unwatch' }).waitFor();
    await page.locator('#creator-title ~ dl a').first().waitFor();
    await expectAccessible('token page (BASIC)');
    await screenshots(page, 'token-basic');
    await page.locator('#creator-title ~ dl a').first().click();
    await page.locator('h1:has-text("Creator")').waitFor();
    await page.locator('text=Their tokens').waitFor();
    await expect(page.locator('table.rows tbody tr').count()).resolves.toBeGreaterThan(0);
    await expectAccessible('creator page');
    await screenshots(page, 'creator');
    await visit('/watchlist', '.watch-list li');
    await expect(page.locator('.watch-list li').count()).resolves.toBe(1);
    await expectAccessible('watchlist');
    await screenshots(page, 'watchlist');
    await visit('/tokens?sort=-current_risk_score', 'table.rows tbody tr');
    await expectAccessible('tokens');
    await screenshots(page, 'tokens');

    // Alert preferences: each change is accepted by PUT /api/preferences (the body the API's
    // generated types require, email_alerts included) and still there after a reload.
    const savePreference = async (label: string) => {
      const box = page.getByLabel(label, { exact: true });
      const before = await box.isChecked();
      const [put] = await Promise.all([
        page.waitForResponse(
          (r) => r.url().endsWith('/api/preferences') && r.request().method() === 'PUT',
        ),
        box.click(),
      ]);
      expect(put.status(), `${label}: ${await put.text()}`).toBe(200);
      await expect.poll(() => box.isChecked()).toBe(!before);
      return !before;
    };
    await visit('/settings', 'legend:has-text("Email alerts")');
    if (!(await page.getByLabel('Send me email alerts').isChecked()))
      await savePreference('Send me email alerts');
    const rugAlerts = await savePreference('Rug pull');
    await visit('/settings', 'legend:has-text("Email alerts")');
    await expect
      .poll(() => page.getByLabel('Rug pull', { exact: true }).isChecked())
      .toBe(rugAlerts);
  });

  it('a token deployed by the demo launcher shows up in the live feed within 10 s of its block', async () => {
    await visit('/', 'table.feed tbody tr');
    await waitFor(
      async () => (await page.locator('.live-on').count()) > 0,
      20_000,
      'the live connection',
    );
    const before = new Set(
      await page
        .locator('table.feed tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-address'))),
    );
    // The first row that was not there, and the moment the browser shows it.
    const arrival = await page.waitForFunction(
      (known: string[]) => {
        type Row = { getAttribute(name: string): string | null };
        const doc = (
          globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Row> } }
        ).document;
        const row = [...doc.querySelectorAll('table.feed tbody tr')].find(
          (r) => !known.includes(r.getAttribute('data-address') ?? ''),
        );
        return row ? { address: row.getAttribute('data-address'), at: Date.now() } : null;
      },
      [...before].filter((a): a is string => a !== null),
      { timeout: 60_000, polling: 100 },
    );
    const { address, at } = (await arrival.jsonValue())!;
    const detail = await apiGet<{
      creation_block_number: number | null;
      full_token_data?: { born_block?: number };
    }>(`/tokens/${address}?chain_id=31337`);
    const blockNumber = detail.full_token_data?.born_block ?? detail.creation_block_number;
    expect(blockNumber).toEqual(expect.any(Number));
    const block = await rpc<{ timestamp: string }>('eth_getBlockByNumber', [
      `0x${blockNumber!.toString(16)}`,
      false,
    ]);
    const blockMs = Number(BigInt(block.timestamp)) * 1000;
    // Block timestamps have whole-second precision: the block may be up to 1 s older than stamped.
    expect(at - blockMs).toBeLessThanOrEqual(FEED_LATENCY_MS);
    await expectAccessible('feed (BASIC, live)');
    await screenshots(page, 'feed');
  }, 120_000);

  it(
    'a honeypot shows its verdict with the failed sell as evidence',
    async () => {
      // The demo launcher's mix has few honeypots (6 %): one is launched now with its code, on its chain.
      expect(stack.uniswap).toBeDefined();
      const launcher = createDemoLauncher({
        rpcUrl: stack.banner.chains[0]!.rpc,
        privateKey: ANVIL_PRIVATE_KEYS[6],
        uniswap: stack.uniswap!,
      });
      const launched = await launcher.launchOne('honeypot', { liquidity: true, buy: true });
      await launcher.stop();
      const address = launched.address.toLowerCase();
      const auth = { authorization: `Bearer ${opsKey}` };
      let lastRefresh = Date.now();
      let seen = 'nothing yet';
      const honeypot = await waitFor(
        async () => {
          const response = await fetch(`${stack.banner.api}/tokens/${address}?chain_id=31337`, {
            headers: auth,
          });
          const token = response.ok
            ? ((await response.json()) as ListedToken & { analysis_stage?: string })
            : undefined;
          seen = token
            ? `level ${token.current_risk_level}, stage ${token.analysis_stage}`
            : `HTTP ${response.status}`;
          if (token?.current_risk_level === 'honeypot') return token;
          // Simulated before its liquidity landed (a loaded machine): ask for the analysis again,
          // as a person would with the Refresh button, instead of waiting for the next DEX round.
          if (token && Date.now() - lastRefresh > REFRESH_EVERY_MS) {
            lastRefresh = Date.now();
            await fetch(`${stack.banner.api}/tokens/${address}/refresh?chain_id=31337`, {
              method: 'POST',
              headers: auth,
            });
          }
          return undefined;
        },
        HONEYPOT_WAIT_MS,
        `the honeypot ${address} judged (last seen: ${seen})`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last seen: ${seen}`);
      });
      await visit(`/token/${honeypot.chain_id}/${honeypot.contract_address}`, '#token-title');
      const callout = page.locator('.callout-bad');
      await callout.waitFor();
      await expect(callout.locator('h2').textContent()).resolves.toContain('Honeypot');
      const evidence = (await callout.textContent()) ?? '';
      expect(evidence.toLowerCase()).toContain('sell');
      await expect(page.locator('#sim-title ~ dl').textContent()).resolves.toMatch(/Sellfails/);
      await expectAccessible('token page (honeypot)');
      await screenshots(page, 'token');
    },
    HONEYPOT_WAIT_MS + 60_000,
  );

  it(
    'a token launched into a V4 pool whose hook blocks sells shows the pool, the hook and what it did',
    async () => {
      expect(stack.v4).toBeDefined();
      const launcher = createDemoLauncher({
        rpcUrl: stack.banner.chains[0]!.rpc,
        privateKey: ANVIL_PRIVATE_KEYS[7],
        uniswap: stack.uniswap!,
        v4: stack.v4,
      });
      const launched = await launcher.launchOne('simple', {
        liquidity: true,
        buy: true,
        venue: 'v4-sell-gate',
      });
      await launcher.stop();
      const address = launched.address.toLowerCase();
      const hook = launched.v4!.hook!;
      let lastRefresh = Date.now();
      let seen = 'nothing yet';
      await waitFor(
        async () => {
          const token = await apiGet<{
            current_risk_level: string | null;
            dex_hints: { has_v4_liquidity: boolean | null } | null;
            trading_simulation: { error: string | null; is_sellable: boolean | null } | null;
          }>(`/tokens/${address}?chain_id=31337`).catch(() => undefined);
          seen = JSON.stringify({
            level: token?.current_risk_level,
            v4: token?.dex_hints?.has_v4_liquidity,
            simulation: token?.trading_simulation,
          });
          if (token?.current_risk_level === 'honeypot') return token;
          // As the V2 honeypot test does: a pass simulated before the liquidity landed on a loaded
          // machine is asked for again, as a person would with the Refresh button.
          if (token && Date.now() - lastRefresh > REFRESH_EVERY_MS) {
            lastRefresh = Date.now();
            await fetch(`${stack.banner.api}/tokens/${address}/refresh?chain_id=31337`, {
              method: 'POST',
              headers: { authorization: `Bearer ${opsKey}` },
            });
          }
          return undefined;
        },
        HONEYPOT_WAIT_MS,
        `the V4 honeypot ${address} judged`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last seen: ${seen}`);
      });
      await visit(`/token/31337/${address}`, '#token-title');
      await page.locator('#hook-title').waitFor();
      const section = (await page.locator('section.hook').textContent()) ?? '';
      expect(section).toContain(hook);
      expect(section).toContain('beforeSwap');
      expect(section).toContain("reverted a stranger's sell");
      expect(section).toContain('treats its creator differently');
      const market = (await page.locator('#market-title ~ dl').textContent()) ?? '';
      expect(market).toContain('uniswap-v4');
      const callout = (await page.locator('.callout-bad').textContent()) ?? '';
      expect(callout).toContain(hook);
      await expectAccessible('token page (V4 hook honeypot)');
      await screenshots(page, 'token-v4-hook');
    },
    HONEYPOT_WAIT_MS + 60_000,
  );

  it('PRO: generate a key (secret shown once), list it, revoke it', async () => {
    await setPlan('pro');
    await visit('/settings', '#plan-title');
    // No STRIPE_ configuration here: the page says so instead of offering plans.
    await page.getByTestId('billing-not-configured').waitFor();
    await waitFor(
      async () => (await page.locator('.plan').textContent()) === 'PRO',
      20_000,
      'the PRO plan',
    );
    await page.locator('#key-name').fill('e2e key');
    await page.getByRole('button', { name: 'Generate API key' }).click();
    const secret = await page.locator('[data-testid=new-api-secret]').textContent();
    const key = await page.locator('[data-testid=new-api-key]').textContent();
    expect(secret).toMatch(/^svc_secret_[0-9a-f]+$/);
    expect(key).toMatch(/^svc_pro_[0-9a-f]+$/);
    await expectAccessible('settings (new key)');
    await page.locator('table.keys tbody tr').first().waitFor();
    const listed = await page.locator('table.keys tbody tr').first().textContent();
    expect(listed).toContain(key!.slice(0, 12));
    expect(listed).toContain('…');
    await page.getByRole('button', { name: 'I have copied them' }).click();
    await page.reload();
    await page.locator('table.keys tbody tr').first().waitFor();
    expect(await page.content()).not.toContain(secret!);
    await screenshots(page, 'settings');
    await page.getByRole('button', { name: /^Revoke key/ }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByText('No active key.').waitFor();
    const response = await fetch(`${stack.banner.api}/pro/tokens`, {
      headers: { 'x-api-key': key! },
    });
    expect(response.status).toBe(401);
  });

  it('a second tab of a BASIC user falls back to polling and says why', async () => {
    await setPlan('basic');
    await visit('/', 'table.feed tbody tr');
    // The previous page's connection may still hold the user's one slot when this one opens: the
    // app retries after 3 s, then every 30 s (web/src/live.ts), so the wait covers a second retry.
    await waitFor(
      async () => (await page.locator('.live-on').count()) > 0,
      FIRST_TAB_LIVE_MS,
      'the first tab live',
    );
    const second = await context.newPage();
    await second.goto(stack.banner.web);
    await second.locator('.live-polling').waitFor({ timeout: 20_000 });
    await expect(second.locator('.live-polling').textContent()).resolves.toContain(
      'allows one live connection',
    );
    await second.locator('table.feed tbody tr').first().waitFor();
    await second.close();
  }, 90_000);

  it('follows the system dark mode, still accessible', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await visit('/', 'table.feed tbody tr');
    const background = await page.evaluate(() => {
      const scope = globalThis as unknown as {
        getComputedStyle(e: unknown): { backgroundColor: string };
        document: { body: unknown };
      };
      return scope.getComputedStyle(scope.document.body).backgroundColor;
    });
    expect(background).toBe('rgb(13, 17, 23)');
    await expectAccessible('feed (dark)');
    await screenshots(page, 'feed-dark');
    const href = await page.locator('table.feed tbody tr a').first().getAttribute('href');
    await visit(href!, '#token-title');
    await page.locator('#risk-title').waitFor();
    await expectAccessible('token page (dark)');
    await screenshots(page, 'token-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('broken states: the API down, an expired session', async () => {
    await page.route('**/api/tokens**', (route) => route.abort('connectionrefused'));
    await visit('/tokens', '.state-error');
    await expect(page.locator('.state-error').textContent()).resolves.toContain(
      'cannot be reached',
    );
    await expectAccessible('tokens (API down)');
    await page.unroute('**/api/tokens**');
    await page.evaluate(() => {
      const storage = (
        globalThis as unknown as {
          localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void };
        }
      ).localStorage;
      const raw = JSON.parse(storage.getItem('token-monitor.session')!);
      // A JWT the server no longer accepts, as after expiry or a secret rotation.
      storage.setItem('token-monitor.session', JSON.stringify({ ...raw, token: `${raw.token}x` }));
    });
    await page.goto(new URL('/watchlist', stack.banner.web).toString());
    await page.locator('h1:has-text("Sign in")').waitFor({ timeout: 20_000 });
    await expect(page.locator('.notice').textContent()).resolves.toContain('session has expired');
    expect(pageErrors).toEqual([]);
  });
});
