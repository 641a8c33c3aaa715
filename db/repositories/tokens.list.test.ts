import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/services.ts';
import { createDb, type DbHandle } from '../client.ts';
import { createTokenRepository, EXACT_TOTAL_LIMIT } from './tokens.ts';

/**
 * The list's filters of docs/scale.md on real Postgres: has_liquidity and is_actively_traded,
 * `q` through pg_trgm and the address prefix, the default order, and totals: exact up to
 * EXACT_TOTAL_LIMIT, the planner's estimate (never below the limit) above it.
 */

let database: TestDatabase;
let handle: DbHandle;
const N = EXACT_TOTAL_LIMIT + 500;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  // Token g: liquid when g % 10 = 0, traded when g % 100 = 0, named "Pepe g" when g % 1000 = 0.
  await handle.sql`
    insert into tokens (chain_id, address, detection_source, name, symbol, current_liquidity_usd, is_actively_traded, detected_at)
    select case when g % 2 = 0 then 1 else 56 end, '0x' || lpad(to_hex(g), 40, '0'), 'receipt',
           case when g % 1000 = 0 then 'Pepe ' || g else 'Token ' || g end, 'T' || g,
           case when g % 10 = 0 then 1000 else null end, g % 100 = 0,
           timestamptz '2026-01-01' + g * interval '1 second'
    from generate_series(1, ${N}) g`;
  await handle.sql`analyze tokens`;
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('token list at scale', () => {
  it('filters by liquidity and trading, newest first, with exact totals', async () => {
    const tokens = createTokenRepository(handle.db);
    const liquid = await tokens.listItems({ page: 1, limit: 3, hasLiquidity: true });
    expect(liquid.total).toBe(Math.floor(N / 10));
    expect(liquid.items.map((t) => t.address)).toEqual(
      [N - (N % 10), N - (N % 10) - 10, N - (N % 10) - 20].map(
        (g) => `0x${g.toString(16).padStart(40, '0')}`,
      ),
    );
    // Nine tenths match: above the exact limit, so the planner's estimate, never below the limit.
    const dry = await tokens.listItems({ page: 1, limit: 1, hasLiquidity: false });
    expect(dry.total).toBeGreaterThan(EXACT_TOTAL_LIMIT);
    expect(dry.total).toBeLessThanOrEqual(N);
    const traded = await tokens.listItems({
      page: 2,
      limit: 10,
      isActivelyTraded: true,
      chainId: 1,
    });
    expect(traded.total).toBe(Math.floor(N / 100));
    // Every traded token (g % 100 = 0) is even, so on chain 1: page 2 holds the rest.
    expect(traded.items).toHaveLength(Math.floor(N / 100) - 10);
    expect(traded.items.every((t) => t.isActivelyTraded && t.chainId === 1)).toBe(true);
  });

  it('finds names by substring and addresses by prefix', async () => {
    const tokens = createTokenRepository(handle.db);
    const pepe = await tokens.listItems({ page: 1, limit: 100, q: 'epe' });
    expect(pepe.total).toBe(Math.floor(N / 1000));
    expect(pepe.items.every((t) => t.name?.startsWith('Pepe '))).toBe(true);
    const prefix = `0x${'0'.repeat(37)}5`;
    const byAddress = await tokens.listItems({ page: 1, limit: 100, q: prefix });
    expect(byAddress.items.map((t) => t.address).every((a) => a.startsWith(prefix))).toBe(true);
    // 0x…5xx: tokens 0x500 (1280) up to N match the prefix; the page holds 100.
    expect(byAddress.total).toBe(N - 0x500 + 1);
    expect(byAddress.items).toHaveLength(100);
  });

  it('a cursor walks the same rows as the offset pages, microsecond ties included, with the whole total', async () => {
    const tokens = createTokenRepository(handle.db);
    // Three tokens detected in the same millisecond, microseconds apart: a Date cannot tell them apart.
    await handle.sql`
      update tokens set detected_at = timestamptz '2025-06-01 00:00:00.000001' + (g % 3) * interval '1 microsecond'
      from generate_series(10, 30, 10) g where address = '0x' || lpad(to_hex(g), 40, '0')`;
    // Pages of 74: the first page boundary after 148 rows falls inside the three-way tie.
    const filter = { hasLiquidity: true, limit: 74 };
    const byOffset: string[] = [];
    for (let page = 1; ; page++) {
      const { items } = await tokens.listItems({ ...filter, page });
      byOffset.push(...items.map((t) => t.address));
      if (items.length < filter.limit) break;
    }
    const byCursor: string[] = [];
    let after: { detectedAt: string; address: string } | undefined;
    for (;;) {
      const { items, total } = await tokens.listItems({ ...filter, page: 1, after });
      expect(total).toBe(Math.floor(N / 10));
      byCursor.push(...items.map((t) => t.address));
      const last = items.at(-1);
      if (!last || items.length < filter.limit) break;
      after = { detectedAt: last.cursorAt, address: last.address };
    }
    expect(byCursor).toEqual(byOffset);
    expect(new Set(byCursor).size).toBe(Math.floor(N / 10));
  });

  it('counts exactly up to the limit and estimates above it, never below the limit', async () => {
    const tokens = createTokenRepository(handle.db);
    const all = await tokens.listItems({ page: 1, limit: 10 });
    expect(all.total).toBeGreaterThan(EXACT_TOTAL_LIMIT);
    // The planner's estimate after ANALYZE is close to the truth.
    expect(Math.abs(all.total - N) / N).toBeLessThan(0.1);
    const under = await tokens.listItems({ page: 1, limit: 10, chainId: 56, hasLiquidity: false });
    // Chain 56 holds the odd tokens, none of them liquid.
    expect(under.total).toBe(N / 2);
  });

  it('knows whether rows follow a page from the rows, not from an estimated total', async () => {
    const tokens = createTokenRepository(handle.db);
    const beforeLast = await tokens.listItems({ page: 1, limit: 10, offset: N - 15 });
    expect([beforeLast.items.length, beforeLast.hasMore]).toEqual([10, true]);
    const last = await tokens.listItems({ page: 1, limit: 10, offset: N - 5 });
    expect([last.items.length, last.hasMore]).toEqual([5, false]);
    // Whatever the planner estimated, the total is never below the rows already seen.
    expect(last.total).toBeGreaterThanOrEqual(N);
  });
});
