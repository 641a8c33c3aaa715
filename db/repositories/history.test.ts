import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEmbeddedTestDatabase,
  createTestDatabase,
  type TestDatabase,
} from '../../test/support/services.ts';
import { createDb, type DbHandle } from '../client.ts';
import { createHistoryRepository } from './history.ts';
import { createTokenRepository } from './tokens.ts';

/**
 * History retention on real Postgres and on the embedded PGlite (the default without a
 * DATABASE_URL): partitions are created ahead, rows written before their partition existed move
 * out of DEFAULT, finished days are rolled up, expired partitions are dropped, and the PRO
 * history read sees each period at the finest resolution still kept.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TOKEN = { chainId: 1, address: `0x${'ab'.repeat(20)}` };
/** More than the test writes (2 h + 1 h + 30 min of minutes, fewer once rolled up). */
const READ_ALL = 1_000;

async function partitions(handle: DbHandle, table: string): Promise<string[]> {
  const rows = await handle.sql<{ name: string }[]>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${table}::regclass order by 1`;
  return rows.map((r) => r.name);
}

/** One snapshot a minute over [from, to), price = minutes since epoch (tells rows apart). */
async function writeSnapshots(handle: DbHandle, from: number, to: number): Promise<number> {
  let n = 0;
  for (let t = from; t < to; t += MINUTE) {
    await handle.sql`insert into token_history (chain_id, address, bucket_at, price_usd)
      values (${TOKEN.chainId}, ${TOKEN.address}, ${new Date(t).toISOString()}::timestamptz, ${t / MINUTE})`;
    n++;
  }
  return n;
}

for (const flavour of ['postgres', 'pglite'] as const) {
  describe(`history retention on ${flavour}`, () => {
    let database: TestDatabase;
    let handle: DbHandle;

    beforeAll(async () => {
      database =
        flavour === 'pglite' ? await createEmbeddedTestDatabase() : await createTestDatabase();
      handle = createDb(database.url, { max: 1 });
    }, 120_000);
    afterAll(async () => {
      await handle?.close();
      await database?.drop();
    });

    it('partitions, rolls up, drops expired days and reads across the tiers', async () => {
      const history = createHistoryRepository(handle.db);
      const tokens = createTokenRepository(handle.db);
      const now = Date.now();
      const today = Math.floor(now / DAY) * DAY;
      const dayName = (t: number) =>
        `token_history_p${new Date(t).toISOString().slice(0, 10).replace(/-/g, '')}`;
      // Written before any maintenance: three days ago to now, all into DEFAULT.
      const oldest = today - 3 * DAY;
      await writeSnapshots(handle, oldest, oldest + 2 * HOUR);
      await writeSnapshots(handle, today - DAY, today - DAY + HOUR);
      await writeSnapshots(handle, now - 30 * MINUTE, now);

      const first = await history.maintain(new Date(now));
      expect(first).toBeDefined();
      expect(first!.created).toContain(dayName(today));
      expect(first!.rolledUpDays).toEqual(
        [0, 1, 2].map((d) => new Date(oldest + d * DAY).toISOString().slice(0, 10)),
      );
      // The oldest raw day (2 h of snapshots) became 24 rollups of 5 min and 2 of 1 h.
      const oldestEnd = new Date(oldest + DAY).toISOString();
      const [fives] = await handle.sql<
        { n: number }[]
      >`select count(*)::int as n from token_history_5m where bucket_at < ${oldestEnd}::timestamptz`;
      const [hours] = await handle.sql<
        { n: number }[]
      >`select count(*)::int as n from token_history_1h where bucket_at < ${oldestEnd}::timestamptz`;
      expect(fives!.n).toBe(24);
      expect(hours!.n).toBe(2);
      // Last snapshot of the bin: the 5 min bucket at `oldest` holds minute 4's price.
      const [bin] = await handle.sql<
        { p: string }[]
      >`select price_usd::text as p from token_history_5m where bucket_at = ${new Date(oldest).toISOString()}::timestamptz`;
      expect(Number(bin!.p)).toBe(oldest / MINUTE + 4);
      // Raw rows older than 24 h and rolled up are gone (deleted from DEFAULT: pre-partitioning data).
      const [raw] = await handle.sql<
        { oldest: Date }[]
      >`select min(bucket_at) as oldest from token_history`;
      expect(new Date(raw!.oldest).getTime()).toBeGreaterThanOrEqual(today - DAY);
      expect(await partitions(handle, 'token_history')).toContain('token_history_default');
      // The rows of today moved out of DEFAULT into today's partition.
      const [stray] = await handle.sql<
        { n: number }[]
      >`select count(*)::int as n from token_history_default`;
      expect(stray!.n).toBe(0);

      // A second pass changes nothing.
      const second = await history.maintain(new Date(now));
      expect(second).toEqual({ created: [], rolledUpDays: [], dropped: [], deletedFromDefault: 0 });

      // The PRO read: newest first, raw snapshots of the last 24 h, then 5 min rollups, no
      // period twice; the oldest day is there only as its rollups (its raw rows are gone).
      // A limit above every row written: how many raw rows the last 24 h hold depends on the time
      // of day (just after midnight, yesterday's hour is still raw), and must not crowd out the
      // oldest day's rollups.
      const read = (await tokens.histories([TOKEN], READ_ALL)).get(
        `${TOKEN.chainId}:${TOKEN.address}`,
      )!;
      const times = read.map((r) => r.bucketAt.getTime());
      expect(read.length).toBeGreaterThanOrEqual(30 + 24);
      expect(read.length).toBeLessThanOrEqual(30 + 60 + 24);
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(new Set(times).size).toBe(times.length);
      expect(times[0]).toBeGreaterThan(now - 31 * MINUTE);
      const oldDay = times.filter((t) => t < oldest + DAY);
      expect(oldDay).toHaveLength(24);
      expect(oldDay.every((t) => t % (5 * MINUTE) === 0)).toBe(true);
      const limited = (await tokens.histories([TOKEN], 10)).get(
        `${TOKEN.chainId}:${TOKEN.address}`,
      )!;
      expect(limited.map((r) => r.bucketAt.getTime())).toEqual(times.slice(0, 10));

      // Two days later: yesterday's partition is expired and rolled up, so it is dropped.
      const later = await history.maintain(new Date(now + 2 * DAY));
      expect(later!.dropped).toContain(dayName(today - DAY));
      expect(await partitions(handle, 'token_history')).not.toContain(dayName(today - DAY));
    }, 120_000);
  });
}
