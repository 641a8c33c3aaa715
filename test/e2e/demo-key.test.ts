import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueDemoKey } from '../../app/embedded/index.ts';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { sha256Hex } from '../../src/accounts/credentials.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../support/services.ts';
import { spawnStart, waitForBanner } from '../support/start-process.ts';

/**
 * `token-monitor start` against a real database (DATABASE_URL) and no configured chain: the dev
 * chain still starts, but this is not the embedded default, so no demo PRO key is printed, and a
 * demo key left over from an earlier embedded run is revoked (docs/security.md).
 */

const START_TIMEOUT_MS = 90_000;

let child: ChildProcess | undefined;
let database: TestDatabase;
let redis: TestRedis;
const dataDir = mkdtempSync(join(tmpdir(), 'token-monitor-demo-key-'));

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([database?.drop(), redis?.cleanup()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo key outside the embedded default', () => {
  it('is not issued with a real DATABASE_URL, and a leftover one is revoked', async () => {
    [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    const leftover = await issueDemoKey(database.url, redis.url, redis.prefix);
    child = spawnStart({
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      DEMO_INTERVAL_SECONDS: '3600',
    });
    const { banner: started } = await waitForBanner<{
      status: string;
      demo_api_key: string | null;
      api: string;
    }>(child, START_TIMEOUT_MS);
    expect(started.demo_api_key).toBeNull();
    const refused = await fetch(`${started.api}/pro/tokens?limit=1`, {
      headers: { 'x-api-key': leftover },
    });
    expect(refused.status).toBe(401);
    const handle = createDb(database.url, { max: 1 });
    try {
      const row = await createAccountRepository(handle.db).principalByKeyHash(sha256Hex(leftover));
      expect(row?.key.status).toBe('revoked');
    } finally {
      await handle.close();
    }
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }, 180_000);
});
