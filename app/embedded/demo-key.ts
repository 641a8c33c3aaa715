import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createDb } from '../../db/client.ts';
import {
  type AccountRepository,
  createAccountRepository,
  type UserRow,
} from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import {
  API_KEY_PATTERN,
  generateApiKey,
  hashPassword,
  sha256Hex,
} from '../../src/accounts/credentials.ts';

/**
 * The ready-made demo PRO key exists only on the embedded default: the embedded PGlite (no
 * DATABASE_URL), no configured chain, and never with NODE_ENV=production. Any other start (a
 * real database, real chains, production) revokes a demo key left over from an earlier embedded
 * run, so a database promoted from a trial never keeps a key that was printed to a terminal.
 *
 * On the embedded default the key stays the same while the data directory lives, so that a
 * script written against it keeps working after a restart: the database holds its hash, as for
 * every key, and DATA_DIR/demo-api-key (owner-only) the key itself, to print it again.
 */

export const DEMO_EMAIL = 'demo@token-monitor.local';
const DEMO_KEY_FILE = 'demo-api-key';
const UNKNOWN_PASSWORD_BYTES = 24;

export type DemoKeyAction = 'issue' | 'revoke';

export interface StartKind {
  databaseUrlConfigured: boolean;
  configuredChains: number;
  nodeEnv: string;
}

export function demoKeyAction(input: StartKind): DemoKeyAction {
  const production = input.nodeEnv === 'production';
  const embedded = !input.databaseUrlConfigured && input.configuredChains === 0 && !production;
  return embedded ? 'issue' : 'revoke';
}

/** The account repository and a Redis connection for one call, closed afterwards. */
async function withAccounts<T>(
  databaseUrl: string,
  redisUrl: string,
  run: (accounts: AccountRepository, redis: Redis) => Promise<T>,
): Promise<T> {
  const handle = createDb(databaseUrl, { max: 1 });
  const redis = createRedis(redisUrl, 'commands');
  try {
    return await run(createAccountRepository(handle.db), redis);
  } finally {
    redis.disconnect();
    await handle.close();
  }
}

/** Revokes every active key of the demo account; how many were revoked. */
export function revokeDemoKeys(
  databaseUrl: string,
  redisUrl: string,
  redisPrefix: string,
): Promise<number> {
  return withAccounts(databaseUrl, redisUrl, async (accounts, redis) => {
    const user = await accounts.userByEmail(DEMO_EMAIL);
    if (!user) return 0;
    const now = new Date();
    let revoked = 0;
    for (const key of await accounts.activeKeys(user.id)) {
      if (await accounts.revokeKey(user.id, { keyHash: key.keyHash }, now)) revoked += 1;
    }
    // Every API instance drops the cached key at once.
    if (revoked > 0) await bumpAuthGeneration(redis, keySpace(redisPrefix).prefix);
    return revoked;
  });
}

/**
 * The PRO demo account, created once with a random password nobody knows; `password` (the one
 * `npm start` prints, kept in DATA_DIR) replaces it.
 */
async function demoAccount(
  accounts: AccountRepository,
  now: Date,
  password: string | undefined,
): Promise<UserRow> {
  const user =
    (await accounts.userByEmail(DEMO_EMAIL)) ??
    (await accounts.createUser({
      email: DEMO_EMAIL,
      passwordHash: await hashPassword(randomBytes(UNKNOWN_PASSWORD_BYTES).toString('hex')),
      plan: 'PRO',
    })) ??
    (await accounts.userByEmail(DEMO_EMAIL));
  if (!user) throw new Error('demo account could not be created');
  if (user.plan !== 'PRO' || user.trialEndsAt || user.paymentFailedAt)
    await accounts.setPlan(DEMO_EMAIL, 'PRO', { now });
  if (password) await accounts.setPasswordHash(DEMO_EMAIL, await hashPassword(password));
  return user;
}

/** A fresh demo key; the account's previous keys are revoked (generateKey). */
async function newDemoKey(
  accounts: AccountRepository,
  redis: Redis,
  redisPrefix: string,
  user: UserRow,
  now: Date,
): Promise<string> {
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
}

/** A fresh demo PRO key on every call (tests and benchmarks: a PRO key without an account to make). */
export function issueDemoKey(
  databaseUrl: string,
  redisUrl: string,
  redisPrefix: string,
  password?: string,
): Promise<string> {
  return withAccounts(databaseUrl, redisUrl, async (accounts, redis) => {
    const now = new Date();
    const user = await demoAccount(accounts, now, password);
    return newDemoKey(accounts, redis, redisPrefix, user, now);
  });
}

function readKeptKey(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const key = readFileSync(path, 'utf8').trim();
  return API_KEY_PATTERN.test(key) ? key : undefined;
}

/**
 * The embedded default's demo key: the one kept in DATA_DIR while the database still holds it
 * as the demo account's active key, else a fresh one, kept in its place.
 */
export function keepDemoKey(options: {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  dataDir: string;
  password?: string;
}): Promise<string> {
  const dir = resolve(options.dataDir);
  const path = join(dir, DEMO_KEY_FILE);
  return withAccounts(options.databaseUrl, options.redisUrl, async (accounts, redis) => {
    const now = new Date();
    const user = await demoAccount(accounts, now, options.password);
    const kept = readKeptKey(path);
    const held = kept ? await accounts.principalByKeyHash(sha256Hex(kept)) : undefined;
    if (kept && held?.user.id === user.id && held.key.status === 'active') return kept;
    const key = await newDemoKey(accounts, redis, options.redisPrefix, user, now);
    mkdirSync(dir, { recursive: true });
    // Written whole, then renamed into place: a crash leaves the old key or the new one.
    writeFileSync(`${path}.tmp`, `${key}\n`, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return key;
  });
}

/** At start-up: the demo key when the policy allows it, else the leftover one revoked. */
export async function applyDemoKeyPolicy(options: {
  action: DemoKeyAction;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Where the issued key is kept (issue only). */
  dataDir: string;
  logger: Logger;
  /** The demo account's web password (issue only). */
  password?: string;
}): Promise<string | undefined> {
  if (options.action === 'issue') return keepDemoKey(options);
  const revoked = await revokeDemoKeys(options.databaseUrl, options.redisUrl, options.redisPrefix);
  if (revoked > 0) {
    const why =
      'revoked the demo API key of an earlier embedded run: this is not the embedded default';
    options.logger.warn({ revoked }, why);
  }
  return undefined;
}
