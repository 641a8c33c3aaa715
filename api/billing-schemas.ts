import { z } from 'zod';
import { BILLING_PERIODS, PAID_PLANS } from '../src/billing/index.ts';
import { isoTime } from './token-schemas.ts';

/** Request and response schemas of the billing operations (api/routes/billing.ts). */

const planName = z.enum(PAID_PLANS);
const period = z.enum(BILLING_PERIODS);

export const checkoutBody = z.strictObject({
  plan: z
    .string()
    .transform((p) => p.toUpperCase())
    .pipe(z.enum(PAID_PLANS, 'must be "basic" or "pro"'))
    .describe('"basic" or "pro"'),
  period: z.enum(BILLING_PERIODS, 'must be "monthly" or "annual"'),
});

export const billingOverview = z
  .strictObject({
    configured: z
      .boolean()
      .describe('false: billing is not configured here; plans change by the operator'),
    plans: z.array(
      z.strictObject({
        plan: planName,
        period,
        price: z
          .strictObject({
            amount: z.number().int().nullable().describe("in the currency's smallest unit (cents)"),
            currency: z.string(),
            interval: z.string().nullable(),
          })
          .nullable()
          .describe('null while the processor cannot be asked'),
      }),
    ),
    trial_days: z
      .number()
      .int()
      .describe('trial days a checkout would start with now (0: none, the account had one)'),
    has_billing_account: z.boolean().describe('whether "Manage billing" (the portal) is available'),
    subscription: z
      .strictObject({
        status: z.string(),
        plan: planName.nullable(),
        period: period.nullable(),
        current_period_end: isoTime.nullable(),
        cancel_at: isoTime.nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'BillingOverview' });

export const checkoutResponse = z.strictObject({
  checkout_url: z.string().describe("the processor's Checkout page: send the browser there"),
  session_id: z.string(),
  trial_days: z.number().int(),
});

export const portalResponse = z.strictObject({
  portal_url: z.string().describe("the processor's billing portal: send the browser there"),
});

export const webhookResponse = z.strictObject({
  received: z.literal(true),
  duplicate: z.boolean().describe('true: this event id was handled before; nothing changed now'),
  outcome: z.string(),
});
