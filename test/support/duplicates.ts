import type { Redis } from 'ioredis';
import type postgres from 'postgres';
import { REFRESH_INTERVAL_MS } from '../../src/dex/refresh.ts';

/**
 * Duplicate checks that can fail: each counts something the pipeline could repeat without any
 * constraint stopping it, grouped by what must be unique in meaning (not by a primary key):
 * - `token.created` events per token on the stream (a re-detection announcing again);
 * - analyses rows per (token, run) as the pass recorded it (a pass keyed by something else);
 * - history rows per refresh bucket (a snapshot keyed by a timestamp instead of its bucket);
 * - alerts per (user, token, kind, refresh window) (an alert re-derived under a new key);
 * - emails per alert (one delivered twice).
 * Each returns the repeated groups, empty when there is none.
 */

export interface Repeat {
  what: string;
  count: number;
}

const STREAM_PAGE = 1_000;

type TokenRef = { chain_id?: number; contract_address?: string };
type Counted = { what: string; count: number }[];

const repeatsOf = (counts: Map<string, number>): Repeat[] =>
  [...counts].filter(([, n]) => n > 1).map(([what, count]) => ({ what, count }));

export async function repeatedTokenCreated(redis: Redis, streamKey: string): Promise<Repeat[]> {
  const counts = new Map<string, number>();
  let start = '-';
  for (;;) {
    const page = await redis.xrange(streamKey, start, '+', 'COUNT', STREAM_PAGE);
    for (const [, fields] of page) {
      const map = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
      if (map.get('type') !== 'token.created') continue;
      const data = JSON.parse(map.get('data') ?? '{}') as TokenRef;
      const token = `${data.chain_id}:${data.contract_address}`;
      counts.set(token, (counts.get(token) ?? 0) + 1);
    }
    if (page.length < STREAM_PAGE) break;
    start = `(${page[page.length - 1]![0]}`;
  }
  return repeatsOf(counts);
}

export async function repeatedAnalyses(sql: postgres.Sql): Promise<Repeat[]> {
  const rows = await sql<Counted>`
    select chain_id || ':' || address || ' run ' || coalesce(details->>'run', '?') as what,
      count(*)::int as count
    from analyses group by chain_id, address, details->>'run' having count(*) > 1`;
  return [...rows];
}

export async function repeatedHistory(
  sql: postgres.Sql,
  intervalMs = REFRESH_INTERVAL_MS,
): Promise<Repeat[]> {
  const rows = await sql<Counted>`
    select chain_id || ':' || address || ' bucket ' || bucket as what, count(*)::int as count
    from (
      select chain_id, address, floor(extract(epoch from bucket_at) * 1000 / ${intervalMs})::bigint as bucket
      from token_history
    ) h
    group by chain_id, address, bucket having count(*) > 1`;
  return [...rows];
}

/** A honeypot is announced once per token ever; other kinds once per refresh window. */
export async function repeatedAlerts(
  sql: postgres.Sql,
  windowMs = REFRESH_INTERVAL_MS,
): Promise<Repeat[]> {
  const rows = await sql<Counted>`
    select user_id || ' ' || chain_id || ':' || address || ' ' || kind as what, count(*)::int as count
    from (
      select user_id, chain_id, address, kind,
        case when kind = 'honeypot' then 0
          else floor(extract(epoch from created_at) * 1000 / ${windowMs})::bigint end as window_index
      from alert_deliveries
    ) a
    group by user_id, chain_id, address, kind, window_index having count(*) > 1`;
  return [...rows];
}

/** Emails as an SMTP server received them; the alert is named by recipient and subject. */
export function repeatedEmails(received: { to: string; subject: string }[]): Repeat[] {
  const counts = new Map<string, number>();
  for (const { to, subject } of received) {
    const alert = `${to} ${subject}`;
    counts.set(alert, (counts.get(alert) ?? 0) + 1);
  }
  return repeatsOf(counts);
}
