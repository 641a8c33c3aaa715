import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Service, startService } from '../../app/service.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { type AccountRepository, createAccountRepository } from '../../db/repositories/accounts.ts';
import { type BillingRepository, createBillingRepository } from '../../db/repositories/billing.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { hashPassword } from '../../src/accounts/credentials.ts';
import type { PriceIds } from '../../src/billing/index.ts';
import { DAY_MS } from '../../src/plans.ts';
import {
  closeServer,
  type JsonResult,
  listen,
  request,
  testAppDeps,
} from '../../test/support/api.ts';
import { type SmtpSink, startSmtpSink } from '../../test/support/protocol/smtp.ts';
import {
  invoiceObject,
  type LocalStripe,
  signPayload,
  startLocalStripe,
  stripeEvent,
  subscriptionObject,
} from '../../test/support/protocol/stripe-server.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createAccountsProcessor } from '../../workers/accounts/index.ts';
import { createMailer, type Mailer } from '../../workers/alerts.ts';
import { FAILED_AUTH_LIMIT, signToken } from '../access/index.ts';
import { createApp } from '../app.ts';
import { BILLING_MESSAGES } from './billing.ts';

/**
 * Billing on the real stack (docs/operations.md, billing): API and worker roles of one service on
 * real Postgres and Redis, a local server speaking Stripe's API (test/support/protocol/stripe-server.ts),
 * webhook events signed with the stripe library's test-header helper, a local SMTP server for the
 * emails, and an injected clock for trials, the 3-day grace and period ends. Every transition,
 * bad signatures, replays, reordering and an unknown customer.
 */

const JWT_SECRET = 'billing-test-secret-0123456789abcdef0123456789';
const PRICES: PriceIds = {
  BASIC: { monthly: 'price_basic_monthly', annual: 'price_basic_annual' },
  PRO: { monthly: 'price_pro_monthly', annual: 'price_pro_annual' },
};
const LOCAL_PRICES = [
  { id: PRICES.BASIC.monthly, unitAmount: 900, currency: 'usd', interval: 'month' as const },
  { id: PRICES.BASIC.annual, unitAmount: 9_000, currency: 'usd', interval: 'year' as const },
  { id: PRICES.PRO.monthly, unitAmount: 2_900, currency: 'usd', interval: 'month' as const },
  { id: PRICES.PRO.annual, unitAmount: 29_000, currency: 'usd', interval: 'year' as const },
];
const RECHECK_MS = 300;
const CLOSE_WITHIN_MS = 3_000;
const HOUR_MS = 3_600_000;

let database: TestDatabase;
let redis: TestRedis;
let stripe: LocalStripe;
let smtp: SmtpSink;
let service: Service;
let handle: DbHandle;
let accounts: AccountRepository;
let billing: BillingRepository;
let mailer: Mailer;
let now = new Date();
const clock = () => now;
const later = (ms: number) => new Date(now.getTime() + ms);

