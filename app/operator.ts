import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { z } from 'zod';
import { assembleComplete, INCLUDE_ALL, shapeComplete } from '../api/token-view.ts';
import { createDb, runMigrations } from '../db/client.ts';
import { createAccountRepository, type UserRow } from '../db/repositories/accounts.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { bumpAuthGeneration } from '../infra/auth-generation.ts';
import { createEventPublisher } from '../infra/events.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { redisAnswers, resolveDatabase, resolveRedis } from '../scripts/dev/stack.ts';
import {
  API_KEY_PATTERN,
  generateApiKey,
  hashPassword,
  MASKED_KEY_PATTERN,
  sha256Hex,
} from '../src/accounts/credentials.ts';
import type { AppConfig } from '../src/config/env.ts';
import { DAY_MS, effectivePlan, type Plan, planState } from '../src/plans.ts';
import { createChainRuntimes } from '../workers/chain-runtime.ts';
import { STAGE_ORDER, type Stage } from '../workers/pipeline.ts';
import { createProducer } from '../workers/queues.ts';
import { createSubmitter } from '../workers/submit.ts';
import { startService } from './service.ts';

/**
 * Operator commands (docs/operations.md): accounts, key limits, and `analyze`. Arguments are validated
 * with zod like any other input. With the embedded default (no DATABASE_URL) they open the
 * embedded database themselves, so run them while `start` is stopped, or set DATABASE_URL.
 */

export interface CliIo {
  output(value: unknown, human: string): void;
  fail(message: string, code?: number): never;
}

const MAX_TRIAL_DAYS = 365;
const LIMIT_MAX = 100_000_000;
const DEFAULT_ANALYZE_TIMEOUT_SECONDS = 120;
const POLL_MS = 250;
/** `analyze` waits for the risk stage: the last one that moves a token's `stage` (STAGE_ORDER). */
const DONE_STAGE: Stage = 'risk';
const stageIndex = (stage: string) => (STAGE_ORDER as readonly string[]).indexOf(stage);

const email = z
  .email('must be an email address')
  .max(254)
  .transform((e) => e.toLowerCase());
const plan = z
  .enum(['free', 'basic', 'pro', 'FREE', 'BASIC', 'PRO'], 'must be free, basic or pro')
  .transform((p) => p.toUpperCase() as Plan);
const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

function parse<T extends z.ZodType>(schema: T, values: unknown, io: CliIo): z.infer<T> {
  const result = schema.safeParse(values);
  if (!result.success)
    io.fail(
      result.error.issues
        .map((i) => `--${i.path.join('.').replace(/_/g, '-')}: ${i.message}`)
        .join('\n'),
      2,
    );
  return result.data;
}

function describeUser(user: UserRow, now: Date) {
  return {
    id: user.id,
    email: user.email,
    plan: user.plan,
    effective_plan: effectivePlan(user, now),
    plan_state: planState(user, now),
    trial_ends_at: user.trialEndsAt?.toISOString() ?? null,
    payment_failed_at: user.paymentFailedAt?.toISOString() ?? null,
    downgraded_at: user.downgradedAt?.toISOString() ?? null,
  };
}

const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

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
    await bumpAuthGeneration(redis, keySpace(config.env.REDIS_PREFIX).prefix);
  } finally {
    redis.disconnect();
  }
}

