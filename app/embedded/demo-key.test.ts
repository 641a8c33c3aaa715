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

/** The demo PRO key: only on the embedded default, and revoked by any other start. */

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
      logger: silentLogger,
    };
    const key = await applyDemoKeyPolicy({ ...options, action: 'issue' });
    expect(key).toMatch(/^svc_pro_[0-9a-f]+$/);
    const accounts = createAccountRepository(handle.db);
    expect((await accounts.principalByKeyHash(sha256Hex(key!)))?.key.status).toBe('active');
    expect(await applyDemoKeyPolicy({ ...options, action: 'revoke' })).toBeUndefined();
    expect((await accounts.principalByKeyHash(sha256Hex(key!)))?.key.status).toBe('revoked');
  });
});
