import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { silentLogger } from '../../infra/logger.ts';
import { sha256Hex } from '../../src/accounts/credentials.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { applyDemoKeyPolicy, demoKeyAction } from './demo-key.ts';

/**
 * The demo PRO key: only on the embedded default, the same on every start while the data
 * directory lives, and revoked by any other start.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'token-monitor-demo-key-'));
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 1 });
});

afterAll(async () => {
  await handle?.close();
  await Promise.all([database?.drop(), redis?.cleanup()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo key policy', () => {
  it('issues only with the embedded database, no configured chain and outside production', () => {
    expect(
      demoKeyAction({ databaseUrlConfigured: false, configuredChains: 0, nodeEnv: 'development' }),
    ).toBe('issue');
    expect(
      demoKeyAction({ databaseUrlConfigured: true, configuredChains: 0, nodeEnv: 'development' }),
    ).toBe('revoke');
    expect(
      demoKeyAction({ databaseUrlConfigured: false, configuredChains: 1, nodeEnv: 'development' }),
    ).toBe('revoke');
    expect(
      demoKeyAction({ databaseUrlConfigured: false, configuredChains: 0, nodeEnv: 'production' }),
    ).toBe('revoke');
  });

  it('a start that is not the embedded default revokes the leftover demo key', async () => {
    const options = {
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      dataDir,
      logger: silentLogger,
    };
    const key = await applyDemoKeyPolicy({ ...options, action: 'issue' });
    expect(key).toMatch(/^svc_pro_[0-9a-f]+$/);
    const accounts = createAccountRepository(handle.db);
    expect((await accounts.principalByKeyHash(sha256Hex(key!)))?.key.status).toBe('active');
    expect(await applyDemoKeyPolicy({ ...options, action: 'revoke' })).toBeUndefined();
    expect((await accounts.principalByKeyHash(sha256Hex(key!)))?.key.status).toBe('revoked');
  });

  it('keeps the key while the data directory lives, and issues a new one when it was revoked', async () => {
    const keyDir = mkdtempSync(join(dataDir, 'kept-'));
    const options = {
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      dataDir: keyDir,
      logger: silentLogger,
      action: 'issue' as const,
    };
    const first = await applyDemoKeyPolicy(options);
    expect(first).toMatch(/^svc_pro_[0-9a-f]{40}$/);
    const keyFile = join(keyDir, 'demo-api-key');
    // Owner-only: the file holds the key itself (the database, its hash only).
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(await applyDemoKeyPolicy(options)).toBe(first);
    const accounts = createAccountRepository(handle.db);
    expect((await accounts.principalByKeyHash(sha256Hex(first!)))?.key.status).toBe('active');

    // A key the database no longer honours (revoked by a start that was not embedded, or a
    // damaged file) is replaced, not printed.
    await applyDemoKeyPolicy({ ...options, action: 'revoke' });
    const second = await applyDemoKeyPolicy(options);
    expect(second).not.toBe(first);
    expect((await accounts.principalByKeyHash(sha256Hex(second!)))?.key.status).toBe('active');
    writeFileSync(keyFile, 'not a key\n');
    const third = await applyDemoKeyPolicy(options);
    expect(third).not.toBe(second);
    expect(third).toMatch(/^svc_pro_[0-9a-f]{40}$/);
    expect((await accounts.principalByKeyHash(sha256Hex(second!)))?.key.status).toBe('revoked');
  });
});
