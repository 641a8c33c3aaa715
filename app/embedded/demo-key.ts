import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { generateApiKey, hashPassword } from '../../src/accounts/credentials.ts';

/**
 * The ready-made demo PRO key exists only on the embedded default: the embedded PGlite (no
 * DATABASE_URL), no configured chain, and never with NODE_ENV=production. Any other start (a
 * real database, real chains, production) revokes a demo key left over from an earlier embedded
 * run, so a database promoted from a trial never keeps a key that was printed to a terminal.
 */

export const DEMO_EMAIL = 'demo@token-monitor.local';

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

/** Revokes every active key of the demo account; how many were revoked. */
export async function revokeDemoKeys(
  databaseUrl: string,
  redisUrl: string,
  redisPrefix: string,
): Promise<number> {
  const handle = createDb(databaseUrl, { max: 1 });
  const redis = createRedis(redisUrl, 'commands');
  try {
    const accounts = createAccountRepository(handle.db);
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
  } finally {
    redis.disconnect();
    await handle.close();
  }
}

/** At start-up: the demo key when the policy allows it, else the leftover one revoked. */
export async function applyDemoKeyPolicy(options: {
  action: DemoKeyAction;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  logger: Logger;
  /** The demo account's web password (issue only). */
  password?: string;
}): Promise<string | undefined> {
  const { databaseUrl, redisUrl, redisPrefix } = options;
  if (options.action === 'issue')
    return issueDemoKey(databaseUrl, redisUrl, redisPrefix, options.password);
  const revoked = await revokeDemoKeys(databaseUrl, redisUrl, redisPrefix);
  if (revoked > 0) {
    const why =
      'revoked the demo API key of an earlier embedded run: this is not the embedded default';
    options.logger.warn({ revoked }, why);
  }
  return undefined;
}

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
