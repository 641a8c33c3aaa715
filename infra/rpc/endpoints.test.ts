import { describe, expect, it } from 'vitest';
import { createEndpointPool } from './endpoints.ts';

describe('createEndpointPool', () => {
  it('prefers the primary URL and fails over while it cools down', async () => {
    let t = 1_000;
    const pool = createEndpointPool(['http://a', 'http://b'], {
      now: () => t,
      baseCooldownMs: 100,
    });
    const first = await pool.acquire();
    expect(first.url).toBe('http://a');
    first.release('failed');
    expect((await pool.acquire()).url).toBe('http://b');
    t += 100;
    expect((await pool.acquire()).url).toBe('http://a');
  });

  it('doubles the cooldown with consecutive failures, resets on success', async () => {
    let t = 0;
    const pool = createEndpointPool(['http://a'], {
      now: () => t,
      baseCooldownMs: 100,
      maxCooldownMs: 350,
    });
    for (const expected of [100, 200, 350]) {
      const lease = await pool.acquire();
      lease.release('failed');
      expect(pool.stats()[0]!.coolingForMs).toBe(expected);
      t += expected;
    }
    (await pool.acquire()).release('ok');
    expect(pool.stats()[0]).toMatchObject({ strikes: 0, coolingForMs: 0 });
  });

  it('halves the concurrency limit on 429 and grows it back additively', async () => {
    let t = 0;
    const pool = createEndpointPool(['http://a'], {
      now: () => t,
      maxConcurrency: 16,
      baseCooldownMs: 1,
    });
    (await pool.acquire()).release('rate-limited');
    expect(pool.stats()[0]!.limit).toBe(8);
    t += 10;
    (await pool.acquire()).release('rate-limited');
    expect(pool.stats()[0]!.limit).toBe(4);
    t += 10;
    for (let i = 0; i < 40; i++) (await pool.acquire()).release('ok');
    expect(pool.stats()[0]!.limit).toBeGreaterThan(4);
    expect(pool.stats()[0]!.limit).toBeLessThanOrEqual(16);
  });

  it('never exceeds the limit of in-flight requests; a waiter proceeds when one is released', async () => {
    const pool = createEndpointPool(['http://a'], { maxConcurrency: 2 });
    const a = await pool.acquire();
    await pool.acquire();
    let third = false;
    const pending = pool.acquire().then((l) => {
      third = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(third).toBe(false);
    expect(pool.stats()[0]!.inFlight).toBe(2);
    a.release('ok');
    await pending;
    expect(third).toBe(true);
  });
});

describe('createEndpointPool waiters', () => {
  it('hand a released slot to the oldest waiter at once, not at its next poll', async () => {
    const pool = createEndpointPool(['http://a'], { maxConcurrency: 1 });
    const first = await pool.acquire();
    const order: string[] = [];
    const leases = ['b', 'c', 'd'].map((name) =>
      pool.acquire().then((lease) => {
        order.push(name);
        return lease;
      }),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    first.release('ok');
    // Microtasks only: no timer may run before the waiter has the slot.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(order).toEqual(['b']);
    (await leases[0]!).release('ok');
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(order).toEqual(['b', 'c']);
    (await leases[1]!).release('ok');
    (await leases[2]!).release('ok');
    expect(order).toEqual(['b', 'c', 'd']);
    expect(pool.stats()[0]!.inFlight).toBe(0);
  });
});

describe('createEndpointPool priorities', () => {
  it('serve a waiting high request before normal ones that came earlier, and normal newcomers yield to it', async () => {
    const pool = createEndpointPool(['http://a'], { maxConcurrency: 1 });
    const held = await pool.acquire('normal');
    const order: string[] = [];
    const take = (name: string, priority: 'high' | 'normal') =>
      pool.acquire(priority).then((lease) => {
        order.push(name);
        return lease;
      });
    const early = take('normal 1', 'normal');
    const urgent = take('high', 'high');
    held.release('ok');
    // A normal request arriving now finds the slot given to the high one.
    const late = take('normal 2', 'normal');
    (await urgent).release('ok');
    (await early).release('ok');
    (await late).release('ok');
    expect(order).toEqual(['high', 'normal 1', 'normal 2']);
    expect(pool.stats()[0]!.inFlight).toBe(0);
  });
});

describe('createEndpointPool while detection is busy', () => {
  it('gives normal requests a quarter of the slots while a high one is in flight, all of them after', async () => {
    const pool = createEndpointPool(['http://a'], { maxConcurrency: 8 });
    const granted: string[] = [];
    const take = (name: string, priority: 'high' | 'normal') =>
      pool.acquire(priority).then((lease) => {
        granted.push(name);
        return lease;
      });
    const detection = await take('high', 'high');
    const normals = ['n1', 'n2', 'n3', 'n4'].map((n) => take(n, 'normal'));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    // 2 of 8 slots while detecting, though 7 are free.
    expect(granted).toEqual(['high', 'n1', 'n2']);
    expect(pool.stats()[0]!.inFlight).toBe(3);
    // Another high request still finds room beyond the normal ones' share.
    (await take('high 2', 'high')).release('ok');
    expect(granted).toEqual(['high', 'n1', 'n2', 'high 2']);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(granted).toHaveLength(4);
    detection.release('ok');
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(granted).toEqual(['high', 'n1', 'n2', 'high 2', 'n3', 'n4']);
    for (const lease of await Promise.all(normals)) lease.release('ok');
    expect(pool.stats()[0]!.inFlight).toBe(0);
  });
});

describe('createEndpointPool when every endpoint is cooling down', () => {
  it('still uses a failing endpoint as a last resort, but honours a rate limit', async () => {
    let t = 0;
    const pool = createEndpointPool(['http://a'], { now: () => t, baseCooldownMs: 10_000 });
    (await pool.acquire()).release('failed');
    const lease = await Promise.race([
      pool.acquire(),
      new Promise<null>((r) => setTimeout(() => r(null), 50)),
    ]);
    expect(lease?.url).toBe('http://a');
    lease!.release('rate-limited');
    const waited = await Promise.race([
      pool.acquire().then(() => 'acquired'),
      new Promise<string>((r) => setTimeout(() => r('waiting'), 50)),
    ]);
    expect(waited).toBe('waiting');
    t += 20_000;
    await new Promise((r) => setTimeout(r, 30));
  });
});

describe('createEndpointPool while another process detects', () => {
  it('keeps normal requests to their share until the others are idle, then hands them the room', async () => {
    let othersDetecting = true;
    const pool = createEndpointPool(['http://a'], {
      maxConcurrency: 8,
      othersDetecting: () => othersDetecting,
    });
    const granted: string[] = [];
    const normals = ['n1', 'n2', 'n3'].map((name) =>
      pool.acquire('normal').then((lease) => {
        granted.push(name);
        return lease;
      }),
    );
    for (let i = 0; i < 5; i++) await Promise.resolve();
    // No request of this pool's own is 'high', yet 2 of 8 slots: detection runs elsewhere.
    expect(granted).toEqual(['n1', 'n2']);
    othersDetecting = false;
    pool.recheck();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(granted).toEqual(['n1', 'n2', 'n3']);
    for (const lease of await Promise.all(normals)) lease.release('ok');
    expect(pool.stats()[0]!.inFlight).toBe(0);
  });
});
