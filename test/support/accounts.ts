import type { AccountRepository, KeyLimits } from '../../db/repositories/accounts.ts';
import { generateApiKey, hashPassword } from '../../src/accounts/credentials.ts';

/** Limits no test or benchmark reaches: the limit is not what they measure. */
export const RAISED_LIMITS: KeyLimits = {
  requestsPerMinute: 100_000_000,
  requestsPerHour: 100_000_000,
  requestsPerDay: 100_000_000,
};

export interface ProAccount {
  userId: number;
  apiKey: string;
  keyHash: string;
}

/**
 * A PRO user with an active API key, as the key-generation route makes them; `limits` replaces
 * the key's default windows (10/min, 100/h, 1,000/day). `passwordHash` lets a caller creating
 * many users hash once.
 */
export async function createProAccount(
  accounts: AccountRepository,
  options: { email: string; keyName?: string; limits?: KeyLimits; passwordHash?: string },
): Promise<ProAccount> {
  const user = await accounts.createUser({
    email: options.email,
    passwordHash: options.passwordHash ?? (await hashPassword(`${options.email} password`)),
    plan: 'PRO',
  });
  if (!user) throw new Error(`test account ${options.email} exists already`);
  const key = generateApiKey();
  await accounts.generateKey(user.id, key, {
    name: options.keyName ?? 'test',
    description: null,
    plan: 'PRO',
    now: new Date(),
    expiresAt: null,
  });
  if (options.limits) await accounts.setKeyLimits({ keyHash: key.keyHash }, options.limits);
  return { userId: user.id, apiKey: key.apiKey, keyHash: key.keyHash };
}
