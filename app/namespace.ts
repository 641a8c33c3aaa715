import type { Redis } from 'ioredis';
import type { Database } from '../db/client.ts';
import { deploymentId } from '../db/repositories/deployment.ts';
import { claimNamespace, namespaceOwnerKey } from '../infra/namespace.ts';
import type { KeySpace } from '../infra/redis.ts';

/**
 * A process refuses to start on a Redis namespace that serves another database: its workers would
 * take that deployment's jobs and read them against the wrong database and chain, and tokens
 * would be lost without an error anywhere (docs/operations.md, "Isolation").
 */

/** Scheme, host, port and database (name or number): never the user, password or query. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === '/' ? '' : parsed.pathname;
    return `${parsed.protocol}//${parsed.host}${path}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** The database's deployment id, once the namespace is known to serve it; else a refusal naming both. */
export async function ensureOwnNamespace(
  db: Database,
  redis: Redis,
  keys: KeySpace,
  urls: { database: string; redis: string },
): Promise<string> {
  const id = await deploymentId(db);
  const claim = await claimNamespace(redis, keys, id);
  if (claim.status !== 'foreign') return id;
  throw new Error(
    `Refusing to start: the Redis namespace "${keys.prefix}" on ${describeUrl(urls.redis)} ` +
      `belongs to deployment ${claim.owner}, but this process's database ` +
      `(${describeUrl(urls.database)}) is deployment ${id}. Two deployments in one namespace ` +
      "take each other's jobs. Give this one a namespace of its own (REDIS_PREFIX, or another " +
      `REDIS_URL); only if this database replaced the other one for good, delete the key ` +
      `"${namespaceOwnerKey(keys)}".`,
  );
}
