import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Secrets of the embedded default (never used in production, where they must be configured):
 * generated once, kept in DATA_DIR with owner-only permissions, the same on every start.
 */
const SECRET_BYTES = 32;

export function persistedSecret(dataDir: string, name: string): { value: string; path: string } {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (existsSync(path)) {
    const value = readFileSync(path, 'utf8').trim();
    if (value.length > 0) return { value, path };
  }
  const value = randomBytes(SECRET_BYTES).toString('hex');
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return { value, path };
}
