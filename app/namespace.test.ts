import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../db/client.ts';
import { deploymentId } from '../db/repositories/deployment.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import { describeUrl, ensureOwnNamespace } from './namespace.ts';

/** A Redis namespace serves one database: a process of another one refuses, naming both. */

let databases: TestDatabase[] = [];
let handles: DbHandle[] = [];
let redis: TestRedis;
const connection = () => createRedis(redis.url, 'commands');

beforeAll(async () => {
  [redis, ...databases] = await Promise.all([
    createTestRedis(),
    createTestDatabase(),
    createTestDatabase(),
  ]);
  handles = databases.map((d) => createDb(d.url, { max: 1 }));
});

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await Promise.all([...databases.map((d) => d.drop()), redis?.cleanup()]);
});

describe('namespace ownership', () => {
  it('gives every database one deployment id, created by its first migration', async () => {
    const [a, b] = await Promise.all(handles.map((h) => deploymentId(h.db)));
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).not.toBe(a);
    expect(await deploymentId(handles[0]!.db)).toBe(a);
  });

  it('lets the first database claim a namespace and keep it, and refuses another one', async () => {
    const keys = keySpace(redis.prefix);
    const client = connection();
    try {
      const own = (i: number) =>
        ensureOwnNamespace(handles[i]!.db, client, keys, {
          database: databases[i]!.url,
          redis: redis.url,
        });
      const first = await own(0);
      expect(await client.get(`${redis.prefix}:deployment`)).toBe(first);
      expect(await own(0)).toBe(first);
      const other = await deploymentId(handles[1]!.db);
      const refusal = own(1);
      await expect(refusal).rejects.toThrow(`"${redis.prefix}"`);
      await expect(refusal).rejects.toThrow(`belongs to deployment ${first}`);
      await expect(refusal).rejects.toThrow(`is deployment ${other}`);
      await expect(refusal).rejects.toThrow(describeUrl(databases[1]!.url));
      // The namespace still names its owner.
      expect(await client.get(`${redis.prefix}:deployment`)).toBe(first);
    } finally {
      client.disconnect();
    }
  });

  it('never shows a URL credential', () => {
    expect(describeUrl('postgres://user:secret@db.example:5432/tokens?sslmode=require')).toBe(
      'postgres://db.example:5432/tokens',
    );
    expect(describeUrl('redis://:pw@cache:6379/2')).toBe('redis://cache:6379/2');
  });
});
