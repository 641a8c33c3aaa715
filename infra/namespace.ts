import type { Redis } from 'ioredis';
import type { KeySpace } from './redis.ts';

/**
 * Which database a Redis namespace (a key prefix) serves: the first process to start on it
 * records its database's deployment id there, and never expires it. A process of another
 * database finds a different id and must not touch the namespace's queues (app/namespace.ts).
 */

export type NamespaceClaim =
  | { status: 'claimed' }
  | { status: 'own' }
  | { status: 'foreign'; owner: string };

export const namespaceOwnerKey = (keys: KeySpace) => keys.key('deployment');

export async function claimNamespace(
  redis: Redis,
  keys: KeySpace,
  deploymentId: string,
): Promise<NamespaceClaim> {
  const key = namespaceOwnerKey(keys);
  if ((await redis.set(key, deploymentId, 'NX')) === 'OK') return { status: 'claimed' };
  const owner = await redis.get(key);
  // Deleted between the two commands (a flush): claim it again.
  if (owner === null) return claimNamespace(redis, keys, deploymentId);
  return owner === deploymentId ? { status: 'own' } : { status: 'foreign', owner };
}
