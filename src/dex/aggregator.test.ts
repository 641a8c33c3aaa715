import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DexScreenerMock,
  mockPair,
  startDexScreenerMock,
} from '../../test/support/protocol/dexscreener.ts';
import { createAggregatorClient, summarizePairs } from './aggregator.ts';

const TOKEN = '0x1000000000000000000000000000000000000001';
const OTHER = '0x2000000000000000000000000000000000000002';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

let mock: DexScreenerMock;

/** A clock the test moves by hand; sleeping advances it. */
function fakeClock(start = 1_000_000) {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}

beforeAll(async () => {
  mock = await startDexScreenerMock();
  mock.setPairs(TOKEN, [
    mockPair(TOKEN, WETH, {
      priceUsd: 0.5,
      volume24h: 1_000,
      liquidityUsd: 20_000,
      pairAddress: '0x01',
    }),
    mockPair(TOKEN, WETH, {
      priceUsd: 0.49,
      volume24h: 250,
      liquidityUsd: 5_000,
      pairAddress: '0x02',
    }),
    // A pair where the token is the quote side is not about this token's price.
    mockPair(OTHER, TOKEN, { priceUsd: 99, volume24h: 7, liquidityUsd: 1e9 }),
  ]);
});

afterAll(async () => {
  await mock?.close();
});

describe('summarizePairs', () => {
  it('takes the price of the deepest pair where the token is the base, and sums volume and liquidity', () => {
    const body = [
      mockPair(TOKEN, WETH, { priceUsd: 2, volume24h: 10, liquidityUsd: 100 }),
      mockPair(TOKEN, WETH, { priceUsd: 3, volume24h: 5, liquidityUsd: 1_000 }),
    ];
    expect(summarizePairs(body, TOKEN)).toEqual({
      priceUsd: 3,
      volume24hUsd: 15,
      liquidityUsd: 1_100,
      pairs: 2,
    });
    expect(summarizePairs({ pairs: null }, TOKEN)).toBeNull();
    expect(summarizePairs([], TOKEN)).toEqual({
      priceUsd: null,
      volume24hUsd: null,
      liquidityUsd: null,
      pairs: 0,
    });
  });
});

describe('aggregator client against a DexScreener-compatible server', () => {
  it('answers from the API once, then from its cache until the TTL passes', async () => {
    const clock = fakeClock();
    const client = createAggregatorClient({
      baseUrl: `${mock.url}/`,
      now: clock.now,
      sleep: clock.sleep,
    });
    const before = mock.requests.length;
    expect(await client.token(1, TOKEN.toUpperCase().replace('0X', '0x'))).toEqual({
      priceUsd: 0.5,
      volume24hUsd: 1_250,
      liquidityUsd: 25_000,
      pairs: 2,
    });
    expect(mock.requests.slice(before)).toEqual([`/tokens/v1/ethereum/${TOKEN}`]);
    await client.token(1, TOKEN);
    expect(mock.requests.length).toBe(before + 1);
    expect(client.stats().cacheHits).toBe(1);
    clock.advance(61_000);
    await client.token(1, TOKEN);
    expect(mock.requests.length).toBe(before + 2);
  });

  it('backs off on 429 for Retry-After and falls back (null, or a stale answer)', async () => {
    const clock = fakeClock();
    const client = createAggregatorClient({
      baseUrl: mock.url,
      now: clock.now,
      sleep: clock.sleep,
    });
    mock.failNext(1, { status: 429, retryAfterSeconds: 30 });
    const before = mock.requests.length;
    expect(await client.token(56, TOKEN)).toBeNull();
    // During the cooldown nothing is sent at all.
    expect(await client.token(56, TOKEN)).toBeNull();
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests[before]).toBe(`/tokens/v1/bsc/${TOKEN}`);
    clock.advance(31_000);
    expect((await client.token(56, TOKEN))?.priceUsd).toBe(0.5);
    expect(client.stats().rateLimited).toBe(2);

    // After the cache TTL, a failing API still yields the last answer (stale within 10 min).
    clock.advance(61_000);
    mock.failNext(1, { status: 503 });
    expect((await client.token(56, TOKEN))?.priceUsd).toBe(0.5);
    clock.advance(10 * 60_000);
    mock.failNext(1, 'garbage');
    expect(await client.token(56, TOKEN)).toBeNull();
  });

  it('answers null on a 5xx with nothing cached, and on an unreachable server', async () => {
    const clock = fakeClock();
    const client = createAggregatorClient({
      baseUrl: mock.url,
      now: clock.now,
      sleep: clock.sleep,
    });
    mock.failNext(1, { status: 502 });
    expect(await client.token(8453, TOKEN)).toBeNull();
    expect(client.stats().failures).toBe(1);
    const dead = createAggregatorClient({
      baseUrl: 'http://127.0.0.1:1',
      now: clock.now,
      sleep: clock.sleep,
    });
    expect(await dead.token(1, TOKEN)).toBeNull();
  });

  it('keeps under its requests-per-minute budget: waits for a slot briefly, else gives up', async () => {
    const clock = fakeClock();
    // 120/min: one slot every 500 ms once the initial burst is spent.
    const client = createAggregatorClient({
      baseUrl: mock.url,
      requestsPerMinute: 120,
      now: clock.now,
      sleep: clock.sleep,
    });
    const addresses = Array.from(
      { length: 121 },
      (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`,
    );
    for (const a of addresses.slice(0, 120)) await client.token(137, a);
    expect(clock.slept).toEqual([]);
    await client.token(137, addresses[120]!);
    expect(clock.slept).toEqual([500]);
    expect(client.stats().requests).toBe(121);

    // 1/min: the second request would wait a minute, longer than a refresh may: it gives up at once.
    const slow = createAggregatorClient({
      baseUrl: mock.url,
      requestsPerMinute: 1,
      now: clock.now,
      sleep: clock.sleep,
    });
    await slow.token(137, addresses[0]!);
    expect(await slow.token(137, addresses[1]!)).toBeNull();
    expect(slow.stats()).toMatchObject({ requests: 1, rateLimited: 1 });
  });
});