beforeAll(async () => {
  [database, redis, stripe, smtp] = await Promise.all([
    createTestDatabase(),
    createTestRedis(),
    startLocalStripe(LOCAL_PRICES),
    startSmtpSink(),
  ]);
  handle = createDb(database.url, { max: 2 });
  accounts = createAccountRepository(handle.db);
  billing = createBillingRepository(handle.db);
  mailer = createMailer(smtp.url);
  service = await startService({
    roles: new Set(['api', 'worker']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [],
    knownChainIds: new Set([1]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 4,
    jwtSecret: JWT_SECRET,
    wsRecheckIntervalMs: RECHECK_MS,
    smtpUrl: smtp.url,
    clock,
    billing: {
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      prices: PRICES,
      apiUrl: stripe.url,
    },
    publicUrl: 'http://app.example.test',
  });
  stripe.setWebhookUrl(`${service.url}/api/billing/webhook`);
  stripe.setClock(clock);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  mailer?.close();
  await handle?.close();
  await Promise.all([stripe?.close(), smtp?.close(), database?.drop(), redis?.cleanup()]);
});

beforeEach(() => {
  now = new Date();
});

let serial = 0;
async function newUser() {
  const email = `buyer${++serial}-${process.pid}@billing.test`;
  const user = (await accounts.createUser({
    email,
    passwordHash: await hashPassword('a long password'),
    plan: 'FREE',
  }))!;
  // Long-lived: the clock moves days ahead in some tests.
  const jwt = signToken(user, { secret: JWT_SECRET, ttlSeconds: 90 * 86_400 }, now).token;
  return { user, jwt, email };
}
type Buyer = Awaited<ReturnType<typeof newUser>>;

function call(method: string, path: string, o: { jwt?: string; body?: unknown } = {}) {
  return request(`${service.url}${path}`, {
    method,
    headers: {
      ...(o.jwt ? { authorization: `Bearer ${o.jwt}` } : {}),
      ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

async function me(buyer: Buyer) {
  const result = await call('GET', '/api/auth/me', { jwt: buyer.jwt });
  expect(result.status, result.text).toBe(200);
  return result.body as {
    plan: string;
    plan_state: string;
    trial_ends_at: string | null;
    plan_ends_at: string | null;
    payment_failed_at: string | null;
    downgraded_at: string | null;
    features: { ws_connections: number; api_keys: boolean };
  };
}

/** POSTs an event to the webhook as Stripe would: signed at the (injected) time `at`. */
function deliver(
  event: ReturnType<typeof stripeEvent>,
  o: { secret?: string; at?: Date; signature?: string | null; body?: string } = {},
): Promise<JsonResult> {
  const payload = JSON.stringify(event);
  const signature =
    o.signature === undefined
      ? signPayload(payload, o.secret ?? stripe.webhookSecret, o.at ?? clock())
      : o.signature;
  return request(`${service.url}/api/billing/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === null ? {} : { 'stripe-signature': signature }),
    },
    body: o.body ?? payload,
  });
}

async function accepted(
  event: ReturnType<typeof stripeEvent>,
  o: Parameters<typeof deliver>[1] = {},
) {
  const result = await deliver(event, o);
  expect(result.status, result.text).toBe(200);
  return result.body as { received: true; duplicate: boolean; outcome: string };
}

/** Through the settings page's path: checkout, then "Subscribe" on the (local) Checkout page. */
async function subscribe(buyer: Buyer, plan = 'pro', period = 'monthly') {
  const checkout = await call('POST', '/api/billing/checkout', {
    jwt: buyer.jwt,
    body: { plan, period },
  });
  expect(checkout.status, checkout.text).toBe(201);
  const { checkout_url: url, session_id: sessionId } = checkout.body as {
    checkout_url: string;
    session_id: string;
  };
  const paid = await fetch(url, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toBe('http://app.example.test/settings?billing=success');
  const record = (await billing.billingOf(buyer.user.id))!;
  return {
    customer: record.customerId,
    subscription: stripe.subscriptions.get(sessionId)!,
    sessionId,
  };
}

const proSubscription = (
  ids: { customer: string; subscription: string },
  status: string,
  extra: Partial<Parameters<typeof subscriptionObject>[0]> = {},
) =>
  subscriptionObject({
    id: ids.subscription,
    customer: ids.customer,
    status,
    priceId: PRICES.PRO.monthly,
    periodEnd: later(30 * DAY_MS),
    ...extra,
  });

/** A scheduled maintenance run at the injected time, as the worker role runs it. */
async function maintenance() {
  const commands = createRedis(redis.url, 'commands');
  try {
    await createAccountsProcessor({
      accounts,
      logger: silentLogger,
      clock,
      onPlansChanged: () => bumpAuthGeneration(commands, keySpace(redis.prefix).prefix),
      notices: { mailer, from: 'billing@test' },
    })({ task: 'maintenance' });
  } finally {
    commands.disconnect();
  }
}

function openSocket(jwt: string): Promise<WebSocket> {
  const socket = new WebSocket(`${service.url!.replace('http', 'ws')}/ws?token=${jwt}`);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade refused ${res.statusCode}`)),
    );
    socket.once('error', reject);
  });
}

function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('socket stayed open')), CLOSE_WITHIN_MS);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

