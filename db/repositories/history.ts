import { sql } from 'drizzle-orm';
import {
  daysToRollUp,
  expiryCutoff,
  HISTORY_TABLES,
  type HistoryTable,
  isExpired,
  type PartitionSpec,
  parsePartition,
  partitionFor,
  startOfDay,
  wantedPartitions,
} from '../../src/history/retention.ts';
import type { Database } from '../client.ts';

/**
 * Applies the history retention plan (src/history/retention.ts) to Postgres: creates the dated
 * partitions, rolls finished days up into the 5 min and 1 h tables, and drops what has expired.
 * Every step is idempotent; one transaction-scoped advisory lock keeps two schedulers apart.
 */

const MAINTENANCE_LOCK_ID = 7_264_014;
const WATERMARK = 'rollup';
const ROLLUPS: { table: HistoryTable; bin: string }[] = [
  { table: 'token_history_5m', bin: '5 minutes' },
  { table: 'token_history_1h', bin: '1 hour' },
];
const COLUMNS =
  'chain_id, address, bucket_at, risk_score, price_usd, liquidity_usd, volume_24h_usd, market_cap_usd';

const ident = (name: string) => sql.raw(`"${name.replace(/"/g, '')}"`);
const iso = (t: Date) => t.toISOString();

export interface MaintenanceResult {
  created: string[];
  rolledUpDays: string[];
  dropped: string[];
  /** Rows of expired data deleted from DEFAULT partitions (only data from before partitioning). */
  deletedFromDefault: number;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

async function existingPartitions(tx: Tx | Database, table: HistoryTable): Promise<string[]> {
  const rows = await tx.execute<{ name: string }>(sql`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass`);
  return [...rows].map((r) => r.name);
}

/**
 * A new dated partition. Rows of its range that landed in DEFAULT (written before it existed)
 * move into it first: Postgres refuses to attach a range that DEFAULT still holds rows of.
 */
async function createPartition(tx: Tx, spec: PartitionSpec): Promise<void> {
  const fallback = ident(`${spec.table}_default`);
  const [stray] = await tx.execute<{ n: number }>(sql`
    select count(*)::int as n from ${fallback} where bucket_at >= ${iso(spec.from)}::timestamptz and bucket_at < ${iso(spec.to)}::timestamptz`);
  const bounds = sql.raw(`from ('${iso(spec.from)}') to ('${iso(spec.to)}')`);
  if (!stray || stray.n === 0) {
    await tx.execute(
      sql`create table if not exists ${ident(spec.name)} partition of ${ident(spec.table)} for values ${bounds}`,
    );
    return;
  }
  await tx.execute(
    sql`create table ${ident(spec.name)} (like ${ident(spec.table)} including defaults including constraints)`,
  );
  await tx.execute(sql`
    with moved as (delete from ${fallback} where bucket_at >= ${iso(spec.from)}::timestamptz and bucket_at < ${iso(spec.to)}::timestamptz returning *)
    insert into ${ident(spec.name)} select ${sql.raw(COLUMNS)} from moved`);
  await tx.execute(
    sql`alter table ${ident(spec.table)} attach partition ${ident(spec.name)} for values ${bounds}`,
  );
}

/** The last snapshot of each bin of one day, upserted: a re-run of a day writes the same rows. */
async function rollUpDay(tx: Tx, day: Date): Promise<void> {
  const next = new Date(day.getTime() + 86_400_000);
  for (const { table, bin } of ROLLUPS) {
    // A constant of this module, inlined: DISTINCT ON and ORDER BY must be the same expression.
    const binned = sql.raw(`date_bin('${bin}'::interval, bucket_at, 'epoch'::timestamptz)`);
    const spec = partitionFor(table, day);
    if (!(await existingPartitions(tx, table)).includes(spec.name)) await createPartition(tx, spec);
    await tx.execute(sql`
      insert into ${ident(table)} (${sql.raw(COLUMNS)})
      select distinct on (chain_id, address, ${binned})
        chain_id, address, ${binned},
        risk_score, price_usd, liquidity_usd, volume_24h_usd, market_cap_usd
      from token_history
      where bucket_at >= ${iso(day)}::timestamptz and bucket_at < ${iso(next)}::timestamptz
      order by chain_id, address, ${binned}, bucket_at desc
      on conflict (chain_id, address, bucket_at) do update set
        risk_score = excluded.risk_score, price_usd = excluded.price_usd, liquidity_usd = excluded.liquidity_usd,
        volume_24h_usd = excluded.volume_24h_usd, market_cap_usd = excluded.market_cap_usd`);
  }
}

export function createHistoryRepository(db: Database) {
  async function watermark(tx: Tx | Database): Promise<Date | undefined> {
    const [row] = await tx.execute<{ at: string | Date }>(
      sql`select rolled_up_until as at from history_maintenance where name = ${WATERMARK}`,
    );
    return row ? new Date(row.at) : undefined;
  }

  /** Where rolling up starts the first time: the oldest raw snapshot's day (or today). */
  async function initialWatermark(tx: Tx, now: Date): Promise<Date> {
    const [row] = await tx.execute<{ at: string | Date | null }>(
      sql`select min(bucket_at) as at from token_history`,
    );
    return startOfDay(row?.at ? new Date(row.at) : now);
  }

  return {
    watermark: () => watermark(db),

    /** Creates one dated partition now (a bulk load of old rows wants its partitions first). */
    async ensurePartition(spec: PartitionSpec): Promise<void> {
      await db.transaction(async (tx) => {
        if (!(await existingPartitions(tx, spec.table)).includes(spec.name))
          await createPartition(tx, spec);
      });
    },

    /** One maintenance pass at `now`; returns undefined when another scheduler holds the lock. */
    async maintain(now: Date): Promise<MaintenanceResult | undefined> {
      const result: MaintenanceResult = {
        created: [],
        rolledUpDays: [],
        dropped: [],
        deletedFromDefault: 0,
      };
      const locked = await db.transaction(async (tx) => {
        const [lock] = await tx.execute<{ ok: boolean }>(
          sql`select pg_try_advisory_xact_lock(${MAINTENANCE_LOCK_ID}) as ok`,
        );
        if (!lock?.ok) return false;
        for (const table of HISTORY_TABLES) {
          const existing = new Set(await existingPartitions(tx, table));
          for (const spec of wantedPartitions(now).filter(
            (p) => p.table === table && !existing.has(p.name),
          )) {
            await createPartition(tx, spec);
            result.created.push(spec.name);
          }
        }
        return true;
      });
      if (!locked) return undefined;
      // One transaction per day: a long backlog commits as it goes and resumes where it stopped.
      let until =
        (await watermark(db)) ?? (await db.transaction((tx) => initialWatermark(tx, now)));
      for (const day of daysToRollUp(until, now)) {
        await db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(${MAINTENANCE_LOCK_ID})`);
          await rollUpDay(tx, day);
          until = new Date(day.getTime() + 86_400_000);
          await tx.execute(sql`
            insert into history_maintenance (name, rolled_up_until) values (${WATERMARK}, ${iso(until)}::timestamptz)
            on conflict (name) do update set rolled_up_until = excluded.rolled_up_until, updated_at = now()`);
        });
        result.rolledUpDays.push(iso(day).slice(0, 10));
      }
      await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${MAINTENANCE_LOCK_ID})`);
        for (const table of HISTORY_TABLES) {
          for (const name of await existingPartitions(tx, table)) {
            const spec = parsePartition(table, name);
            if (!spec || !isExpired(spec, now, until)) continue;
            // Expiry is a partition drop: no DELETE, no dead tuples, no vacuum debt.
            await tx.execute(sql`drop table ${ident(name)}`);
            result.dropped.push(name);
          }
          const cutoff = expiredBefore(table, now, until);
          const deleted = await tx.execute(
            sql`delete from ${ident(`${table}_default`)} where bucket_at < ${iso(cutoff)}::timestamptz`,
          );
          result.deletedFromDefault += (deleted as unknown as { count?: number }).count ?? 0;
        }
      });
      return result;
    },

    /** Bytes of each history table with its partitions and indexes, and its row estimate. */
    async sizes(): Promise<Record<HistoryTable, { bytes: number; partitions: number }>> {
      const out = {} as Record<HistoryTable, { bytes: number; partitions: number }>;
      for (const table of HISTORY_TABLES) {
        const [row] = await db.execute<{ bytes: string; partitions: number }>(sql`
          select coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::text as bytes, count(*)::int as partitions
          from pg_inherits i where i.inhparent = ${table}::regclass`);
        out[table] = { bytes: Number(row?.bytes ?? 0), partitions: row?.partitions ?? 0 };
      }
      return out;
    },
  };
}

/** Raw rows in DEFAULT are kept until rolled up as well as 24 h old; rollups by age alone. */
function expiredBefore(table: HistoryTable, now: Date, rolledUpUntil: Date): Date {
  const byAge = expiryCutoff(table, now);
  return table === 'token_history'
    ? new Date(Math.min(byAge.getTime(), rolledUpUntil.getTime()))
    : byAge;
}

export type HistoryRepository = ReturnType<typeof createHistoryRepository>;
