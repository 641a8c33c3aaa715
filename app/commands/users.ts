import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createAccountRepository, type UserRow } from '../../db/repositories/accounts.ts';
import { type BillingRow, createBillingRepository } from '../../db/repositories/billing.ts';
import { hashPassword } from '../../src/accounts/credentials.ts';
import { isLiveSubscription } from '../../src/billing/index.ts';
import type { AppConfig } from '../../src/config/env.ts';
import {
  DAY_MS,
  effectivePlan,
  PAYMENT_GRACE_DAYS,
  type Plan,
  planState,
} from '../../src/plans.ts';
import { isoOrNull } from '../../src/time.ts';
import { announcePlanChange } from './announce.ts';
import {
  type CliIo,
  email,
  parseOptions,
  plan,
  positiveInt,
  USAGE_EXIT_CODE,
  withDatabase,
} from './input.ts';

/**
 * `token-monitor users create|show|set-plan|payment-failed` (docs/operations.md). With the embedded
 * default (no DATABASE_URL) they open the embedded database themselves, so run them while `start`
 * is stopped, or set DATABASE_URL. A plan change is followed by what a billing webhook's is
 * (app/commands/announce.ts); on an account that Stripe bills, it warns that Stripe's next event
 * sets the plan again.
 */

const MAX_TRIAL_DAYS = 365;
function describeBilling(billing: BillingRow | undefined) {
  if (!billing) return null;
  return {
    stripe_customer: billing.customerId,
    stripe_subscription: billing.subscriptionId,
    subscription_status: billing.subscriptionStatus,
    subscription_plan: billing.plan,
    subscription_period: billing.period,
    current_period_end: isoOrNull(billing.currentPeriodEnd),
    cancel_at: isoOrNull(billing.cancelAt),
    trial_used_at: isoOrNull(billing.trialUsedAt),
  };
}

function describeUser(user: UserRow, now: Date, billing?: BillingRow) {
  return {
    id: user.id,
    email: user.email,
    plan: user.plan,
    effective_plan: effectivePlan(user, now),
    plan_state: planState(user, now),
    trial_ends_at: isoOrNull(user.trialEndsAt),
    plan_ends_at: isoOrNull(user.planEndsAt),
    payment_failed_at: isoOrNull(user.paymentFailedAt),
    downgraded_at: isoOrNull(user.downgradedAt),
    billing: describeBilling(billing),
  };
}

/** A manual change to an account that Stripe bills is undone by Stripe's next event for it. */
function stripeWarning(billing: BillingRow | undefined): string | undefined {
  if (!billing?.subscriptionId || !isLiveSubscription(billing.subscriptionStatus)) return undefined;
  return `this account has a Stripe subscription (${billing.subscriptionId}, ${billing.subscriptionStatus}): Stripe's next event for it sets the plan again unless the subscription is changed too (Stripe dashboard, or the customer's billing portal)`;
}

type AccountOptions = Partial<Record<'email' | 'password' | 'plan' | 'trial-days', string>>;

/** The account and its billing record, read in one database session. */
async function accountWithBilling(context: AccountContext, email: string) {
  return withDatabase(context.config, context.logger, async ({ db }) => {
    const user = await createAccountRepository(db).userByEmail(email);
    return {
      user,
      billing: user ? await createBillingRepository(db).billingOf(user.id) : undefined,
    };
  });
}

/**
 * What an account subcommand works with: the configuration, the log and the terminal. The
 * subcommands call `context.io.fail`, not a destructured `io`: TypeScript narrows after a call
 * that returns `never` only through a declared type.
 */
interface AccountContext {
  config: AppConfig;
  logger: Logger;
  io: CliIo;
}

/** A trial needs a paid plan: FREE has nothing to try. */
const trialIsPaid = (v: { plan: Plan; trial_days?: number }) =>
  v.trial_days === undefined || v.plan !== 'FREE';
const TRIAL_NEEDS_PAID_PLAN = { message: 'a trial needs a paid plan', path: ['trial_days'] };

const trialEnd = (days: number | undefined, now: Date) =>
  days === undefined ? null : new Date(now.getTime() + days * DAY_MS);