describe('buying a plan', () => {
  it('the overview lists BASIC and PRO, monthly and annual, with their prices; a new account is offered 7 days of trial', async () => {
    const buyer = await newUser();
    const result = await call('GET', '/api/billing', { jwt: buyer.jwt });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({
      configured: true,
      plans: [
        {
          plan: 'BASIC',
          period: 'monthly',
          price: { amount: 900, currency: 'usd', interval: 'month' },
        },
        {
          plan: 'BASIC',
          period: 'annual',
          price: { amount: 9000, currency: 'usd', interval: 'year' },
        },
        {
          plan: 'PRO',
          period: 'monthly',
          price: { amount: 2900, currency: 'usd', interval: 'month' },
        },
        {
          plan: 'PRO',
          period: 'annual',
          price: { amount: 29000, currency: 'usd', interval: 'year' },
        },
      ],
      trial_days: 7,
      has_billing_account: false,
      subscription: null,
    });
    expect((await call('GET', '/api/billing')).status).toBe(401);
  });

  it('checkout: one customer per account, the chosen price, the trial, the account as reference; bad input is a 400', async () => {
    const buyer = await newUser();
    const before = stripe.requests.length;
    const first = await call('POST', '/api/billing/checkout', {
      jwt: buyer.jwt,
      body: { plan: 'basic', period: 'annual' },
    });
    const second = await call('POST', '/api/billing/checkout', {
      jwt: buyer.jwt,
      body: { plan: 'PRO', period: 'monthly' },
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body).toMatchObject({
      checkout_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/pay\/cs_test_/),
      trial_days: 7,
    });
    const calls = stripe.requests.slice(before).filter((r) => r.path.startsWith('/v1/'));
    expect(calls.map((r) => r.path)).toEqual([
      '/v1/customers',
      '/v1/checkout/sessions',
      '/v1/checkout/sessions',
    ]);
    expect(calls[0]!.form).toMatchObject({
      email: buyer.email,
      'metadata.user_id': String(buyer.user.id),
    });
    const customer = (await billing.billingOf(buyer.user.id))!.customerId;
    expect(calls[1]!.form).toMatchObject({
      mode: 'subscription',
      customer,
      client_reference_id: String(buyer.user.id),
      'line_items.0.price': PRICES.BASIC.annual,
      'subscription_data.trial_period_days': '7',
      success_url: 'http://app.example.test/settings?billing=success',
      cancel_url: 'http://app.example.test/settings?billing=cancelled',
    });
    expect(calls[2]!.form['line_items.0.price']).toBe(PRICES.PRO.monthly);
    for (const body of [
      { plan: 'gold', period: 'monthly' },
      { plan: 'pro', period: 'weekly' },
      { plan: 'pro' },
    ]) {
      const refused = await call('POST', '/api/billing/checkout', { jwt: buyer.jwt, body });
      expect(refused.status).toBe(400);
      expect((refused.body as { error: string }).error).toMatch(/plan|period/);
    }
    // The plan changes only on the processor's word.
    expect((await me(buyer)).plan).toBe('FREE');
  });

  it('a FREE user upgrades to PRO: a trial, an API key, 10 WebSocket connections; trial → active on the processor’s word', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    const state = await me(buyer);
    expect(state).toMatchObject({
      plan: 'PRO',
      plan_state: 'trialing',
      features: { ws_connections: 10, api_keys: true },
    });
    expect(new Date(state.trial_ends_at!).getTime()).toBe(
      Math.floor(later(7 * DAY_MS).getTime() / 1000) * 1000,
    );
    const key = await call('POST', '/api/auth/generate-api-key', {
      jwt: buyer.jwt,
      body: { plan: 'pro' },
    });
    expect(key.status, key.text).toBe(201);
    const sockets = await Promise.all(Array.from({ length: 10 }, () => openSocket(buyer.jwt)));
    await expect(openSocket(buyer.jwt)).rejects.toThrow('upgrade refused 429');
    for (const s of sockets) s.close();

    // The trial's end is no downgrade while the processor charges the card.
    now = later(7 * DAY_MS + HOUR_MS);
    expect((await me(buyer)).plan).toBe('PRO');
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), now),
    );
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'active',
      trial_ends_at: null,
    });
    // Already subscribed: the portal, not a second subscription.
    const again = await call('POST', '/api/billing/checkout', {
      jwt: buyer.jwt,
      body: { plan: 'basic', period: 'monthly' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: BILLING_MESSAGES.subscribed });
    const portal = await call('POST', '/api/billing/portal', { jwt: buyer.jwt });
    expect(portal.status, portal.text).toBe(201);
    expect((portal.body as { portal_url: string }).portal_url).toMatch(/\/portal\/bps_/);
    const overview = (await call('GET', '/api/billing', { jwt: buyer.jwt })).body;
    expect(overview).toMatchObject({
      trial_days: 0,
      has_billing_account: true,
      subscription: { status: 'active', plan: 'PRO', period: 'monthly' },
    });
  });

  it('a trial the processor ends without payment (no card) lapses to FREE', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer, 'basic');
    now = later(7 * DAY_MS);
    await accepted(
      stripeEvent(
        'customer.subscription.deleted',
        { ...proSubscription(ids, 'canceled'), items: { data: [] } },
        now,
      ),
    );
    expect(await me(buyer)).toMatchObject({ plan: 'FREE', plan_state: 'downgraded' });
    await smtp.waitFor(buyer.email, /now on the FREE plan/);
  });
});