async function withDatabase<T>(
  config: AppConfig,
  logger: Logger,
  run: (db: ReturnType<typeof createDb>) => Promise<T>,
): Promise<T> {
  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  try {
    await runMigrations(database.url);
    const handle = createDb(database.url, { max: 1 });
    try {
      return await run(handle);
    } finally {
      await handle.close();
    }
  } finally {
    await database.stop();
  }
}

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
  const now = new Date();
  const trialEnd = (days: number | undefined) =>
    days === undefined ? null : new Date(now.getTime() + days * DAY_MS);
  switch (sub) {
    case 'create': {
      const input = parse(
        z
          .object({
            email,
            password: z.string('is required').min(8, 'must be at least 8 characters').max(128),
            plan,
            trial_days: positiveInt(MAX_TRIAL_DAYS).optional(),
          })
          .refine((v) => v.trial_days === undefined || v.plan !== 'FREE', {
            message: 'a trial needs a paid plan',
            path: ['trial_days'],
          }),
        {
          email: values.email,
          password: values.password,
          plan: values.plan,
          trial_days: values['trial-days'],
        },
        io,
      );
      const user = await withDatabase(config, logger, async ({ db }) =>
        createAccountRepository(db).createUser({
          email: input.email,
          passwordHash: await hashPassword(input.password),
          plan: input.plan,
          trialEndsAt: trialEnd(input.trial_days),
        }),
      );
      if (!user) io.fail(`users create: ${input.email} already exists`);
      io.output(
        { status: 'created', user: describeUser(user, now) },
        `Created ${user.email} (${user.plan}${user.trialEndsAt ? `, trial until ${user.trialEndsAt.toISOString()}` : ''}).`,
      );
      return;
    }
    case 'set-plan': {
      const input = parse(
        z
          .object({ email, plan, trial_days: positiveInt(MAX_TRIAL_DAYS).optional() })
          .refine((v) => v.trial_days === undefined || v.plan !== 'FREE', {
            message: 'a trial needs a paid plan',
            path: ['trial_days'],
          }),
        { email: values.email, plan: values.plan, trial_days: values['trial-days'] },
        io,
      );
      const user = await withDatabase(config, logger, async ({ db }) =>
        createAccountRepository(db).setPlan(input.email, input.plan, {
          trialEndsAt: trialEnd(input.trial_days),
          now,
        }),
      );
      if (!user) io.fail(`users set-plan: no user ${input.email}`);
      await announceAuthChange(config);
      io.output(
        { status: 'updated', user: describeUser(user, now) },
        `${user.email} is now on ${user.plan}.`,
      );
      return;
    }
    case 'payment-failed': {
      const input = parse(z.object({ email }), { email: values.email }, io);
      const user = await withDatabase(config, logger, async ({ db }) =>
        createAccountRepository(db).recordPaymentFailed(input.email, now),
      );
      if (!user) io.fail(`users payment-failed: no user ${input.email}`);
      await announceAuthChange(config);
      const downgradeAt = new Date(user.paymentFailedAt!.getTime() + 3 * DAY_MS);
      io.output(
        {
          status: 'recorded',
          user: describeUser(user, now),
          downgrade_at: downgradeAt.toISOString(),
        },
        `Failed payment recorded for ${user.email}; downgrade to FREE at ${downgradeAt.toISOString()} unless the plan is set again.`,
      );
      return;
    }
    default:
      io.fail('usage: users create|set-plan|payment-failed …', 2);
  }
}

