import type { Request } from 'express';
import type { Logger } from 'pino';
import type { AccountRepository, UserRow } from '../../db/repositories/accounts.ts';
import type { BillingRepository } from '../../db/repositories/billing.ts';
import type { PaymentProcessor, ProcessorPrice } from '../../infra/stripe.ts';
import {
  CHECKOUT_TRIAL_DAYS,
  isLiveSubscription,
  type PriceIds,
  parseBillingEvent,
  pricedPlans,
} from '../../src/billing/index.ts';
import { isoOrNull } from '../../src/time.ts';
import type { AnnouncePlanChange } from '../../workers/accounts/index.ts';
import { type Auth, type Clock, type FailedAuthThrottle, principalOf } from '../access/index.ts';
import {
  billingOverview,
  checkoutBody,
  checkoutResponse,
  portalResponse,
  webhookResponse,
} from '../billing-schemas.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';

/**
 * Billing (docs/api.md, billing; docs/operations.md): the plans on sale with their prices, a
 * Checkout session to buy one (a 7-day trial where the account never had one), the billing portal,
 * and the processor's webhook, which alone changes plans. Without configuration every operation
 * but the overview answers 503 `Billing is not configured`.
 */

export const BILLING_MESSAGES = {
  notConfigured: 'Billing is not configured',
  processorDown: 'The payment processor is unavailable. Please try again later.',
  subscribed: 'A subscription is active: change or cancel it with Manage billing',
  noAccount: 'No billing account yet: choose a plan first',
  missingSignature: 'Missing Stripe-Signature header',
  badSignature: 'Invalid webhook signature',
} as const;

export interface BillingSetup {
  records: BillingRepository;
  /** Absent: billing is not configured. */
  processor?: PaymentProcessor;
  prices?: PriceIds;
  /** PUBLIC_URL: where Checkout and the portal send the browser back; default: this request's origin. */
  publicUrl?: string;
}

export interface BillingRouteDeps {
  auth: Auth;
  accounts: AccountRepository;
  setup?: BillingSetup;
  announce: AnnouncePlanChange;
  failedAuth: FailedAuthThrottle;
  clock: Clock;
  logger: Logger;
}

type Configured = Required<Pick<BillingSetup, 'processor' | 'prices'>> & BillingSetup;

function configured(setup: BillingSetup | undefined): Configured {
  if (!setup?.processor || !setup.prices) throw new HttpError(503, BILLING_MESSAGES.notConfigured);
  return setup as Configured;
}

/** A call to the processor; its failure is a 502 with a clear message, the details in the log. */
async function processorCall<T>(logger: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    logger.warn({ err: error, call: what }, 'payment processor call failed');
    throw new HttpError(502, BILLING_MESSAGES.processorDown);
  }
}

