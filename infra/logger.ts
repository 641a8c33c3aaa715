import { type Logger, type LoggerOptions, pino } from 'pino';
import { redactDeep, redactText } from '../src/config/redact.ts';

export type { Logger };

/**
 * Secrets never reach the log, whatever object or message they ride in on: every logged object
 * is walked (src/config/redact.ts: secret-named fields, API keys, JWTs, Bearer/Basic
 * credentials, URL paths and queries), and so is the message text.
 */
export function loggerOptions(level: string, name: string): LoggerOptions {
  return {
    name,
    level,
    formatters: { log: (object) => redactDeep(object) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
}

/** `toStderr`: for commands whose stdout carries their result (JSON when piped). */
export function createLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  name = 'token-monitor',
  toStderr = false,
): Logger {
  const options = loggerOptions(level, name);
  return toStderr ? pino(options, pino.destination(2)) : pino(options);
}

/** A logger that drops everything: the default for library code and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
