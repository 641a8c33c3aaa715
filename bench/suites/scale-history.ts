import type { createDb } from '../../db/client.ts';
import { createDexRepository } from '../../db/repositories/dex.ts';
import type { createHistoryRepository } from '../../db/repositories/history.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';
import { DAY_MS, partitionFor } from '../../src/history/retention.ts';
import { startDexScheduler } from '../../workers/dex/index.ts';
import { createProducer } from '../../workers/queues.ts';
import { type BenchRow, progress, round } from '../report.ts';
import { scaleChain } from './scale-seed.ts';

/**
 * History and scheduler measurements of the scale suite (bench/suites/scale.ts): sizes per day
 * without and with retention, expiry by DROP against DELETE, the maintenance passes, and one
 * refresh fan-out with its Redis memory.
 */

const SUITE = 'scale';

export interface ScaleOptions {
  tokens: number;
  activeTokens: number;
  historyDays: number;
  fanoutTokens: number;
  samples: number;
  /** Keep the seeded database between runs (bench/suites/scale-reuse.ts); its rows say so. */
  reuse?: boolean;
}

export async function bytesOf(
  sql: ReturnType<typeof createDb>['sql'],
  relation: string,
  partitioned: boolean,
): Promise<number> {
  const [row] = partitioned
    ? await sql<
        { b: string }[]
      >`select coalesce(sum(pg_total_relation_size(inhrelid)), 0)::text as b from pg_inherits where inhparent = ${relation}::regclass`
    : await sql<{ b: string }[]>`select pg_total_relation_size(${relation}::regclass)::text as b`;
  return Number(row!.b);
}

/** Redis bytes held under the prefix (the server is shared: INFO memory would count others). */
async function prefixMemory(
  redis: ReturnType<typeof createRedis>,
  prefix: string,
): Promise<{ keys: number; bytes: number }> {
  let cursor = '0';
  let keys = 0;
  let bytes = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
    cursor = next;
    if (batch.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of batch) pipeline.memory('USAGE', key);
    for (const [, value] of (await pipeline.exec()) ?? []) bytes += Number(value ?? 0);
    keys += batch.length;
  } while (cursor !== '0');
  return { keys, bytes };
}

export const mib = (bytes: number) => round(bytes / 2 ** 20, 1);