async function createUser(context: AccountContext, values: AccountOptions) {
  const { config, logger, io } = context;
  const input = parseOptions(
    z
      .object({
        email,
        password: z.string('is required').min(8, 'must be at least 8 characters').max(128),
        plan,
        trial_days: positiveInt(MAX_TRIAL_DAYS).optional(),
      })
      .refine(trialIsPaid, TRIAL_NEEDS_PAID_PLAN),
    {
      email: values.email,
      password: values.password,
      plan: values.plan,
      trial_days: values['trial-days'],
    },
    io,
  );
  const now = new Date();
  const user = await withDatabase(config, logger, async ({ db }) =>
    createAccountRepository(db).createUser({
      email: input.email,
      passwordHash: await hashPassword(input.password),
      plan: input.plan,
      trialEndsAt: trialEnd(input.trial_days, now),
    }),
  );
  if (!user) context.io.fail(`users create: ${input.email} already exists`);
  io.output(
    { status: 'created', user: describeUser(user, now) },
    `Created ${user.email} (${user.plan}${user.trialEndsAt ? `, trial until ${user.trialEndsAt.toISOString()}` : ''}).`,
  );
}

async function showUser(context: AccountContext, values: AccountOptions) {
  const { io } = context;
  const input = parseOptions(z.object({ email }), { email: values.email }, io);
  const { user, billing } = await accountWithBilling(context, input.email);
  if (!user) context.io.fail(`users show: no user ${input.email}`);
  const described = describeUser(user, new Date(), billing);
  const stripe = described.billing
    ? `Stripe customer ${described.billing.stripe_customer}, subscription ${described.billing.stripe_subscription ?? 'none'} (${described.billing.subscription_status ?? 'no status yet'})`
    : 'no Stripe customer';
  io.output(
    { status: 'found', user: described },
    `${user.email}: ${described.effective_plan} (${described.plan_state}); ${stripe}.`,
  );
}

async function setPlan(context: AccountContext, values: AccountOptions) {
  const { config, logger, io } = context;
  const input = parseOptions(
    z
      .object({ email, plan, trial_days: positiveInt(MAX_TRIAL_DAYS).optional() })
      .refine(trialIsPaid, TRIAL_NEEDS_PAID_PLAN),
    { email: values.email, plan: values.plan, trial_days: values['trial-days'] },
    io,
  );
  const now = new Date();
  const { change, billing } = await withDatabase(config, logger, async ({ db }) => {
    const change = await createAccountRepository(db).setPlan(input.email, input.plan, {
      trialEndsAt: trialEnd(input.trial_days, now),
      now,
    });
    return {
      change,
      billing: change && (await createBillingRepository(db).billingOf(change.user.id)),
    };
  });
  if (!change) context.io.fail(`users set-plan: no user ${input.email}`);
  await announcePlanChange(config, { planChanged: true, notices: change.notices });
  const warning = stripeWarning(billing);
  io.output(
    {
      status: 'updated',
      user: describeUser(change.user, now, billing),
      ...(warning ? { warning } : {}),
    },
    `${change.user.email} is now on ${change.user.plan}.${warning ? `\nWarning: ${warning}.` : ''}`,
  );
}

async function recordPaymentFailed(context: AccountContext, values: AccountOptions) {
  const { config, logger, io } = context;
  const input = parseOptions(z.object({ email }), { email: values.email }, io);
  const now = new Date();
  const { change, billing } = await withDatabase(config, logger, async ({ db }) => {
    const change = await createAccountRepository(db).recordPaymentFailed(input.email, now);
    return {
      change,
      billing: change && (await createBillingRepository(db).billingOf(change.user.id)),
    };
  });
  if (!change) context.io.fail(`users payment-failed: no user ${input.email}`);
  await announcePlanChange(config, { planChanged: true, notices: change.notices });
  const { user } = change;
  const downgradeAt = new Date(user.paymentFailedAt!.getTime() + PAYMENT_GRACE_DAYS * DAY_MS);
  const warning = stripeWarning(billing);
  io.output(
    {
      status: 'recorded',
      user: describeUser(user, now, billing),
      downgrade_at: downgradeAt.toISOString(),
      ...(warning ? { warning } : {}),
    },
    `Failed payment recorded for ${user.email}; downgrade to FREE at ${downgradeAt.toISOString()} unless the plan is set again.${warning ? `\nWarning: ${warning}.` : ''}`,
  );
}

// A Map, not an object literal: `users constructor` must not find Object.prototype's.
const ACCOUNT_COMMANDS = new Map<
  string,
  (context: AccountContext, values: AccountOptions) => Promise<void>
>([
  ['create', createUser],
  ['show', showUser],
  ['set-plan', setPlan],
  ['payment-failed', recordPaymentFailed],
]);

/** `token-monitor users create|show|set-plan|payment-failed …` */
export async function accountsCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo,
): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      'trial-days': { type: 'string' },
    },
    strict: true,
  });
  const command = sub === undefined ? undefined : ACCOUNT_COMMANDS.get(sub);
  if (!command) io.fail('usage: users create|show|set-plan|payment-failed …', USAGE_EXIT_CODE);
  return command({ config, logger, io }, values);
}