export async function keysCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'set-limits')
    io.fail('usage: keys set-limits --key K --per-minute N --per-hour N --per-day N', 2);
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
  const input = parse(
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

export async function analyzeCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo & { poolMax?: number },
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      'chain-id': { type: 'string' },
      address: { type: 'string' },
      'timeout-seconds': { type: 'string' },
    },
    strict: true,
  });
  const input = parse(
    z.object({
      chain_id: positiveInt(Number.MAX_SAFE_INTEGER).refine(
        (id) => config.knownChainIds.has(id),
        'unknown chain id',
      ),
      address: z
        .string('is required')
        .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
        .transform((a) => a.toLowerCase()),
      timeout_seconds: positiveInt(3_600).optional(),
    }),
    {
      chain_id: values['chain-id'],
      address: values.address,
      timeout_seconds: values['timeout-seconds'],
    },
    io,
  );
  const chain = config.chains.find((c) => c.chainId === input.chain_id);
  if (!chain)
    io.fail(
      `analyze: chain ${input.chain_id} has no RPC endpoint (set RPC_URL_${input.chain_id} or CHAINS_FILE)`,
    );

  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  const redis = await resolveRedis(config.env.REDIS_URL, config.env.DATA_DIR, logger);
  await runMigrations(database.url);
  // This process runs the stage workers itself: it works alone, and beside a running service.
  const service = await startService({
    roles: new Set(['worker']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: config.env.REDIS_PREFIX,
    chains: [chain],
    knownChainIds: config.knownChainIds,
    port: 0,
    host: '127.0.0.1',
    logger,
    poolMax: io.poolMax,
  });
  const handle = createDb(database.url, { max: 1 });
  const commandRedis = createRedis(redis.url, 'commands');
  const producerConnection = createRedis(redis.url, 'producer');
  const keys = keySpace(config.env.REDIS_PREFIX);
  const producer = createProducer(producerConnection, keys.prefix);
  const tokens = createTokenRepository(handle.db);
  try {
    const submit = createSubmitter({
      chains: createChainRuntimes([chain], logger),
      tokens,
      producer,
      events: createEventPublisher(commandRedis, keys.events),
      redis: commandRedis,
      redisPrefix: keys.prefix,
      logger,
    });
    const submittedAt = new Date();
    const result = await submit(input.chain_id, input.address);
    // Thrown, not io.fail: the finally block below must stop what this command started.
    if (result.status === 'not-found') throw new Error(`Token not found: ${result.reason}`);
    const deadline = Date.now() + (input.timeout_seconds ?? DEFAULT_ANALYZE_TIMEOUT_SECONDS) * 1000;
    for (;;) {
      const row = await tokens.get(input.chain_id, input.address);
      if (
        row &&
        stageIndex(row.stage) >= stageIndex(DONE_STAGE) &&
        row.updatedAt.getTime() >= submittedAt.getTime()
      )
        break;
      if (Date.now() > deadline)
        throw new Error(
          `analyze: the pipeline did not finish within the timeout (stage: ${row?.stage ?? 'unknown'})`,
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const [token] = await assembleComplete(tokens, [
      { chainId: input.chain_id, address: input.address },
    ]);
    const full = shapeComplete(token!, INCLUDE_ALL, Date.now());
    io.output(full, JSON.stringify(full, null, 2));
  } finally {
    await producer.close();
    commandRedis.disconnect();
    producerConnection.disconnect();
    await handle.close();
    await service.stop();
    await redis.stop();
    await database.stop();
  }
}

export const DEMO_EMAIL = 'demo@token-monitor.local';

/**
 * The embedded default's ready-made demo PRO API key (docs/configuration.md): a PRO demo account (created
 * once, with a random password nobody knows) gets a fresh key on every start; the previous one
 * is revoked. Only for the embedded default, never with a configured chain.
 */
export async function issueDemoKey(
  databaseUrl: string,
  redisUrl: string,
  redisPrefix: string,
  password?: string,
): Promise<string> {
  const handle = createDb(databaseUrl, { max: 1 });
  const redis = createRedis(redisUrl, 'commands');
  try {
    const accounts = createAccountRepository(handle.db);
    const now = new Date();
    const user =
      (await accounts.userByEmail(DEMO_EMAIL)) ??
      (await accounts.createUser({
        email: DEMO_EMAIL,
        passwordHash: await hashPassword(randomBytes(24).toString('hex')),
        plan: 'PRO',
      })) ??
      (await accounts.userByEmail(DEMO_EMAIL));
    if (!user) throw new Error('demo account could not be created');
    if (user.plan !== 'PRO' || user.trialEndsAt || user.paymentFailedAt)
      await accounts.setPlan(DEMO_EMAIL, 'PRO', { now });
    // The web app's demo sign-in: the password printed by `npm start` (kept in DATA_DIR).
    if (password) await accounts.setPasswordHash(DEMO_EMAIL, await hashPassword(password));
    const key = generateApiKey();
    await accounts.generateKey(user.id, key, {
      name: 'Demo key',
      description: 'issued by npm start (embedded default)',
      plan: 'PRO',
      now,
      expiresAt: null,
    });
    await bumpAuthGeneration(redis, keySpace(redisPrefix).prefix);
    return key.apiKey;
  } finally {
    redis.disconnect();
    await handle.close();
  }
}