describe('failed payments', () => {
  it('a failed payment: an email at once, FREE 3 days later (key refused, WebSocket closed 4403), a downgrade email', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), now),
    );
    const key = (
      await call('POST', '/api/auth/generate-api-key', { jwt: buyer.jwt, body: { plan: 'pro' } })
    ).body as { api_key: string };
    const failedAt = now;
    await accepted(stripeEvent('invoice.payment_failed', invoiceObject(ids), now));
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'past_due'), later(1_000)),
    );
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'payment_failed',
      payment_failed_at: failedAt.toISOString(),
    });
    const [mail] = await smtp.waitFor(buyer.email, /payment for your PRO plan failed/);
    expect(mail!.raw).toContain(new Date(failedAt.getTime() + 3 * DAY_MS).toISOString());
    const socket = await openSocket(buyer.jwt);

    now = new Date(failedAt.getTime() + 3 * DAY_MS - 60_000);
    expect((await me(buyer)).plan).toBe('PRO');
    const proCall = () =>
      request(`${service.url}/api/pro/tokens?limit=1`, { headers: { 'x-api-key': key.api_key } });
    expect((await proCall()).status).toBe(200);

    now = new Date(failedAt.getTime() + 3 * DAY_MS + 60_000);
    const closing = closeOf(socket);
    expect(await me(buyer)).toMatchObject({ plan: 'FREE', plan_state: 'payment_failed' });
    expect((await proCall()).status).toBe(401);
    expect(await closing).toEqual({ code: 4403, reason: 'Plan no longer includes the WebSocket' });
    await maintenance();
    expect(await me(buyer)).toMatchObject({ plan: 'FREE', plan_state: 'downgraded' });
    const [downgrade] = await smtp.waitFor(buyer.email, /now on the FREE plan/);
    expect(downgrade!.raw).toMatch(/not settled within 3 days/);

    // Paid at last: the subscription is active again, and so is the plan.
    await accepted(stripeEvent('invoice.paid', invoiceObject(ids), now));
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), now),
    );
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'active',
      downgraded_at: null,
    });
  });

  it('a payment before the grace period ends keeps PRO', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), now),
    );
    await accepted(stripeEvent('invoice.payment_failed', invoiceObject(ids), later(1_000)));
    now = later(2 * DAY_MS);
    await accepted(stripeEvent('invoice.paid', invoiceObject(ids), now));
    now = later(2 * DAY_MS);
    await maintenance();
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'active',
      payment_failed_at: null,
    });
    const notices = await accounts.noticesOf(buyer.user.id);
    expect(notices.map((n) => n.kind)).toEqual(['payment_failed']);
  });
});

describe('cancellation', () => {
  it('cancelled at the period’s end: PRO until then, FREE from then; data kept 30 days, purged after', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), now),
    );
    await accounts.addToWatchlist(buyer.user.id, 1, `0x${'ab'.repeat(20)}`);
    const periodEnd = later(10 * DAY_MS);
    await accepted(
      stripeEvent(
        'customer.subscription.updated',
        proSubscription(ids, 'active', { periodEnd, cancelAtPeriodEnd: true }),
        later(1_000),
      ),
    );
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'active',
      plan_ends_at: periodEnd.toISOString().replace(/\.\d+Z$/, '.000Z'),
    });
    now = new Date(periodEnd.getTime() + 1_000);
    expect(await me(buyer)).toMatchObject({ plan: 'FREE', plan_state: 'cancelled' });
    await accepted(
      stripeEvent(
        'customer.subscription.deleted',
        proSubscription(ids, 'canceled', { periodEnd }),
        now,
      ),
    );
    expect(await me(buyer)).toMatchObject({ plan: 'FREE', plan_state: 'downgraded' });
    await smtp.waitFor(buyer.email, /now on the FREE plan/);
    expect(await accounts.watchlistCount(buyer.user.id)).toBe(1);
    now = later(29 * DAY_MS);
    await maintenance();
    expect(await accounts.watchlistCount(buyer.user.id)).toBe(1);
    now = later(2 * DAY_MS);
    await maintenance();
    expect(await accounts.watchlistCount(buyer.user.id)).toBe(0);
  });
});

