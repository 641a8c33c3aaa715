import { fileURLToPath } from 'node:url';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import {
  drizzle,
  type PostgresJsDatabase,
  type PostgresJsQueryResultHKT,
} from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema.ts';

export type Database = PostgresJsDatabase<typeof schema>;

export interface DbHandle {
  db: Database;
  sql: postgres.Sql;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
/** Arbitrary constant: every process that migrates takes this advisory lock first, so two never race. */
const MIGRATION_LOCK_ID = 7_264_001;
export const DEFAULT_POOL_MAX = 10;
const CONNECT_TIMEOUT_SECONDS = 3;

export function createDb(url: string, options: { max?: number } = {}): DbHandle {
  const sql = postgres(url, {
    max: options.max ?? DEFAULT_POOL_MAX,
    onnotice: () => {},
    // Short: while Postgres is unreachable the API should answer 503 quickly, not hang.
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
  });
  return { db: drizzle(sql, { schema }), sql, close: () => sql.end({ timeout: 5 }) };
}

/** Errors that mean "Postgres is not reachable right now", as opposed to a broken query. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P03',
  '57P01',
]);
export const isConnectionError = (error: unknown) =>
  CONNECTION_ERRORS.has(String((error as { code?: string })?.code));

const STARTUP_PATIENCE_MS = 60_000;
const STARTUP_RETRY_MS = 1_000;

/**
 * Applies pending migrations under an advisory lock; safe to call from every starting process.
 * A process that starts while Postgres is still coming up (or briefly unreachable) waits for it.
 */
export async function runMigrations(url: string): Promise<void> {
  const deadline = Date.now() + STARTUP_PATIENCE_MS;
  for (;;) {
    try {
      await migrateOnce(url);
      return;
    } catch (error) {
      if (!isConnectionError(error) || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, STARTUP_RETRY_MS));
    }
  }
}

async function migrateOnce(url: string): Promise<void> {
  // One connection only: the advisory lock belongs to the session that took it.
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The database or a transaction on it: repository functions that must run inside a caller's transaction take this. */
export type Executor = PgDatabase<PostgresJsQueryResultHKT, typeof schema>;
