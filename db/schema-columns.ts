import { timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by the schema's files. */

export const createdAt = () =>
  timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();
