/**
 * History retention plan (docs/scale.md): which dated partitions of the three history tables
 * should exist, which have expired, and which days are due to be rolled up. Pure: the
 * maintenance job (workers/history-maintenance.ts) applies the plan to Postgres.
 *
 * Tiers: token_history holds the 60 s snapshots in daily partitions for RAW_RETENTION_MS;
 * token_history_5m holds the last snapshot of each 5 minutes in daily partitions for 7 days;
 * token_history_1h holds the last snapshot of each hour in monthly partitions for
 * HOURLY_RETENTION_DAYS. A raw day is dropped only once it has been rolled up.
 */

export const DAY_MS = 86_400_000;
export const RAW_RETENTION_MS = DAY_MS;
export const FIVE_MINUTE_RETENTION_MS = 7 * DAY_MS;
export const HOURLY_RETENTION_DAYS = 365;
/** Partitions are created this many days ahead, so a late maintenance run never leaves a gap. */
export const PRECREATE_DAYS = 3;

export type HistoryTable = 'token_history' | 'token_history_5m' | 'token_history_1h';
export const HISTORY_TABLES: readonly HistoryTable[] = [
  'token_history',
  'token_history_5m',
  'token_history_1h',
];

export interface PartitionSpec {
  table: HistoryTable;
  /** `<table>_p<yyyymmdd>` (daily) or `<table>_p<yyyymm>` (monthly). */
  name: string;
  from: Date;
  to: Date;
}

export const startOfDay = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
const startOfMonth = (t: Date) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
const nextMonth = (t: Date) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
const pad = (n: number) => String(n).padStart(2, '0');
const monthly = (table: HistoryTable) => table === 'token_history_1h';

/** The partition of `table` that holds `at`. */
export function partitionFor(table: HistoryTable, at: Date): PartitionSpec {
  if (monthly(table)) {
    const from = startOfMonth(at);
    return {
      table,
      name: `${table}_p${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}`,
      from,
      to: nextMonth(from),
    };
  }
  const from = startOfDay(at);
  const suffix = `${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}${pad(from.getUTCDate())}`;
  return { table, name: `${table}_p${suffix}`, from, to: new Date(from.getTime() + DAY_MS) };
}

/** Reads a partition name back; undefined for anything this plan did not name (DEFAULT, …). */
export function parsePartition(table: HistoryTable, name: string): PartitionSpec | undefined {
  const match = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})?$`).exec(name);
  if (!match) return undefined;
  const [, y, m, d] = match;
  if (monthly(table) !== (d === undefined)) return undefined;
  return partitionFor(
    table,
    new Date(Date.UTC(Number(y), Number(m) - 1, d === undefined ? 1 : Number(d))),
  );
}

/** Partitions that must exist at `now`: from the oldest still kept to PRECREATE_DAYS ahead. */
export function wantedPartitions(now: Date): PartitionSpec[] {
  const today = startOfDay(now).getTime();
  const wanted: PartitionSpec[] = [];
  for (let d = -1; d <= PRECREATE_DAYS; d++)
    wanted.push(partitionFor('token_history', new Date(today + d * DAY_MS)));
  for (let d = -7; d <= PRECREATE_DAYS; d++)
    wanted.push(partitionFor('token_history_5m', new Date(today + d * DAY_MS)));
  const months = new Map<string, PartitionSpec>();
  for (const d of [-1, 0, PRECREATE_DAYS]) {
    const spec = partitionFor('token_history_1h', new Date(today + d * DAY_MS));
    months.set(spec.name, spec);
  }
  return [...wanted, ...months.values()];
}

/** The time before which `table` keeps nothing. */
export function expiryCutoff(table: HistoryTable, now: Date): Date {
  if (table === 'token_history') return new Date(now.getTime() - RAW_RETENTION_MS);
  if (table === 'token_history_5m') return new Date(now.getTime() - FIVE_MINUTE_RETENTION_MS);
  return new Date(now.getTime() - HOURLY_RETENTION_DAYS * DAY_MS);
}

/**
 * Whether a partition may be dropped: all of it lies before the cutoff, and for raw snapshots
 * all of it has been rolled up (a maintenance job that fell behind never loses a day).
 */
export function isExpired(
  spec: PartitionSpec,
  now: Date,
  rolledUpUntil: Date | undefined,
): boolean {
  if (spec.to.getTime() > expiryCutoff(spec.table, now).getTime()) return false;
  if (spec.table !== 'token_history') return true;
  return rolledUpUntil !== undefined && spec.to.getTime() <= rolledUpUntil.getTime();
}

/** Whole UTC days from `rolledUpUntil` that have ended by `now`: the days to roll up, oldest first. */
export function daysToRollUp(rolledUpUntil: Date, now: Date): Date[] {
  const days: Date[] = [];
  for (let day = startOfDay(rolledUpUntil).getTime(); day + DAY_MS <= now.getTime(); day += DAY_MS)
    days.push(new Date(day));
  return days;
}

/** Which tier a PRO detail reads for a snapshot time: the finest one that still holds it. */
export function historyCutoffs(now: Date): { raw: Date; fiveMinute: Date } {
  return {
    raw: expiryCutoff('token_history', now),
    fiveMinute: expiryCutoff('token_history_5m', now),
  };
}
