import { pino, type Logger } from 'pino';

export type { Logger };

/** Secrets never reach the log, whatever object they ride in on. */
const REDACTED_PATHS = [
  'password', '*.password', 'api_secret', '*.api_secret', 'apiKey', '*.apiKey',
  'headers.authorization', 'headers["x-api-key"]', 'req.headers.authorization', 'req.headers["x-api-key"]',
  'jwtSecret', '*.jwtSecret',
];

/** `toStderr`: for commands whose stdout carries their result (JSON when piped). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', name = 'token-monitor', toStderr = false): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return toStderr ? pino(options, pino.destination(2)) : pino(options);
}

/** A logger that drops everything: the default for library code and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
