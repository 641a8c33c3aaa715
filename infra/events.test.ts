import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenRemovedData } from '../src/events/types.ts';
import { createTestRedis, type TestRedis } from '../test/support/services.ts';
import { createEventPublisher } from './events.ts';
import { createRedis } from './redis.ts';

let testRedis: TestRedis;
let redis: Redis;

beforeAll(async () => {
  testRedis = await createTestRedis();
  redis = createRedis(testRedis.url, 'commands');
});

afterAll(async () => {
  redis?.disconnect();
  await testRedis?.cleanup();
});

describe('event publisher', () => {
  const data: TokenRemovedData = { contract_address: '0x01', chain_id: 1, reason: 'reorg' };

  it('appends an event once per once-key, and every time without one', async () => {
    const stream = `${testRedis.prefix}:events-once`;
    const events = createEventPublisher(redis, stream);
    const first = await events.publish({ type: 'token.removed', data }, { onceKey: 'k1' });
    const again = await events.publish({ type: 'token.removed', data }, { onceKey: 'k1' });
    const other = await events.publish({ type: 'token.removed', data }, { onceKey: 'k2' });
    await events.publish({ type: 'token.removed', data });
    await events.publish({ type: 'token.removed', data });
    expect(first).toMatch(/^\d+-\d+$/);
    expect(again).toBeNull();
    expect(other).toMatch(/^\d+-\d+$/);
    expect(await redis.xlen(stream)).toBe(4);
    const [entry] = (await redis.xrange(stream, first!, first!)) as [string, string[]][];
    const fields = entry?.[1];
    expect(fields).toEqual([
      'type',
      'token.removed',
      'ts',
      expect.any(String),
      'data',
      JSON.stringify(data),
    ]);
  });
});
