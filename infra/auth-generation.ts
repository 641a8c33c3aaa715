import type { Redis } from 'ioredis';

/**
 * The authentication generation: one Redis counter that every change to a credential or an
 * account's plan increments (key generated or revoked, limits changed, plan set, payment failed,
 * downgrade). API instances cache looked-up principals in memory only while the generation they
 * read them under is still current, so a revocation takes effect on every instance at once.
 */

export function authGenerationKey(prefix: string): string {
  return `${prefix}:auth:generation`;
}

export async function bumpAuthGeneration(redis: Redis, prefix: string): Promise<void> {
  await redis.incr(authGenerationKey(prefix));
}
