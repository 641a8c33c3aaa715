import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { API_KEY_PATTERN, MASKED_KEY_PATTERN, sha256Hex } from '../src/accounts/credentials.ts';
import type { AppConfig } from '../src/config/env.ts';
import { announceAuthChange } from './commands/announce.ts';
import {
  type CliIo,
  parseOptions,
  positiveInt,
  USAGE_EXIT_CODE,
  withDatabase,
} from './commands/input.ts';

/**
 * The operator's key commands (docs/operations.md): `keys set-limits`, and the embedded default's
 * demo account. The account commands (`users …`) are in app/commands/users.ts, `analyze` in
 * app/commands/analyze.ts.
 */

const LIMIT_MAX = 100_000_000;

export async function keysCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'set-limits')
    io.fail(
      'usage: keys set-limits --key K --per-minute N --per-hour N --per-day N',
      USAGE_EXIT_CODE,
    );
  const { values } = parseArgs({
    args: rest,
    options: {
      key: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-hour': { type: 'string' },
      'per-day': { type: 'string' },
    },
    strict: true,
  });
  const input = parseOptions(
    z.object({
      key: z
        .string('is required')
        .refine(
          (k) => API_KEY_PATTERN.test(k) || MASKED_KEY_PATTERN.test(k),
          'must be an API key (svc_pro_…) or its masked form',
        ),
      per_minute: positiveInt(LIMIT_MAX),
      per_hour: positiveInt(LIMIT_MAX),
      per_day: positiveInt(LIMIT_MAX),
    }),
    {
      key: values.key,
      per_minute: values['per-minute'],
      per_hour: values['per-hour'],
      per_day: values['per-day'],
    },
    io,
  );
  const by = API_KEY_PATTERN.test(input.key)
    ? { keyHash: sha256Hex(input.key) }
    : { maskedKey: input.key };
  const rows = await withDatabase(config, logger, async ({ db }) =>
    createAccountRepository(db).setKeyLimits(by, {
      requestsPerMinute: input.per_minute,
      requestsPerHour: input.per_hour,
      requestsPerDay: input.per_day,
    }),
  );
  if (rows.length === 0) io.fail('keys set-limits: no such key');
  if (rows.length > 1)
    io.fail('keys set-limits: the masked form names several active keys; give the full key');
  const row = rows[0]!;
  await announceAuthChange(config);
  const limits = {
    requests_per_minute: row.requestsPerMinute,
    requests_per_hour: row.requestsPerHour,
    requests_per_day: row.requestsPerDay,
  };
  io.output(
    { status: 'updated', api_key: row.maskedKey, rate_limit: limits },
    `${row.maskedKey}: ${limits.requests_per_minute}/minute, ${limits.requests_per_hour}/hour, ${limits.requests_per_day}/day.`,
  );
}
