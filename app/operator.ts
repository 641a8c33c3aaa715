import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createAccountRepository, type UserRow } from '../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../infra/auth-generation.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import {
  API_KEY_PATTERN,
  hashPassword,
  MASKED_KEY_PATTERN,
  sha256Hex,
} from '../src/accounts/credentials.ts';
import type { AppConfig } from '../src/config/env.ts';
import { DAY_MS, effectivePlan, PAYMENT_GRACE_DAYS, type Plan, planState } from '../src/plans.ts';
import { isoOrNull } from '../src/time.ts';
import {
  type CliIo,
  email,
  parseOptions,
  plan,
  positiveInt,
  USAGE_EXIT_CODE,
  withDatabase,
} from './commands/input.ts';
import { LOCAL_REDIS_URL, redisAnswers, redisNamespace } from './embedded/index.ts';

/**
 * The operator's account commands (docs/operations.md): `users` (create, set-plan,
 * payment-failed), `keys set-limits`, and the embedded default's demo account. With the embedded
 * default (no DATABASE_URL) they open the embedded database themselves, so run them while `start`
 * is stopped, or set DATABASE_URL. `analyze` is in app/commands/analyze.ts.
 */

const MAX_TRIAL_DAYS = 365;
const LIMIT_MAX = 100_000_000;

function describeUser(user: UserRow, now: Date) {
  return {
    id: user.id,
    email: user.email,
    plan: user.plan,
    effective_plan: effectivePlan(user, now),
    plan_state: planState(user, now),
    trial_ends_at: isoOrNull(user.trialEndsAt),
    payment_failed_at: isoOrNull(user.paymentFailedAt),
    downgraded_at: isoOrNull(user.downgradedAt),
  };
}

/**
 * After a plan or key change: API instances drop their memo of principals at once. Without a
 * reachable Redis (a stopped embedded default) there is nothing running to tell.
 */
async function announceAuthChange(config: AppConfig): Promise<void> {
  const url =
    config.env.REDIS_URL ?? ((await redisAnswers(LOCAL_REDIS_URL)) ? LOCAL_REDIS_URL : undefined);
  if (!url) return;
  const redis = createRedis(url, 'commands');
  try {
    await bumpAuthGeneration(redis, keySpace(redisNamespace(config.env).prefix).prefix);
  } finally {
    redis.disconnect();
  }
}

type AccountOptions = Partial<Record<'email' | 'password' | 'plan' | 'trial-days', string>>;

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
  const user = await withDatabase(config, logger, async ({ db }) =>
    createAccountRepository(db).setPlan(input.email, input.plan, {
      trialEndsAt: trialEnd(input.trial_days, now),
      now,
    }),
  );
  if (!user) context.io.fail(`users set-plan: no user ${input.email}`);
  await announceAuthChange(config);
  io.output(
    { status: 'updated', user: describeUser(user, now) },
    `${user.email} is now on ${user.plan}.`,
  );
}

async function recordPaymentFailed(context: AccountContext, values: AccountOptions) {
  const { config, logger, io } = context;
  const input = parseOptions(z.object({ email }), { email: values.email }, io);
  const now = new Date();
  const user = await withDatabase(config, logger, async ({ db }) =>
    createAccountRepository(db).recordPaymentFailed(input.email, now),
  );
  if (!user) context.io.fail(`users payment-failed: no user ${input.email}`);
  await announceAuthChange(config);
  const downgradeAt = new Date(user.paymentFailedAt!.getTime() + PAYMENT_GRACE_DAYS * DAY_MS);
  io.output(
    {
      status: 'recorded',
      user: describeUser(user, now),
      downgrade_at: downgradeAt.toISOString(),
    },
    `Failed payment recorded for ${user.email}; downgrade to FREE at ${downgradeAt.toISOString()} unless the plan is set again.`,
  );
}

// A Map, not an object literal: `users constructor` must not find Object.prototype's.
const ACCOUNT_COMMANDS = new Map<
  string,
  (context: AccountContext, values: AccountOptions) => Promise<void>
>([
  ['create', createUser],
  ['set-plan', setPlan],
  ['payment-failed', recordPaymentFailed],
]);

/** `token-monitor users create|set-plan|payment-failed …` */
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
  if (!command) io.fail('usage: users create|set-plan|payment-failed …', USAGE_EXIT_CODE);
  return command({ config, logger, io }, values);
}

export async function keysCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'set-limits')
    io.fail(
      'usage: keys set-limits --key K --per-minute N --per-hour N --per-day N',
      USAGE_EXIT_CODE,
    );
  const { values } = parseArgs({
    args: rest,
    options: {
      key: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-hour': { type: 'string' },
      'per-day': { type: 'string' },
    },
    strict: true,
  });
  const input = parseOptions(
    z.object({
      key: z
        .string('is required')
        .refine(
          (k) => API_KEY_PATTERN.test(k) || MASKED_KEY_PATTERN.test(k),
          'must be an API key (svc_pro_…) or its masked form',
        ),
      per_minute: positiveInt(LIMIT_MAX),
      per_hour: positiveInt(LIMIT_MAX),
      per_day: positiveInt(LIMIT_MAX),
    }),
    {
      key: values.key,
      per_minute: values['per-minute'],
      per_hour: values['per-hour'],
      per_day: values['per-day'],
    },
    io,
  );
  const by = API_KEY_PATTERN.test(input.key)
    ? { keyHash: sha256Hex(input.key) }
    : { maskedKey: input.key };
  const rows = await withDatabase(config, logger, async ({ db }) =>
    createAccountRepository(db).setKeyLimits(by, {
      requestsPerMinute: input.per_minute,
      requestsPerHour: input.per_hour,
      requestsPerDay: input.per_day,
    }),
  );
  if (rows.length === 0) io.fail('keys set-limits: no such key');
  if (rows.length > 1)
    io.fail('keys set-limits: the masked form names several active keys; give the full key');
  const row = rows[0]!;
  await announceAuthChange(config);
  const limits = {
    requests_per_minute: row.requestsPerMinute,
    requests_per_hour: row.requestsPerHour,
    requests_per_day: row.requestsPerDay,
  };
  io.output(
    { status: 'updated', api_key: row.maskedKey, rate_limit: limits },
    `${row.maskedKey}: ${limits.requests_per_minute}/minute, ${limits.requests_per_hour}/hour, ${limits.requests_per_day}/day.`,
  );
}
