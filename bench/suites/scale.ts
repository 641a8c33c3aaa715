import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createHistoryRepository } from '../../db/repositories/history.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createRedis } from '../../infra/redis.ts';
import { createProAccount, RAISED_LIMITS } from '../../test/support/accounts.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { type BenchRow, progress, round } from '../report.ts';
import { startServer, stopServer } from './api.ts';
import {
  bytesOf,
  measureFanout,
  measureRetention,
  mib,
  type ScaleOptions,
} from './scale-history.ts';
import {
  type ApiClient,
  deepPageAndDetailRows,
  explainQueries,
  listRows,
  measureLists,
} from './scale-lists.ts';
import { reusableDatabase } from './scale-reuse.ts';
import { type ScaleShape, seedCreators, seedHistory, seedTokens } from './scale-seed.ts';

export type { ScaleOptions } from './scale-history.ts';

/**
 * Growth over time (docs/scale.md): a year of tokens on 5 chains and a month of history for the
 * active ones, loaded with COPY; uncached latency of every list filter and of the PRO detail at a
 * tenth of the table and at all of it; EXPLAIN of each query; history size per day without and
 * with retention; expiry by partition drop against DELETE; the refresh fan-out at scale.
 */

const SUITE = 'scale';
const EXPLAIN_PATH = fileURLToPath(new URL('../scale-explain.txt', import.meta.url));
const HISTORY_TABLES = ['token_history', 'token_history_5m', 'token_history_1h'] as const;

type Handle = ReturnType<typeof createDb>;

/** A PRO user with raised limits, and the API role in a process of its own. */
async function startProApi(handle: Handle, database: TestDatabase, redis: TestRedis) {
  // The prefix is the run's own: a reused database already holds earlier runs' accounts.
  const key = await createProAccount(createAccountRepository(handle.db), {
    email: `scale-${redis.prefix}@bench.test`,
    keyName: 'bench',
    limits: RAISED_LIMITS,
  });
  const server = await startServer(['app', database.url, redis.url, redis.prefix, '10']);
  const api: ApiClient = {
    base: `http://127.0.0.1:${server.port}`,
    bearer: { authorization: `Bearer ${key.apiKey}` },
    proKey: { 'x-api-key': key.apiKey },
  };
  return { api, child: server.child };
}

/** The rest of the tokens and the history, then table sizes and the rows that report them. */
async function seedRest(
  handle: Handle,
  history: ReturnType<typeof createHistoryRepository>,
  shape: ScaleShape,
  options: ScaleOptions,
  now: number,
) {
  const tenth = Math.round(options.tokens / 10);
  let started = performance.now();
  progress(`scale: COPY the other ${options.tokens - tenth} tokens with analyses`);
  await seedTokens(handle.sql, shape, tenth, options.tokens, now);
  const tokenSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  progress(
    `scale: COPY ${options.historyDays} days of retained history for ${options.activeTokens} active tokens`,
  );
  const historyRows = await seedHistory(handle.sql, history, shape, now, options.historyDays);
  const historySeconds = (performance.now() - started) / 1000;
  for (const table of ['tokens', 'analyses', 'creators', ...HISTORY_TABLES])
    await handle.sql.unsafe(`vacuum analyze ${table}`);
  const sizes = {
    tokens: await bytesOf(handle.sql, 'tokens', false),
    analyses: await bytesOf(handle.sql, 'analyses', false),
    creators: await bytesOf(handle.sql, 'creators', false),
    raw: await bytesOf(handle.sql, 'token_history', true),
    fiveMinute: await bytesOf(handle.sql, 'token_history_5m', true),
    hourly: await bytesOf(handle.sql, 'token_history_1h', true),
  };
  const totalRows = HISTORY_TABLES.reduce((sum, t) => sum + historyRows[t], 0);
  progress(
    `scale: tokens ${mib(sizes.tokens)} MiB, analyses ${mib(sizes.analyses)} MiB; history ${totalRows} rows, ${mib(sizes.raw + sizes.fiveMinute + sizes.hourly)} MiB`,
  );
  const rows: BenchRow[] = [
    {
      suite: SUITE,
      metric: 'seeded tokens (5 chains, with analyses)',
      value: options.tokens,
      unit: 'tokens',
      note: `${shape.creators} creators; COPY ${round(tokenSeconds, 1)} s; tokens ${mib(sizes.tokens)} MiB, analyses ${mib(sizes.analyses)} MiB, creators ${mib(sizes.creators)} MiB (tables with indexes); ${round(sizes.tokens / options.tokens, 0)} B per token row`,
    },
    {
      suite: SUITE,
      metric: 'seeded history rows (retained shape after 30 days)',
      value: totalRows,
      unit: 'rows',
      note: `${options.activeTokens} active tokens: ${historyRows.token_history} raw 60 s (24 h), ${historyRows.token_history_5m} 5 min (6 days), ${historyRows.token_history_1h} 1 h (${options.historyDays - 7} days); COPY ${round(historySeconds, 1)} s; ${mib(sizes.raw + sizes.fiveMinute + sizes.hourly)} MiB`,
    },
  ];
  return { historyRows, sizes, rows };
}