const returnBase = (setup: BillingSetup, req: Request) =>
  (setup.publicUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');

async function freshUser(deps: BillingRouteDeps, id: number): Promise<UserRow> {
  // The principal's row may be a cached copy: billing decisions read the account afresh.
  const user = await deps.accounts.userById(id);
  if (!user) throw new HttpError(401, MESSAGES.unauthorized);
  return user;
}

function overviewRoute(deps: BillingRouteDeps, jwtOnly: ReturnType<Auth['authenticate']>) {
  return route({
    method: 'get',
    path: '/api/billing',
    tag: 'Billing',
    auth: 'bearer',
    guard: [jwtOnly],
    summary: 'The plans on sale with their prices, and the caller’s subscription (JWT)',
    responses: { 200: { description: 'The billing overview', schema: billingOverview } },
    async handler(_input, _req, res) {
      const setup = deps.setup;
      if (!setup?.processor || !setup.prices)
        return {
          configured: false,
          plans: [],
          trial_days: 0,
          has_billing_account: false,
          subscription: null,
        };
      const { processor, prices } = setup;
      const user = await freshUser(deps, principalOf(res).user.id);
      const record = await setup.records.billingOf(user.id);
      const plans = pricedPlans(prices);
      const known = await processor.prices(plans.map((p) => p.priceId)).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'prices could not be read from the payment processor');
        return new Map<string, ProcessorPrice>();
      });
      const live = record && isLiveSubscription(record.subscriptionStatus);
      return {
        configured: true,
        plans: plans.map((p) => {
          const price = known.get(p.priceId);
          return {
            plan: p.plan,
            period: p.period,
            price: price
              ? { amount: price.unitAmount, currency: price.currency, interval: price.interval }
              : null,
          };
        }),
        trial_days: trialDaysFor(user, record?.trialUsedAt ?? null),
        has_billing_account: record !== undefined,
        subscription:
          record?.subscriptionStatus && live
            ? {
                status: record.subscriptionStatus,
                plan: (record.plan as 'BASIC' | 'PRO' | null) ?? null,
                period: (record.period as 'monthly' | 'annual' | null) ?? null,
                current_period_end: isoOrNull(record.currentPeriodEnd),
                cancel_at: isoOrNull(record.cancelAt),
              }
            : null,
      };
    },
  });
}

/** A first subscription's trial: none for an account that had a processor trial or is in a trial now. */
const trialDaysFor = (user: UserRow, trialUsedAt: Date | null) =>
  trialUsedAt || user.trialEndsAt ? 0 : CHECKOUT_TRIAL_DAYS;

function checkoutRoute(deps: BillingRouteDeps, jwtOnly: ReturnType<Auth['authenticate']>) {
  return route({
    method: 'post',
    path: '/api/billing/checkout',
    tag: 'Billing',
    auth: 'bearer',
    guard: [jwtOnly],
    body: checkoutBody,
    summary:
      'Open a Checkout session for a plan and period (JWT); the browser goes to checkout_url',
    description:
      'The first subscription of an account starts with a 7-day trial. The plan changes when the processor’s webhook says the subscription started, not here.',
    responses: {
      201: { description: 'The Checkout session', schema: checkoutResponse },
      409: { description: `\`${BILLING_MESSAGES.subscribed}\`` },
      502: { description: `\`${BILLING_MESSAGES.processorDown}\`` },
      503: { description: `\`${BILLING_MESSAGES.notConfigured}\`` },
    },
    async handler({ body }, req, res) {
      const setup = configured(deps.setup);
      const user = await freshUser(deps, principalOf(res).user.id);
      let record = await setup.records.billingOf(user.id);
      if (record && isLiveSubscription(record.subscriptionStatus))
        throw new HttpError(409, BILLING_MESSAGES.subscribed);
      if (!record) {
        const customer = await processorCall(deps.logger, 'customers.create', () =>
          setup.processor.createCustomer({ email: user.email, userId: user.id }),
        );
        record = await setup.records.linkCustomer(user.id, customer.id);
      }
      const customerId = record.customerId;
      const trialDays = trialDaysFor(user, record.trialUsedAt);
      const base = returnBase(setup, req);
      const session = await processorCall(deps.logger, 'checkout.sessions.create', () =>
        setup.processor.createCheckout({
          customerId,
          priceId: setup.prices[body.plan][body.period],
          userId: user.id,
          trialDays,
          successUrl: `${base}/settings?billing=success`,
          cancelUrl: `${base}/settings?billing=cancelled`,
          metadata: { plan: body.plan, period: body.period, trial_days: String(trialDays) },
        }),
      );
      return { checkout_url: session.url, session_id: session.id, trial_days: trialDays };
    },
  });
}

