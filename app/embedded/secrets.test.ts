import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { persistedSecret } from './secrets.ts';

/** The embedded default's secrets in DATA_DIR: the same on every start. */

const root = mkdtempSync(join(tmpdir(), 'token-monitor-secrets-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('persisted secrets', () => {
  it('generate once, owner-only, and the file holds exactly the secret in use', () => {
    const dir = mkdtempSync(join(root, 'secret-'));
    const password = persistedSecret(dir, 'demo-password', 24);
    expect(password.value).toMatch(/^[0-9a-f]{24}$/);
    expect(readFileSync(password.path, 'utf8').trim()).toBe(password.value);
    expect(statSync(password.path).mode & 0o777).toBe(0o600);
    expect(persistedSecret(dir, 'demo-password', 24).value).toBe(password.value);
    expect(persistedSecret(dir, 'admin-password').value).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the password an earlier version derived from a longer stored secret', () => {
    const dir = mkdtempSync(join(root, 'legacy-'));
    const path = join(dir, 'demo-password');
    const legacy = 'ab'.repeat(32);
    writeFileSync(path, `${legacy}\n`, { mode: 0o600 });
    expect(persistedSecret(dir, 'demo-password', 24).value).toBe(legacy.slice(0, 24));
    expect(readFileSync(path, 'utf8').trim()).toBe(legacy.slice(0, 24));
  });
});
