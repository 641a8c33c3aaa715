import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * JWT_SECRET when set; otherwise (embedded default only: production requires the variable) a
 * secret generated once and kept in DATA_DIR, so sessions survive a restart. Created with
 * O_EXCL and mode 0600: two processes starting at once end up with the same secret.
 */

const SECRET_FILE = 'jwt-secret';
const SECRET_BYTES = 48;
const MIN_LENGTH = 32;

export function resolveJwtSecret(
  configured: string | undefined,
  dataDir: string,
): { secret: string; source: string } {
  if (configured) return { secret: configured, source: 'JWT_SECRET' };
  const dir = resolve(dataDir);
  const path = join(dir, SECRET_FILE);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(path, randomBytes(SECRET_BYTES).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < MIN_LENGTH)
    throw new Error(
      `${path}: the stored JWT secret is shorter than ${MIN_LENGTH} characters; delete it to have a new one generated`,
    );
  return { secret, source: path };
}