function portalRoute(deps: BillingRouteDeps, jwtOnly: ReturnType<Auth['authenticate']>) {
  return route({
    method: 'post',
    path: '/api/billing/portal',
    tag: 'Billing',
    auth: 'bearer',
    guard: [jwtOnly],
    summary: 'Open the billing portal: invoices, card, cancel, switch period (JWT)',
    responses: {
      201: { description: 'The portal session', schema: portalResponse },
      404: { description: `\`${BILLING_MESSAGES.noAccount}\`` },
      502: { description: `\`${BILLING_MESSAGES.processorDown}\`` },
      503: { description: `\`${BILLING_MESSAGES.notConfigured}\`` },
    },
    async handler(_input, req, res) {
      const setup = configured(deps.setup);
      const record = await setup.records.billingOf(principalOf(res).user.id);
      if (!record) throw new HttpError(404, BILLING_MESSAGES.noAccount);
      const session = await processorCall(deps.logger, 'billing_portal.sessions.create', () =>
        setup.processor.createPortal({
          customerId: record.customerId,
          returnUrl: `${returnBase(setup, req)}/settings`,
        }),
      );
      return { portal_url: session.url };
    },
  });
}

function webhookRoute(deps: BillingRouteDeps) {
  return route({
    method: 'post',
    path: '/api/billing/webhook',
    tag: 'Billing',
    auth: 'none',
    rawBody: {
      contentType: 'application/json',
      description: 'A Stripe event exactly as delivered: the signature covers these bytes.',
    },
    summary: 'The payment processor’s webhook (Stripe-Signature verified on the raw body)',
    description:
      'Refused with 400 when unsigned, wrongly signed or signed more than 5 minutes ago. Handled once per event id: a second delivery answers `duplicate: true` and changes nothing. Failed signatures count against the client address like failed logins.',
    responses: {
      200: {
        description: 'Handled (or ignored, with the reason in `outcome`)',
        schema: webhookResponse,
      },
      400: {
        description: `\`${BILLING_MESSAGES.missingSignature}\`, \`${BILLING_MESSAGES.badSignature}: …\`, or an event of an unknown shape`,
      },
      429: { description: 'Too many failed signatures from this address' },
      503: { description: `\`${BILLING_MESSAGES.notConfigured}\`` },
    },
    async handler(_input, req) {
      const setup = configured(deps.setup);
      const address = req.ip ?? 'unknown';
      const state = await deps.failedAuth.blocked(address);
      if (state.blocked)
        throw new HttpError(429, MESSAGES.rateLimited, {
          'Retry-After': String(state.retryAfterSeconds),
        });
      const signature = req.headers['stripe-signature'];
      const body: unknown = req.body;
      if (typeof signature !== 'string' || signature === '') {
        await deps.failedAuth.fail(address);
        throw new HttpError(400, BILLING_MESSAGES.missingSignature);
      }
      const now = deps.clock();
      const verified = setup.processor.verifyEvent(
        Buffer.isBuffer(body) ? body : Buffer.alloc(0),
        signature,
        now,
      );
      if (!verified.ok) {
        await deps.failedAuth.fail(address);
        throw new HttpError(400, `${BILLING_MESSAGES.badSignature}: ${verified.reason}`);
      }
      const parsed = parseBillingEvent(verified.event);
      if (!parsed.ok) {
        deps.logger.error({ error: parsed.error }, 'billing webhook event of an unknown shape');
        throw new HttpError(400, `event: ${parsed.error}`);
      }
      const handled = await setup.records.handleEvent(parsed.event, setup.prices, now);
      deps.logger.info(
        {
          event: parsed.event.id,
          type: parsed.event.type,
          user: handled.userId,
          outcome: handled.outcome,
        },
        'billing event',
      );
      await deps.announce(handled);
      return { received: true, duplicate: handled.duplicate, outcome: handled.outcome };
    },
  });
}

export function billingRoutes(deps: BillingRouteDeps): RouteSpec[] {
  const jwtOnly = deps.auth.authenticate({ apiKey: false });
  return [
    overviewRoute(deps, jwtOnly),
    checkoutRoute(deps, jwtOnly),
    portalRoute(deps, jwtOnly),
    webhookRoute(deps),
  ];
}
