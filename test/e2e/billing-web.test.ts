import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Service, startService } from '../../app/service.ts';
import { silentLogger } from '../../infra/logger.ts';
import { type LocalStripe, startLocalStripe } from '../support/protocol/stripe-server.ts';
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
  screenshots,
  seriousViolations,
  waitFor,
} from './web-support.ts';

/**
 * Buying a plan in a real browser (Debian's chromium): the settings page lists BASIC and PRO,
 * monthly and annual, with the processor's prices; "Upgrade to PRO" goes to the (local) Checkout
 * page, "Subscribe" there sends the signed webhook events Stripe would and comes back to the
 * settings page, which shows PRO on a trial once the webhook has landed; "Manage billing" goes to
 * the (local) billing portal and back. The API role of the service on real Postgres and Redis,
 * with STRIPE_API_URL's counterpart pointing at test/support/protocol/stripe-server.ts.
 */

const RUN = browserAvailable();
const PRICES = {
  BASIC: { monthly: 'price_web_basic_m', annual: 'price_web_basic_a' },
  PRO: { monthly: 'price_web_pro_m', annual: 'price_web_pro_a' },
};
const PLAN_WAIT_MS = 20_000;

let database: TestDatabase;
let redis: TestRedis;
let stripe: LocalStripe;
let service: Service;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const email = `buyer-${randomBytes(4).toString('hex')}@example.test`;
const password = `pw-${randomBytes(8).toString('hex')}`;

describe.runIf(RUN)('buying a plan in chromium', () => {
  beforeAll(async () => {
    buildWeb();
    [database, redis, stripe] = await Promise.all([
      createTestDatabase(),
      createTestRedis(),
      startLocalStripe([
        { id: PRICES.BASIC.monthly, unitAmount: 900, currency: 'usd', interval: 'month' },
        { id: PRICES.BASIC.annual, unitAmount: 9_000, currency: 'usd', interval: 'year' },
        { id: PRICES.PRO.monthly, unitAmount: 2_900, currency: 'usd', interval: 'month' },
        { id: PRICES.PRO.annual, unitAmount: 29_000, currency: 'usd', interval: 'year' },
      ]),
    ]);
    service = await startService({
      roles: new Set(['api']),
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      chains: [],
      knownChainIds: new Set([1]),
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: database.embedded ? 1 : 4,
      billing: {
        secretKey: stripe.secretKey,
        webhookSecret: stripe.webhookSecret,
        prices: PRICES,
        apiUrl: stripe.url,
      },
    });
    stripe.setWebhookUrl(`${service.url}/api/billing/webhook`);
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(signup.status).toBe(201);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await Promise.all([stripe?.close(), database?.drop(), redis?.cleanup()]);
  });

  it('a FREE user picks PRO on the settings page, pays on the Checkout page and comes back on a PRO trial', async () => {
    await page.goto(`${service.url}/`);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('#password').press('Enter');
    await page.locator('h1:has-text("Live feed")').waitFor();
    await page.goto(`${service.url}/settings`);
    const offers = page.locator('.plan-offer');
    await offers.first().waitFor();
    expect(await offers.allTextContents()).toEqual([
      expect.stringMatching(/^BASIC\$9\.00 \/ month7-day free trial/),
      expect.stringMatching(/^PRO\$29\.00 \/ month7-day free trial/),
    ]);
    await page.getByLabel('Annual').check();
    await expect(page.locator('.plan-price').allTextContents()).resolves.toEqual([
      '$90.00 / year',
      '$290.00 / year',
    ]);
    await page.getByLabel('Monthly').check();
    const violations = await seriousViolations(page);
    expect(violations, JSON.stringify(violations)).toEqual([]);
    await screenshots(page, 'settings-billing');

    await page.getByRole('button', { name: 'Upgrade to PRO (monthly)' }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    await expect(page.locator('main').textContent()).resolves.toContain(
      `Price ${PRICES.PRO.monthly}, 7-day trial`,
    );
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForURL(`${service.url}/settings?billing=success`);
    await waitFor(
      async () => (await page.locator('header .plan').textContent()) === 'PRO',
      PLAN_WAIT_MS,
      'PRO in the header',
    );
    // The plan panel, then the billing panel's subscription.
    await page.getByText('PRO (trialing)', { exact: true }).waitFor({ timeout: PLAN_WAIT_MS });
    await page.getByText('Thank you! You are on PRO now.').waitFor({ timeout: PLAN_WAIT_MS });
    await page
      .getByText(/^PRO, monthly \(trialing\)\. The trial ends and the first payment is due on /)
      .waitFor();
    // PRO: the API keys panel is there.
    await page.getByRole('button', { name: 'Generate API key' }).waitFor();
    await screenshots(page, 'settings-billing-pro');

    await page.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL(`${stripe.url}/portal/**`);
    await page.getByRole('link', { name: 'Return' }).click();
    await page.waitForURL(`${service.url}/settings`);
    await page.locator('#plan-title').waitFor();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