describe('the webhook refuses what it cannot trust', () => {
  it('unsigned, wrongly signed, tampered or stale deliveries are a 400 and change nothing', async () => {
    const buyer = await newUser();
    await call('POST', '/api/billing/checkout', {
      jwt: buyer.jwt,
      body: { plan: 'pro', period: 'monthly' },
    });
    const customer = (await billing.billingOf(buyer.user.id))!.customerId;
    const event = () =>
      stripeEvent(
        'customer.subscription.created',
        proSubscription({ customer, subscription: 'sub_forged' }, 'active'),
        now,
      );
    const cases: [string, Parameters<typeof deliver>[1], RegExp][] = [
      ['unsigned', { signature: null }, /Missing Stripe-Signature/],
      ['empty signature', { signature: '' }, /Missing Stripe-Signature/],
      ['garbage signature', { signature: 't=1,v1=deadbeef' }, /Invalid webhook signature/],
      ['wrong secret', { secret: 'whsec_not_the_right_one_at_all' }, /Invalid webhook signature/],
      [
        'signed 6 minutes ago',
        { at: later(-6 * 60_000) },
        /Invalid webhook signature: Timestamp outside the tolerance zone/,
      ],
    ];
    for (const [name, o, message] of cases) {
      const e = event();
      const result = await deliver(e, o);
      expect(result.status, name).toBe(400);
      expect((result.body as { error: string }).error, name).toMatch(message);
      expect(await billing.eventRecord(e.id), name).toBeUndefined();
    }
    const e = event();
    const signed = signPayload(JSON.stringify(e), stripe.webhookSecret, now);
    const tampered = JSON.stringify({ ...e, type: 'customer.subscription.deleted' });
    const result = await deliver(e, { signature: signed, body: tampered });
    expect(result.status).toBe(400);
    expect(await me(buyer)).toMatchObject({ plan: 'FREE' });
  });

  it('an address that keeps failing signatures is throttled (429)', async () => {
    const e = stripeEvent(
      'invoice.paid',
      invoiceObject({ customer: 'cus_x', subscription: 'sub_x' }),
      now,
    );
    let last: JsonResult | undefined;
    for (let i = 0; i <= FAILED_AUTH_LIMIT; i++)
      last = await deliver(e, { secret: 'whsec_wrong_secret_value' });
    expect(last!.status).toBe(429);
    // The throttle is per address: clear it for the other tests (all from 127.0.0.1).
    const commands = createRedis(redis.url, 'commands');
    const keys = await commands.keys(`${keySpace(redis.prefix).prefix}:authfail:*`);
    if (keys.length > 0) await commands.del(...keys);
    commands.disconnect();
  });

  it('a replayed delivery is acknowledged as a duplicate and changes nothing the second time', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    // A second after the trial's $0 invoice was paid at checkout.
    const failed = stripeEvent('invoice.payment_failed', invoiceObject(ids), later(1_000));
    expect((await accepted(failed)).duplicate).toBe(false);
    await accepted(stripeEvent('invoice.paid', invoiceObject(ids), later(2_000)));
    // The same event again (Stripe's retry, or a replay within the tolerance), then re-signed later.
    expect(await accepted(failed)).toMatchObject({ duplicate: true, outcome: 'duplicate' });
    expect(await accepted(failed, { at: later(60_000) })).toMatchObject({ duplicate: true });
    expect(await me(buyer)).toMatchObject({ plan: 'PRO', payment_failed_at: null });
    expect((await accounts.noticesOf(buyer.user.id)).map((n) => n.kind)).toEqual([
      'payment_failed',
    ]);
  });

  it('events out of order: an older subscription state or an older failed payment changes nothing', async () => {
    const buyer = await newUser();
    const ids = await subscribe(buyer);
    const t0 = now;
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), later(20_000)),
    );
    // A trialing snapshot created before the active one arrives late.
    const late = await accepted(
      stripeEvent(
        'customer.subscription.updated',
        proSubscription(ids, 'trialing', { trialEnd: later(7 * DAY_MS) }),
        later(10_000),
      ),
    );
    expect(late.outcome).toMatch(/older than the subscription state/);
    expect(await me(buyer)).toMatchObject({
      plan: 'PRO',
      plan_state: 'active',
      trial_ends_at: null,
    });
    // Paid at t0+40 s; the failure of t0+30 s arrives after it.
    await accepted(stripeEvent('invoice.paid', invoiceObject(ids), later(40_000)));
    const stale = await accepted(
      stripeEvent('invoice.payment_failed', invoiceObject(ids), later(30_000)),
    );
    expect(stale.outcome).toMatch(/older than the payment state/);
    expect(await me(buyer)).toMatchObject({ plan_state: 'active', payment_failed_at: null });
    // Deleted, then a late "updated: active" from before the deletion: still FREE.
    await accepted(
      stripeEvent('customer.subscription.deleted', proSubscription(ids, 'canceled'), later(60_000)),
    );
    await accepted(
      stripeEvent('customer.subscription.updated', proSubscription(ids, 'active'), later(50_000)),
    );
    expect((await me(buyer)).plan).toBe('FREE');
    expect((await accounts.noticesOf(buyer.user.id)).map((n) => n.kind)).toEqual(['downgraded']);
    expect(t0).toBe(now);
  });

  it('a webhook for an unknown customer is acknowledged and changes nothing', async () => {
    const result = await accepted(
      stripeEvent(
        'customer.subscription.created',
        proSubscription({ customer: 'cus_nobody', subscription: 'sub_nobody' }, 'active'),
        now,
      ),
    );
    expect(result).toEqual({
      received: true,
      duplicate: false,
      outcome: 'ignored: unknown customer',
    });
    const other = await accepted(
      stripeEvent('charge.refunded', { id: 'ch_1', object: 'charge' }, now),
    );
    expect(other.outcome).toBe('ignored: charge.refunded is not acted on');
  });
});

