import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local server that speaks the part of Stripe's HTTP API the service calls (customers, Checkout
 * sessions, billing-portal sessions, prices), with Stripe's form-encoded requests, bearer secret
 * key and error shape; plus a stand-in for the hosted Checkout page, whose "Subscribe" button
 * sends the webhook events Stripe would send (signed with the real library's test-header helper)
 * and then returns the browser to the session's success URL. Tests point the stripe client here
 * through STRIPE_API_URL (host, port and protocol options). Nothing leaves the machine.
 */

export interface LocalPrice {
  id: string;
  unitAmount: number;
  currency: string;
  interval: 'month' | 'year';
}

export interface RecordedRequest {
  method: string;
  path: string;
  form: Record<string, string>;
}

export interface StoredSession {
  id: string;
  customer: string;
  priceId: string;
  clientReferenceId: string;
  metadata: Record<string, string>;
  trialDays: number;
  successUrl: string;
  cancelUrl: string;
}

export interface LocalStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: RecordedRequest[];
  sessions: Map<string, StoredSession>;
  /** The subscription each completed Checkout session started. */
  subscriptions: Map<string, string>;
  /** Where the Checkout page sends its events (the service's webhook). */
  setWebhookUrl(url: string): void;
  /** The clock the Checkout page stamps its events with (the service's injected clock). */
  setClock(clock: () => Date): void;
  close(): Promise<void>;
}

const stripeForSigning = new Stripe('sk_test_signing_only');

/** A signed Stripe-Signature header for this payload, as Stripe would send it at `at`. */
export function signPayload(payload: string, secret: string, at: Date): string {
  return stripeForSigning.webhooks.generateTestHeaderString({
    payload,
    secret,
    timestamp: Math.floor(at.getTime() / 1000),
  });
}

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A subscription object as Stripe's events carry it (the fields the service reads, and a few more). */
export function subscriptionObject(input: {
  id: string;
  customer: string;
  status: string;
  priceId: string;
  periodEnd: Date;
  trialEnd?: Date | null;
  cancelAtPeriodEnd?: boolean;
  cancelAt?: Date | null;
}) {
  return {
    id: input.id,
    object: 'subscription',
    customer: input.customer,
    status: input.status,
    cancel_at_period_end: input.cancelAtPeriodEnd ?? false,
    cancel_at: input.cancelAt ? seconds(input.cancelAt) : null,
    trial_end: input.trialEnd ? seconds(input.trialEnd) : null,
    livemode: false,
    items: {
      object: 'list',
      data: [
        {
          id: newId('si'),
          object: 'subscription_item',
          price: { id: input.priceId, object: 'price' },
          current_period_end: seconds(input.periodEnd),
          quantity: 1,
        },
      ],
    },
  };
}

export function invoiceObject(input: { customer: string; subscription: string }) {
  return {
    id: newId('in'),
    object: 'invoice',
    customer: input.customer,
    parent: {
      type: 'subscription_details',
      subscription_details: { subscription: input.subscription },
    },
  };
}

/** A Stripe event envelope around `object`, created at `created`. */
export function stripeEvent(type: string, object: unknown, created: Date) {
  return {
    id: newId('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created: seconds(created),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  };
}

/** `a[b][0][c]=v` form keys flattened to `a.b.0.c`. */
function formOf(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body))
    form[key.replace(/\[(\w*)\]/g, '.$1')] = value;
  return form;
}

function answer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
  res.end(JSON.stringify(body));
}

