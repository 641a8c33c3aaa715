import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * This database's identity: one row, made by migration 0009 and never changed. Every Redis
 * namespace records the id of the database it serves, so that two deployments on one Redis and
 * key prefix refuse to start instead of taking each other's jobs (app/namespace.ts). Part of the
 * schema through db/schema.ts, which re-exports it.
 */
export const deployment = pgTable('deployment', {
  id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
