import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Which Redis namespace an instance owns. On the embedded default (no DATABASE_URL: the database
 * lives in DATA_DIR) the namespace belongs to the data directory: a random instance id created
 * once in it names the key prefix, so two data directories never share queues, caches, leases or
 * the event stream on one Redis, while one data directory finds its queues again after a restart.
 * A configured deployment (DATABASE_URL) keeps `REDIS_PREFIX`, default `tm`; a second deployment
 * on the same Redis and prefix is refused at start-up (app/namespace.ts).
 */

const INSTANCE_FILE = 'instance-id';
const INSTANCE_ID_BYTES = 8;
const INSTANCE_ID = /^[0-9a-f]{16}$/;
export const DEFAULT_REDIS_PREFIX = 'tm';

/** The data directory's instance id, created on first use (O_EXCL: two first starts agree). */
export function instanceId(dataDir: string): string {
  const dir = resolve(dataDir);
  const path = join(dir, INSTANCE_FILE);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(path, `${randomBytes(INSTANCE_ID_BYTES).toString('hex')}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const id = readFileSync(path, 'utf8').trim();
  // Never replaced silently: a new id would strand the queued work of the old namespace.
  if (!INSTANCE_ID.test(id))
    throw new Error(
      `${path} holds no instance id (16 hex digits); restore it, or delete it to start with an empty Redis namespace`,
    );
  return id;
}

export interface RedisNamespace {
  prefix: string;
  /** Where the prefix comes from, for the start-up banner. */
  source: string;
}

/** REDIS_PREFIX when set; the data directory's own prefix on the embedded default; else `tm`. */
export function redisNamespace(env: {
  REDIS_PREFIX?: string;
  DATABASE_URL?: string;
  DATA_DIR: string;
}): RedisNamespace {
  if (env.REDIS_PREFIX) return { prefix: env.REDIS_PREFIX, source: 'REDIS_PREFIX' };
  if (env.DATABASE_URL) return { prefix: DEFAULT_REDIS_PREFIX, source: 'default' };
  return {
    prefix: `${DEFAULT_REDIS_PREFIX}-${instanceId(env.DATA_DIR)}`,
    source: `instance id in ${join(resolve(env.DATA_DIR), INSTANCE_FILE)}`,
  };
}
