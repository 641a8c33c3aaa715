import type { Logger } from 'pino';
import { z } from 'zod';
import { createDb, runMigrations } from '../../db/client.ts';
import type { AppConfig } from '../../src/config/env.ts';
import type { Plan } from '../../src/plans.ts';
import { resolveDatabase } from '../embedded/index.ts';

/**
 * What the operator commands share: how they answer (JSON when piped, prose on a terminal), their
 * argument schemas (validated with zod like any other input), and a short-lived database handle.
 */

export interface CliIo {
  output(value: unknown, human: string): void;
  fail(message: string, code?: number): never;
}

/** Exit code for arguments that do not validate (the usage error of the shell convention). */
export const USAGE_EXIT_CODE = 2;

export const email = z
  .email('must be an email address')
  .max(254)
  .transform((e) => e.toLowerCase());

export const plan = z
  .enum(['free', 'basic', 'pro', 'FREE', 'BASIC', 'PRO'], 'must be free, basic or pro')
  .transform((p) => p.toUpperCase() as Plan);

/** A command-line integer: digits only (no sign, exponent or hex), from 1 to `max`. */
export const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

/** Validates `values`, or fails naming each bad option as the user typed it (`--trial-days`). */
export function parseOptions<T extends z.ZodType>(
  schema: T,
  values: unknown,
  io: CliIo,
): z.infer<T> {
  const result = schema.safeParse(values);
  if (!result.success)
    io.fail(
      result.error.issues
        .map((i) => `--${i.path.join('.').replace(/_/g, '-')}: ${i.message}`)
        .join('\n'),
      USAGE_EXIT_CODE,
    );
  return result.data;
}

/**
 * Runs `run` against the configured database, migrated. With the embedded default (no
 * DATABASE_URL) the command opens the embedded database itself, so it runs while `start` is
 * stopped.
 */
export async function withDatabase<T>(
  config: AppConfig,
  logger: Logger,
  run: (db: ReturnType<typeof createDb>) => Promise<T>,
): Promise<T> {
  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  try {
    await runMigrations(database.url);
    const handle = createDb(database.url, { max: 1 });
    try {
      return await run(handle);
    } finally {
      await handle.close();
    }
  } finally {
    await database.stop();
  }
}
