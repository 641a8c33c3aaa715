import Stripe from 'stripe';
import type { BillingConfig } from '../src/billing/index.ts';

/**
 * The part of Stripe's API this service calls (docs/operations.md, billing), through the official
 * client: customers, Checkout sessions, billing-portal sessions and prices; and the verification
 * of webhook signatures. STRIPE_API_URL points the client elsewhere (tests run a local server
 * that speaks this subset). No card data ever passes here: Checkout and the portal are Stripe's pages.
 */

/** How old a webhook's signed timestamp may be: Stripe's own default tolerance. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
const REQUEST_TIMEOUT_MS = 10_000;
/** The client retries a failed request once, with an idempotency key, so nothing is created twice. */
const NETWORK_RETRIES = 1;
/** Prices change rarely: they are read again after this long. */
const PRICE_CACHE_MS = 10 * 60_000;

export interface ProcessorPrice {
  /** In the currency's smallest unit (cents); null for prices without a fixed amount. */
  unitAmount: number | null;
  currency: string;
  /** month, year… */
  interval: string | null;
}

export interface PaymentProcessor {
  createCustomer(input: { email: string; userId: number }): Promise<{ id: string }>;
  createCheckout(input: {
    customerId: string;
    priceId: string;
    userId: number;
    trialDays: number;
    successUrl: string;
    cancelUrl: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string; url: string }>;
  createPortal(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  prices(ids: readonly string[]): Promise<Map<string, ProcessorPrice>>;
  /**
   * The event of a webhook delivery, once its signature matches the raw body and its signed
   * timestamp is at most WEBHOOK_TOLERANCE_SECONDS old at `receivedAt`; else why not.
   */
  verifyEvent(rawBody: Buffer, signature: string, receivedAt: Date): VerifiedEvent;
}

export type VerifiedEvent = { ok: true; event: unknown } | { ok: false; reason: string };

function clientOptions(apiUrl: string | undefined): Stripe.StripeConfig {
  const base: Stripe.StripeConfig = {
    maxNetworkRetries: NETWORK_RETRIES,
    timeout: REQUEST_TIMEOUT_MS,
    telemetry: false,
  };
  if (!apiUrl) return base;
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    ...base,
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
  };
}

export function createStripeProcessor(config: BillingConfig): PaymentProcessor {
  const stripe = new Stripe(config.secretKey, clientOptions(config.apiUrl));
  let priceCache: { at: number; prices: Map<string, ProcessorPrice> } | undefined;
  return {
    async createCustomer({ email, userId }) {
      const customer = await stripe.customers.create({
        email,
        metadata: { user_id: String(userId) },
      });
      return { id: customer.id };
    },

    async createCheckout(input) {
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customerId,
        client_reference_id: String(input.userId),
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata: input.metadata,
        subscription_data: {
          metadata: { user_id: String(input.userId) },
          ...(input.trialDays > 0 ? { trial_period_days: input.trialDays } : {}),
        },
      });
      if (!session.url) throw new Error('the checkout session has no URL');
      return { id: session.id, url: session.url };
    },

    async createPortal({ customerId, returnUrl }) {
      const session = await stripe.billingPortal.sessions.create({
        customer: customerId,
        return_url: returnUrl,
      });
      return { url: session.url };
    },

    async prices(ids) {
      if (priceCache && Date.now() - priceCache.at < PRICE_CACHE_MS) return priceCache.prices;
      const prices = new Map<string, ProcessorPrice>();
      for (const id of ids) {
        const price = await stripe.prices.retrieve(id);
        prices.set(id, {
          unitAmount: price.unit_amount ?? null,
          currency: price.currency,
          interval: price.recurring?.interval ?? null,
        });
      }
      priceCache = { at: Date.now(), prices };
      return prices;
    },

    verifyEvent(rawBody, signature, receivedAt) {
      try {
        const event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          config.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
          undefined,
          receivedAt.getTime(),
        );
        return { ok: true, event };
      } catch (error) {
        // The library's first line says what did not match (signature, timestamp, header).
        return { ok: false, reason: (error as Error).message.split('\n')[0] ?? 'unverified' };
      }
    },
  };
}
