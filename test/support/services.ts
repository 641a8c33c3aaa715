import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import postgres from 'postgres';
import {
  findFreePort,
  LOCAL_REDIS_URL,
  redisAnswers,
  resolveRedis,
} from '../../app/embedded/index.ts';
import { runMigrations } from '../../db/client.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';

/**
 * Services for integration tests (docs/configuration.md: tests follow the same rule): the ones named
 * by TEST_DATABASE_URL / TEST_REDIS_URL, else the machine's Postgres and Redis on their standard
 * ports in a database and key prefix of the test's own, else embedded ones.
 */

const LOCAL_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  /** Whether this is an embedded PGlite (single connection). */
  embedded: boolean;
  drop(): Promise<void>;
}

async function postgresAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** A fresh, migrated database used by one test file only. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? LOCAL_POSTGRES_ADMIN_URL;
  if (await postgresAnswers(adminUrl)) {
    const name = `tm_test_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await runMigrations(url.toString());
    return {
      url: url.toString(),
      embedded: false,
      async drop() {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end({ timeout: 2 });
      },
    };
  }
  return createEmbeddedTestDatabase();
}

/** A fresh, migrated embedded PGlite (the default when no Postgres is configured). */
export async function createEmbeddedTestDatabase(): Promise<TestDatabase> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  const port = await findFreePort();
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 16 });
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  await runMigrations(url);
  return {
    url,
    embedded: true,
    async drop() {
      await server.stop();
      await db.close();
    },
  };
}

export interface TestRedis {
  url: string;
  /** A key prefix of the test's own: never collides with the dev stack or a parallel run. */
  prefix: string;
  cleanup(): Promise<void>;
}

export async function createTestRedis(): Promise<TestRedis> {
  const requested = process.env.TEST_REDIS_URL;
  const resolved = requested
    ? { url: requested, stop: async () => {} }
    : (await redisAnswers(LOCAL_REDIS_URL))
      ? { url: LOCAL_REDIS_URL, stop: async () => {} }
      : await resolveRedis(undefined, `.data/test-redis-${process.pid}`, silentLogger);
  const prefix = `tmtest-${randomBytes(5).toString('hex')}`;
  return {
    url: resolved.url,
    prefix,
    async cleanup() {
      try {
        await deleteKeys(resolved.url, prefix);
      } finally {
        await resolved.stop();
      }
    },
  };
}

/** Deletes every key under `prefix` (a test's own namespace). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = createRedis(url, 'commands');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`,
  );
}