/**
 * `--reuse`: the lists and the detail at the full size on a database kept between runs (seeded on
 * the first); no tenth-size baseline, retention or fan-out. Every row's note says the data was reused.
 */
async function scaleOnReusedData(options: ScaleOptions, shape: ScaleShape): Promise<BenchRow[]> {
  const [database, redis] = await Promise.all([
    reusableDatabase(shape, options.historyDays),
    createTestRedis(),
  ]);
  const handle = createDb(database.url, { max: 4 });
  let child: Awaited<ReturnType<typeof startServer>>['child'] | undefined;
  try {
    let nowMs = database.seededAt;
    if (nowMs === undefined) {
      nowMs = Date.now();
      const history = createHistoryRepository(handle.db);
      await history.maintain(new Date(nowMs));
      progress(`scale --reuse: seeding ${options.tokens} tokens once, kept for later runs`);
      await seedCreators(handle.sql, shape, nowMs);
      await seedTokens(handle.sql, shape, 0, Math.round(options.tokens / 10), nowMs);
      await seedRest(handle, history, shape, options, nowMs);
      await database.markSeeded(nowMs);
    }
    const started = await startProApi(handle, database, redis);
    child = started.child;
    progress(`scale --reuse: data seeded at ${new Date(nowMs).toISOString()}, reused`);
    const repository = createTokenRepository(handle.db);
    const large = await measureLists(started.api, repository, 10_000, options.samples);
    // Not the committed file: that holds the plans of a run on a fresh seed.
    await explainQueries(handle.sql, shape, join(tmpdir(), 'scale-explain-reused.txt'));
    const rows = [
      ...listRows(large, undefined, 0, options.tokens),
      ...(await deepPageAndDetailRows(started.api, repository, large, shape, options.samples)),
    ];
    const reused = `REUSED seeded database (seeded ${new Date(nowMs).toISOString()})`;
    return rows.map((row) => ({ ...row, note: row.note ? `${row.note}; ${reused}` : reused }));
  } finally {
    if (child) await stopServer(child);
    await handle.close();
    await redis.cleanup();
  }
}

export async function scaleGrowth(options: ScaleOptions): Promise<BenchRow[]> {
  if (options.reuse)
    return scaleOnReusedData(options, {
      tokens: options.tokens,
      activeTokens: options.activeTokens,
      creators: Math.round(options.tokens / 5),
    });
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  if (database.embedded)
    throw new Error(
      'the scale suite needs a Postgres server (TEST_DATABASE_URL or 127.0.0.1:5432)',
    );
  const handle = createDb(database.url, { max: 4 });
  const connection = createRedis(redis.url, 'producer');
  let child: Awaited<ReturnType<typeof startServer>>['child'] | undefined;
  const shape: ScaleShape = {
    tokens: options.tokens,
    activeTokens: options.activeTokens,
    creators: Math.round(options.tokens / 5),
  };
  const now = Date.now();
  const history = createHistoryRepository(handle.db);
  try {
    // Partitions first (as the scheduler would have made them), so COPY lands in dated partitions.
    await history.maintain(new Date(now));
    const tenth = Math.round(options.tokens / 10);
    progress(`scale: COPY ${shape.creators} creators and ${tenth} tokens with analyses`);
    await seedCreators(handle.sql, shape, now);
    await seedTokens(handle.sql, shape, 0, tenth, now);
    await handle.sql`vacuum analyze tokens`;
    await handle.sql`vacuum analyze analyses`;
    const started = await startProApi(handle, database, redis);
    child = started.child;
    const repository = createTokenRepository(handle.db);
    progress(`scale: uncached list latency at ${tenth} tokens`);
    const small = await measureLists(
      started.api,
      repository,
      0,
      Math.max(50, Math.round(options.samples / 2)),
    );

    const seeded = await seedRest(handle, history, shape, options, now);
    progress(
      `scale: uncached list latency at ${options.tokens} tokens, ${options.samples} requests per filter`,
    );
    const large = await measureLists(started.api, repository, 10_000, options.samples);
    const rows: BenchRow[] = [
      ...seeded.rows,
      ...listRows(large, small, tenth, options.tokens),
      ...(await deepPageAndDetailRows(started.api, repository, large, shape, options.samples)),
    ];
    progress('scale: EXPLAIN of each query');
    await explainQueries(handle.sql, shape, EXPLAIN_PATH);
    rows.push(
      ...(await measureRetention(handle, history, seeded.historyRows, seeded.sizes, options, now)),
    );
    rows.push(...(await measureFanout(handle, connection, redis, options)));
    return rows;
  } finally {
    if (child) await stopServer(child);
    connection.disconnect();
    await handle.close();
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}
