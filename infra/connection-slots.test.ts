import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedis, type TestRedis } from '../test/support/services.ts';
import { createConnectionSlots } from './connection-slots.ts';
import { createRedis } from './redis.ts';

/**
 * Connection slots on a real Redis: the limit holds for as long as the connections live (each
 * heartbeat renews both the slot and the set), and slots of an instance that stopped renewing
 * (crashed) are freed once their expiry passes.
 */

const TTL_MS = 400;
let testRedis: TestRedis;
let redis: Redis;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  testRedis = await createTestRedis();
  redis = createRedis(testRedis.url, 'commands');
});

afterAll(async () => {
  redis?.disconnect();
  await testRedis?.cleanup();
});

describe('connection slots', () => {
  it('keeps refusing the connection past the limit while the held ones are renewed', async () => {
    const slots = createConnectionSlots(redis, `${testRedis.prefix}:a`, { ttlMs: TTL_MS });
    expect(await slots.take(1, 'c1', 1)).toBe(true);
    expect(await slots.take(1, 'c2', 1)).toBe(false);
    // Several TTLs pass with heartbeats only, no new admission.
    for (let i = 0; i < 8; i++) {
      await sleep(TTL_MS / 3);
      expect(await slots.renew(1, 'c1', 1)).toBe(true);
    }
    expect(await slots.take(1, 'c3', 1)).toBe(false);
  });

  it('frees the slots of an instance that stopped renewing within one TTL', async () => {
    const crashed = createConnectionSlots(redis, `${testRedis.prefix}:b`, { ttlMs: TTL_MS });
    expect(await crashed.take(2, 'dead', 1)).toBe(true);
    expect(await crashed.take(2, 'new', 1)).toBe(false);
    await sleep(TTL_MS + 100);
    expect(await crashed.take(2, 'new', 1)).toBe(true);
  });

  it('counts slots across instances and frees a released one at once', async () => {
    const prefix = `${testRedis.prefix}:c`;
    const a = createConnectionSlots(redis, prefix, { ttlMs: 60_000 });
    const b = createConnectionSlots(redis, prefix, { ttlMs: 60_000 });
    expect(await a.take(3, 'a1', 2)).toBe(true);
    expect(await b.take(3, 'b1', 2)).toBe(true);
    expect(await b.take(3, 'b2', 2)).toBe(false);
    await a.release(3, 'a1');
    expect(await b.take(3, 'b2', 2)).toBe(true);
  });

  it('re-takes a renewed slot that vanished (Redis restart) only while under the limit', async () => {
    const prefix = `${testRedis.prefix}:d`;
    const slots = createConnectionSlots(redis, prefix, { ttlMs: 60_000 });
    expect(await slots.take(4, 'x', 1)).toBe(true);
    await redis.del(`${prefix}:ws:slots:4`);
    expect(await slots.renew(4, 'x', 1)).toBe(true);
    expect(await slots.take(4, 'y', 1)).toBe(false);
    await redis.del(`${prefix}:ws:slots:4`);
    expect(await slots.take(4, 'y', 1)).toBe(true);
    expect(await slots.renew(4, 'x', 1)).toBe(false);
  });
});
