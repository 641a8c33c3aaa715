import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { createRedis } from '../../infra/redis.ts';
import { hashPassword } from '../../src/accounts/credentials.ts';
import { tokenCreatedData } from '../../src/events/types.ts';
import {
  repeatedAlerts,
  repeatedAnalyses,
  repeatedEmails,
  repeatedHistory,
  repeatedTokenCreated,
} from './duplicates.ts';
import { storedToken } from './events.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from './services.ts';

/**
 * The fault suite's duplicate checks can fail: on real Postgres and Redis, each one reports
 * nothing for clean data and exactly the duplicate injected into it.
 */

const TOKEN = `0x${'ab'.repeat(20)}`;
const OTHER = `0x${'cd'.repeat(20)}`;
const BUCKET = Date.UTC(2031, 0, 1, 12, 0);
const summary = (address: string) => tokenCreatedData(storedToken(address, 31337));

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 1 });
  redis = createRedis(testRedis.url, 'commands');
});

afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
  await Promise.all([database?.drop(), testRedis?.cleanup()]);
});

describe('duplicate checks catch an injected duplicate', () => {
  it('token.created announced twice for one token', async () => {
    const streamKey = `${testRedis.prefix}:events`;
    const events = createEventPublisher(redis, streamKey);
    await events.publish({ type: 'token.created', data: summary(TOKEN) });
    await events.publish({ type: 'token.created', data: summary(OTHER) });
    await events.publish({
      type: 'token.updated',
      data: { ...summary(TOKEN), current_risk_score: 10 } as never,
    });
    expect(await repeatedTokenCreated(redis, streamKey)).toEqual([]);
    await events.publish({ type: 'token.created', data: summary(TOKEN) });
    expect(await repeatedTokenCreated(redis, streamKey)).toEqual([
      { what: `31337:${TOKEN}`, count: 2 },
    ]);
  });

  it('a second analyses row for the same (token, run)', async () => {
    const insert = (hash: string, run: string) => handle.sql`
      insert into analyses (chain_id, address, input_hash, details) values (31337, ${TOKEN}, ${hash}, ${JSON.stringify({ run })}::jsonb)`;
    await insert('h1', 'initial');
    await insert('h2', 'refresh-1');
    expect(await repeatedAnalyses(handle.sql)).toEqual([]);
    await insert('h3', 'initial');
    expect(await repeatedAnalyses(handle.sql)).toEqual([
      { what: `31337:${TOKEN} run initial`, count: 2 },
    ]);
  });

  it('two history rows in one refresh bucket', async () => {
    const insert = (at: number) => handle.sql`
      insert into token_history (chain_id, address, bucket_at, risk_score) values (31337, ${TOKEN}, ${new Date(at).toISOString()}::timestamptz, 10)`;
    await insert(BUCKET);
    await insert(BUCKET + 60_000);
    expect(await repeatedHistory(handle.sql)).toEqual([]);
    await insert(BUCKET + 5_000);
    expect(await repeatedHistory(handle.sql)).toEqual([
      { what: `31337:${TOKEN} bucket ${BUCKET / 60_000}`, count: 2 },
    ]);
  });

  it('an alert recorded twice for one user, token and kind in a window; a honeypot twice ever', async () => {
    const user = (await createAccountRepository(handle.db).createUser({
      email: 'dup@example.com',
      passwordHash: await hashPassword('a long password'),
      plan: 'PRO',
    }))!;
    const insert = (key: string, kind: string, at: number) => handle.sql`
      insert into alert_deliveries (user_id, alert_key, kind, chain_id, address, stream_id, message, created_at)
      values (${user.id}, ${key}, ${kind}, 31337, ${TOKEN}, '1-0', 'm', ${new Date(at).toISOString()}::timestamptz)`;
    await insert('a', 'liquidity_pull', BUCKET);
    await insert('b', 'liquidity_pull', BUCKET + 60_000);
    await insert('c', 'honeypot', BUCKET);
    expect(await repeatedAlerts(handle.sql)).toEqual([]);
    await insert('d', 'liquidity_pull', BUCKET + 1_000);
    await insert('e', 'honeypot', BUCKET + 3_600_000);
    const repeats = await repeatedAlerts(handle.sql);
    expect(repeats.map((r) => r.what).sort()).toEqual([
      `${user.id} 31337:${TOKEN} honeypot`,
      `${user.id} 31337:${TOKEN} liquidity_pull`,
    ]);
  });

  it('an email delivered twice for one alert', () => {
    const mail = (subject: string) => ({ to: 'a@example.com', subject });
    expect(repeatedEmails([mail('honeypot 0xab'), mail('rug 0xab')])).toEqual([]);
    expect(
      repeatedEmails([mail('honeypot 0xab'), mail('rug 0xab'), mail('honeypot 0xab')]),
    ).toEqual([{ what: 'a@example.com honeypot 0xab', count: 2 }]);
  });
});
