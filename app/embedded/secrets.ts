import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Secrets of the embedded default (never used in production, where they must be configured):
 * generated once, kept in DATA_DIR with owner-only permissions, the same on every start. The
 * file holds exactly the secret in use, so that what it says can be typed where it is asked for.
 */
const SECRET_HEX_CHARS = 64;

export function persistedSecret(
  dataDir: string,
  name: string,
  chars = SECRET_HEX_CHARS,
): { value: string; path: string } {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (existsSync(path)) {
    const stored = readFileSync(path, 'utf8').trim();
    // Earlier versions stored a longer secret and used its first `chars` characters: the same
    // value, now written alone.
    if (stored.length > chars) writeFileSync(path, `${stored.slice(0, chars)}\n`, { mode: 0o600 });
    if (stored.length > 0) return { value: stored.slice(0, chars), path };
  }
  const value = randomBytes(Math.ceil(chars / 2))
    .toString('hex')
    .slice(0, chars);
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return { value, path };
}