export async function measureRetention(
  handle: ReturnType<typeof createDb>,
  history: ReturnType<typeof createHistoryRepository>,
  seeded: Record<'token_history' | 'token_history_5m' | 'token_history_1h', number>,
  sizes: { raw: number; fiveMinute: number; hourly: number },
  options: ScaleOptions,
  now: number,
): Promise<BenchRow[]> {
  const rawBytesPerRow = sizes.raw / seeded.token_history;
  const hourlyBytesPerRow = sizes.hourly / seeded.token_history_1h;
  const rawPerDay = options.activeTokens * 1_440;
  const beforePerDay = rawPerDay * rawBytesPerRow;
  const afterPerDay = options.activeTokens * 24 * hourlyBytesPerRow;
  const steadyTiers = sizes.raw * 2 + sizes.fiveMinute * (7 / 6);
  // Expiry of one raw day: DELETE against DROP of the same partition, each rolled back.
  const yesterday = partitionFor('token_history', new Date(now - DAY_MS));
  const timed = async (statement: string) => {
    const rolledBack = new Error('measured, rolled back');
    let measured = { ms: Number.NaN, count: 0 };
    await handle.sql
      .begin(async (tx) => {
        const t = performance.now();
        const result = await tx.unsafe(statement);
        measured = { ms: performance.now() - t, count: result.count };
        throw rolledBack; // nothing of the measurement stays
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    return measured;
  };
  const deleted = await timed(
    `delete from token_history where bucket_at >= '${yesterday.from.toISOString()}' and bucket_at < '${yesterday.to.toISOString()}'`,
  );
  const dropped = await timed(`drop table ${yesterday.name}`);
  let started = performance.now();
  const pass = await history.maintain(new Date(now));
  const rollupMs = performance.now() - started;
  started = performance.now();
  const nextDay = await history.maintain(new Date(now + DAY_MS));
  const nextDayMs = performance.now() - started;
  return [
    {
      suite: SUITE,
      metric: 'history per token per day, 60 s snapshots kept (before)',
      value: 1_440,
      unit: 'rows',
      note: `${round(rawBytesPerRow, 0)} B per row with its index: ${round((1_440 * rawBytesPerRow) / 1024, 1)} KiB per token per day`,
    },
    {
      suite: SUITE,
      metric: 'history growth per day at 10,000 active tokens, before',
      value: mib((beforePerDay * 10_000) / options.activeTokens),
      unit: 'MiB/day',
      note: `${rawPerDay * (10_000 / options.activeTokens)} rows a day, forever: ${round((beforePerDay * 365 * 10_000) / options.activeTokens / 2 ** 30, 1)} GiB after a year`,
    },
    {
      suite: SUITE,
      metric: 'history growth per day at 10,000 active tokens, after (1 h rollups only)',
      value: mib((afterPerDay * 10_000) / options.activeTokens),
      unit: 'MiB/day',
      baseline: {
        metric: 'before',
        value: mib((beforePerDay * 10_000) / options.activeTokens),
        ratio: afterPerDay / beforePerDay,
      },
      note: `24 rows per token per day once older than 7 days; raw (≤ 2 days) and 5 min (≤ 8 days) tiers stay at ${mib((steadyTiers * 10_000) / options.activeTokens)} MiB; ${round(((steadyTiers + afterPerDay * 365) * 10_000) / options.activeTokens / 2 ** 30, 1)} GiB after a year`,
    },
    {
      suite: SUITE,
      metric: 'history size after 30 days at 10,000 active tokens, after',
      value: mib(((sizes.raw + sizes.fiveMinute + sizes.hourly) * 10_000) / options.activeTokens),
      unit: 'MiB',
      baseline: {
        metric: 'before (30 days of 60 s)',
        value: mib((beforePerDay * 30 * 10_000) / options.activeTokens),
        ratio: (sizes.raw + sizes.fiveMinute + sizes.hourly) / (beforePerDay * 30),
      },
      note: `measured on the seeded ${options.activeTokens} active tokens${options.activeTokens === 10_000 ? '' : ', scaled linearly'}`,
    },
    {
      suite: SUITE,
      metric: 'expiry of one raw day: DROP of its partition',
      value: round(dropped.ms, 1),
      unit: 'ms',
      baseline: {
        metric: `DELETE of the same ${deleted.count} rows`,
        value: round(deleted.ms, 0),
        ratio: dropped.ms / deleted.ms,
      },
      note: 'each inside a transaction rolled back; DELETE also leaves dead tuples for vacuum',
    },
    {
      suite: SUITE,
      metric: 'maintenance pass: roll up the finished day',
      value: round(rollupMs / 1000, 2),
      unit: 's',
      note: `days ${pass?.rolledUpDays.join(', ') || 'none'}; partitions created ${pass?.created.length ?? 0}`,
    },
    {
      suite: SUITE,
      metric: 'maintenance pass one day later: roll up, drop expired',
      value: round(nextDayMs / 1000, 2),
      unit: 's',
      note: `rolled up ${nextDay?.rolledUpDays.join(', ') || 'none'}; dropped ${nextDay?.dropped.join(', ') || 'none'}`,
    },
  ];
}

export async function measureFanout(
  handle: ReturnType<typeof createDb>,
  connection: ReturnType<typeof createRedis>,
  redis: { url: string; prefix: string },
  options: ScaleOptions,
): Promise<BenchRow[]> {
  const prefix = `${redis.prefix}-fanout`;
  const producer = createProducer(connection, prefix);
  const workerConnection = createRedis(redis.url, 'worker');
  let first!: () => void;
  const firstTick = new Promise<void>((resolve) => {
    first = resolve;
  });
  const scheduler = await startDexScheduler({
    workerConnection,
    producerConnection: connection,
    prefix,
    dex: createDexRepository(handle.db),
    producer,
    chainIds: [...new Set(Array.from({ length: 5 }, (_, i) => scaleChain(i)))],
    logger: silentLogger,
    intervalMs: 3_600_000,
    onTick: () => first(),
  });
  try {
    await firstTick; // the scheduler's immediate first iteration, before anything is due
    const tracked = Math.min(options.fanoutTokens, options.tokens);
    await handle.sql`update tokens t set next_refresh_at = now() - interval '2 hours'
      from (select chain_id, address from tokens order by address limit ${tracked}) s where t.chain_id = s.chain_id and t.address = s.address`;
    const [count] = await handle.sql<
      { n: number }[]
    >`select count(*)::int as n from tokens where next_refresh_at is not null`;
    const n = count!.n;
    await handle.sql`analyze tokens`;
    const before = await prefixMemory(connection, prefix);
    const started = performance.now();
    const result = await scheduler.tick(Date.now());
    const ms = performance.now() - started;
    const after = await prefixMemory(connection, prefix);
    progress(
      `scale: fan-out of ${result.enqueued} due tokens in ${round(ms, 0)} ms, Redis ${mib(after.bytes - before.bytes)} MiB`,
    );
    return [
      {
        suite: SUITE,
        metric: `refresh fan-out tick at ${n} tracked tokens`,
        value: round(ms / 1000, 2),
        unit: 's',
        baseline: { metric: 'refresh interval', value: 60, ratio: ms / 60_000 },
        note: `${result.enqueued} dex jobs enqueued in pages of 1,000`,
      },
      {
        suite: SUITE,
        metric: `Redis memory of one fan-out at ${n} tracked tokens`,
        value: mib(after.bytes - before.bytes),
        unit: 'MiB',
        note: `${after.keys - before.keys} keys; ${round((after.bytes - before.bytes) / Math.max(1, result.enqueued), 0)} B per waiting job (MEMORY USAGE under the run's prefix)`,
      },
    ];
  } finally {
    await scheduler.close();
    await producer.close();
    workerConnection.disconnect();
  }
}