describe('without configuration', () => {
  it('the overview says billing is not configured; checkout, portal and webhook answer 503', async () => {
    const commands = createRedis(redis.url, 'commands');
    const app = createApp(
      testAppDeps({
        db: handle.db,
        redis: commands,
        prefix: redis.prefix,
        knownChainIds: new Set([1]),
        jwtSecret: JWT_SECRET,
      }),
    );
    const { server, base } = await listen(app);
    try {
      const buyer = await newUser();
      const auth = { authorization: `Bearer ${buyer.jwt}` };
      const overview = await request(`${base}/api/billing`, { headers: auth });
      expect(overview.body).toEqual({
        configured: false,
        plans: [],
        trial_days: 0,
        has_billing_account: false,
        subscription: null,
      });
      for (const [path, headers, body] of [
        [
          '/api/billing/checkout',
          { ...auth, 'content-type': 'application/json' },
          JSON.stringify({ plan: 'pro', period: 'monthly' }),
        ],
        ['/api/billing/portal', auth, undefined],
        ['/api/billing/webhook', { 'stripe-signature': 't=1,v1=00' }, '{}'],
      ] as const) {
        const result = await request(`${base}${path}`, { method: 'POST', headers, body });
        expect(result.status, path).toBe(503);
        expect(result.body, path).toEqual({ error: BILLING_MESSAGES.notConfigured });
      }
      // Every billing operation is in the OpenAPI document, declared once.
      const doc = (await request(`${base}/docs/openapi.json`)).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/billing'))).toEqual([
        '/api/billing',
        '/api/billing/checkout',
        '/api/billing/portal',
        '/api/billing/webhook',
      ]);
      expect(doc.paths['/api/billing/webhook']!.post).toMatchObject({
        requestBody: { content: { 'application/json': { schema: { type: 'string' } } } },
      });
    } finally {
      await closeServer(server);
      commands.disconnect();
    }
  });
});
