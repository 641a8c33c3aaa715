import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createBillingRepository } from '../db/repositories/billing.ts';
import { silentLogger } from '../infra/logger.ts';
import { generateApiKey } from '../src/accounts/credentials.ts';
import { type PriceIds, parseBillingEvent } from '../src/billing/index.ts';
import { type AppConfig, parseConfig } from '../src/config/env.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import type { CliIo } from './commands/input.ts';
import { accountsCommand } from './commands/users.ts';
import { keysCommand } from './operator.ts';

/** The account commands against a real database: what they print, and how they refuse. */

const PRICES: PriceIds = {
  BASIC: { monthly: 'price_bm', annual: 'price_ba' },
  PRO: { monthly: 'price_pm', annual: 'price_pa' },
};

let database: TestDatabase;
let redis: TestRedis;
let config: AppConfig;

class Failed extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** An io that records the answer and throws where the CLI would exit. */
function recordingIo() {
  const outputs: unknown[] = [];
  const io: CliIo = {
    output: (value) => void outputs.push(value),
    fail: (message, code = 1) => {
      throw new Failed(message, code);
    },
  };
  return { io, outputs };
}

async function failure(run: (io: CliIo) => Promise<void>): Promise<Failed> {
  const { io } = recordingIo();
  const error = await run(io).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Failed)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const parsed = parseConfig(
    { DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix },
    () => '',
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  config = parsed.config;
}, 60_000);

afterAll(async () => {
  await Promise.all([database?.drop(), redis?.cleanup()]);
});

describe('users', () => {
  it('creates an account on a trial, changes its plan, and records a failed payment', async () => {
    const { io, outputs } = recordingIo();
    const args = ['--email', 'Op@Example.com', '--password', 'long-enough', '--plan', 'pro'];
    await accountsCommand(config, silentLogger, ['create', ...args, '--trial-days', '3'], io);
    expect(outputs[0]).toMatchObject({
      status: 'created',
      user: { email: 'op@example.com', plan: 'PRO', plan_state: 'trialing' },
    });
    await accountsCommand(
      config,
      silentLogger,
      ['set-plan', '--email', 'op@example.com', '--plan', 'basic'],
      io,
    );
    expect(outputs[1]).toMatchObject({
      status: 'updated',
      user: { plan: 'BASIC', trial_ends_at: null },
    });
    await accountsCommand(
      config,
      silentLogger,
      ['payment-failed', '--email', 'op@example.com'],
      io,
    );
    const recorded = outputs[2] as { user: { payment_failed_at: string }; downgrade_at: string };
    expect(Date.parse(recorded.downgrade_at) - Date.parse(recorded.user.payment_failed_at)).toBe(
      3 * 86_400_000,
    );
  });

  it('refuses bad options with exit code 2, naming each option as typed', async () => {
    const refused = await failure((io) =>
      accountsCommand(
        config,
        silentLogger,
        ['create', '--email', 'nope', '--password', 'short', '--plan', 'free', '--trial-days', '3'],
        io,
      ),
    );
    expect(refused.code).toBe(2);
    expect(refused.message).toContain('--email: must be an email address');
    expect(refused.message).toContain('--password: must be at least 8 characters');
    expect(refused.message).toContain('--trial-days: a trial needs a paid plan');
  });

  it('refuses an unknown subcommand, even one named like an object property', async () => {
    for (const sub of ['frob', 'constructor', '__proto__', 'toString']) {
      const refused = await failure((io) => accountsCommand(config, silentLogger, [sub], io));
      expect(refused.code).toBe(2);
      expect(refused.message).toMatch(/^usage: users/);
    }
  });

  it('says which account does not exist or already does', async () => {
    const missing = await failure((io) =>
      accountsCommand(
        config,
        silentLogger,
        ['set-plan', '--email', 'ghost@example.com', '--plan', 'pro'],
        io,
      ),
    );
    expect(missing.message).toBe('users set-plan: no user ghost@example.com');
    const args = ['--email', 'twice@example.com', '--password', 'long-enough', '--plan', 'free'];
    await accountsCommand(config, silentLogger, ['create', ...args], recordingIo().io);
    const duplicate = await failure((io) =>
      accountsCommand(config, silentLogger, ['create', ...args], io),
    );
    expect(duplicate.message).toBe('users create: twice@example.com already exists');
  });
});