const stripeError = (message: string, type = 'invalid_request_error') => ({
  error: { type, message },
});

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLocalStripe(prices: LocalPrice[]): Promise<LocalStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(18).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, StoredSession>();
  const subscriptions = new Map<string, string>();
  const customers = new Map<string, { email: string; metadata: Record<string, string> }>();
  const portals = new Map<string, string>();
  let webhookUrl = '';
  let clock = () => new Date();
  let base = '';

  async function sendEvent(type: string, object: unknown) {
    const payload = JSON.stringify(stripeEvent(type, object, clock()));
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signPayload(payload, webhookSecret, clock()),
      },
      body: payload,
    });
    if (!response.ok)
      throw new Error(`webhook ${type}: ${response.status} ${await response.text()}`);
  }

  /** What Stripe does when a customer subscribes on the Checkout page. */
  async function completeCheckout(session: StoredSession) {
    const now = clock();
    const trialEnd =
      session.trialDays > 0 ? new Date(now.getTime() + session.trialDays * 86_400_000) : null;
    const subscription = subscriptionObject({
      id: newId('sub'),
      customer: session.customer,
      status: trialEnd ? 'trialing' : 'active',
      priceId: session.priceId,
      trialEnd,
      periodEnd: trialEnd ?? new Date(now.getTime() + 30 * 86_400_000),
    });
    subscriptions.set(session.id, subscription.id);
    await sendEvent('customer.subscription.created', subscription);
    await sendEvent('checkout.session.completed', {
      id: session.id,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      customer: session.customer,
      subscription: subscription.id,
      client_reference_id: session.clientReferenceId,
      metadata: session.metadata,
    });
    await sendEvent(
      'invoice.paid',
      invoiceObject({ customer: session.customer, subscription: subscription.id }),
    );
  }

  function api(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    form: Record<string, string>,
  ) {
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return answer(res, 401, stripeError('Invalid API Key provided', 'invalid_request_error'));
    const price = /^\/v1\/prices\/([\w]+)$/.exec(path);
    if (req.method === 'GET' && price) {
      const found = prices.find((p) => p.id === price[1]);
      if (!found) return answer(res, 404, stripeError(`No such price: '${price[1]}'`));
      return answer(res, 200, {
        id: found.id,
        object: 'price',
        active: true,
        currency: found.currency,
        unit_amount: found.unitAmount,
        recurring: { interval: found.interval, interval_count: 1 },
        type: 'recurring',
      });
    }
    if (req.method === 'POST' && path === '/v1/customers') {
      const id = newId('cus');
      const metadata = { user_id: form['metadata.user_id'] ?? '' };
      customers.set(id, { email: form.email ?? '', metadata });
      return answer(res, 200, { id, object: 'customer', email: form.email ?? null, metadata });
    }
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const customer = form.customer ?? '';
      if (!customers.has(customer))
        return answer(res, 400, stripeError(`No such customer: '${customer}'`));
      const priceId = form['line_items.0.price'] ?? '';
      if (!prices.some((p) => p.id === priceId))
        return answer(res, 400, stripeError(`No such price: '${priceId}'`));
      const id = newId('cs_test');
      const metadata = Object.fromEntries(
        Object.entries(form)
          .filter(([k]) => k.startsWith('metadata.'))
          .map(([k, v]) => [k.slice('metadata.'.length), v]),
      );
      sessions.set(id, {
        id,
        customer,
        priceId,
        clientReferenceId: form.client_reference_id ?? '',
        metadata,
        trialDays: Number(form['subscription_data.trial_period_days'] ?? 0),
        successUrl: form.success_url ?? '',
        cancelUrl: form.cancel_url ?? '',
      });
      return answer(res, 200, {
        id,
        object: 'checkout.session',
        mode: 'subscription',
        customer,
        url: `${base}/pay/${id}`,
        client_reference_id: form.client_reference_id ?? null,
        metadata,
      });
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(form.customer ?? ''))
        return answer(res, 400, stripeError('No such customer'));
      const id = newId('bps');
      portals.set(id, form.return_url ?? '');
      return answer(res, 200, {
        id,
        object: 'billing_portal.session',
        customer: form.customer,
        return_url: form.return_url ?? null,
        url: `${base}/portal/${id}`,
      });
    }
    return answer(res, 404, stripeError(`Unrecognized request URL (${req.method}: ${path})`));
  }

  /** The hosted Checkout page's stand-in (a form whose button subscribes), and the portal's. */
  async function page(req: IncomingMessage, res: ServerResponse, path: string) {
    const portal = /^\/portal\/([\w]+)$/.exec(path);
    if (portal && portals.has(portal[1]!)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><html lang="en"><head><title>Billing portal</title></head><body><main><h1>Local billing portal</h1>` +
          `<a href="${portals.get(portal[1]!)}">Return</a></main></body></html>`,
      );
    }
    const match = /^\/pay\/([\w]+)$/.exec(path);
    const session = match ? sessions.get(match[1]!) : undefined;
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('no such checkout session');
    }
    if (req.method === 'POST') {
      await completeCheckout(session);
      res.writeHead(303, { location: session.successUrl });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Checkout</title></head><body><main><h1>Local checkout</h1>` +
        `<p>Price ${session.priceId}${session.trialDays ? `, ${session.trialDays}-day trial` : ''}</p>` +
        `<form method="post"><button type="submit">Subscribe</button></form>` +
        `<a href="${session.cancelUrl}">Back</a></main></body></html>`,
    );
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      const raw = await bodyOf(req);
      const form = formOf(raw);
      requests.push({ method: req.method ?? '', path, form });
      if (path.startsWith('/v1/')) return api(req, res, path, form);
      return page(req, res, path);
    })().catch((error: Error) => answer(res, 500, stripeError(error.message, 'api_error')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    secretKey,
    webhookSecret,
    requests,
    sessions,
    subscriptions,
    setWebhookUrl: (url) => {
      webhookUrl = url;
    },
    setClock: (c) => {
      clock = c;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