describe('users of a Stripe-billed account', () => {
  it('show names the Stripe customer and subscription; a manual change warns that Stripe will set the plan again', async () => {
    const { io, outputs } = recordingIo();
    const args = ['--email', 'billed@example.com', '--password', 'long-enough', '--plan', 'free'];
    await accountsCommand(config, silentLogger, ['create', ...args], io);
    const handle = createDb(database.url, { max: 1 });
    try {
      const user = (await createAccountRepository(handle.db).userByEmail('billed@example.com'))!;
      const billing = createBillingRepository(handle.db);
      await billing.linkCustomer(user.id, 'cus_billed');
      const parsed = parseBillingEvent({
        id: 'evt_billed',
        type: 'customer.subscription.created',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: 'sub_billed',
            customer: 'cus_billed',
            status: 'active',
            items: {
              data: [{ price: { id: PRICES.PRO.monthly }, current_period_end: 2_000_000_000 }],
            },
          },
        },
      });
      if (!parsed.ok) throw new Error(parsed.error);
      await billing.handleEvent(parsed.event, PRICES, new Date());
    } finally {
      await handle.close();
    }
    await accountsCommand(config, silentLogger, ['show', '--email', 'billed@example.com'], io);
    expect(outputs[1]).toMatchObject({
      status: 'found',
      user: {
        plan: 'PRO',
        billing: {
          stripe_customer: 'cus_billed',
          stripe_subscription: 'sub_billed',
          subscription_status: 'active',
          subscription_plan: 'PRO',
          subscription_period: 'monthly',
        },
      },
    });
    await accountsCommand(
      config,
      silentLogger,
      ['set-plan', '--email', 'billed@example.com', '--plan', 'basic'],
      io,
    );
    expect(outputs[2]).toMatchObject({
      status: 'updated',
      user: { plan: 'BASIC' },
      warning: expect.stringMatching(
        /Stripe subscription \(sub_billed, active\).*sets the plan again/,
      ),
    });
    // An account without a subscription gets no warning.
    await accountsCommand(
      config,
      silentLogger,
      ['set-plan', '--email', 'twice@example.com', '--plan', 'pro'],
      io,
    );
    expect(outputs[3]).not.toHaveProperty('warning');
    expect((outputs[3] as { user: { billing: unknown } }).user.billing).toBeNull();
  });
});

describe('keys set-limits', () => {
  it('raises a key found by its full or its masked form', async () => {
    const handle = createDb(database.url, { max: 1 });
    const key = generateApiKey();
    try {
      const accounts = createAccountRepository(handle.db);
      const user = await accounts.createUser({
        email: 'keys@example.com',
        passwordHash: 'x',
        plan: 'PRO',
      });
      await accounts.generateKey(user!.id, key, {
        name: 'k',
        description: '',
        plan: 'PRO',
        now: new Date(),
        expiresAt: null,
      });
    } finally {
      await handle.close();
    }
    const { io, outputs } = recordingIo();
    const limits = ['--per-minute', '100', '--per-hour', '1000', '--per-day', '10000'];
    await keysCommand(config, silentLogger, ['set-limits', '--key', key.apiKey, ...limits], io);
    await keysCommand(config, silentLogger, ['set-limits', '--key', key.maskedKey, ...limits], io);
    for (const answer of outputs)
      expect(answer).toEqual({
        status: 'updated',
        api_key: key.maskedKey,
        rate_limit: { requests_per_minute: 100, requests_per_hour: 1000, requests_per_day: 10000 },
      });
    const unknown = await failure((io) =>
      keysCommand(config, silentLogger, ['set-limits', '--key', 'svc_pro_nope', ...limits], io),
    );
    expect(unknown.message).toMatch(/--key: must be an API key/);
  });
});
