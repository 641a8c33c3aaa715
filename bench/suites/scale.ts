import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createDexRepository } from '../../db/repositories/dex.ts';
import { createHistoryRepository } from '../../db/repositories/history.ts';
import { createTokenRepository, type TokenListQuery } from '../../db/repositories/tokens.ts';
import * as schema from '../../db/schema.ts';
import { assembleComplete } from '../../api/routes/pro.ts';
import { createRedis } from '../../infra/redis.ts';
import { silentLogger } from '../../infra/logger.ts';
import { generateApiKey, hashPassword } from '../../src/accounts/credentials.ts';
import { DAY_MS, partitionFor } from '../../src/history/retention.ts';
import { startDexScheduler } from '../../workers/dex-scheduler.ts';
import { createProducer } from '../../workers/queues.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import { percentile, progress, round, type BenchRow } from '../report.ts';
import { startServer, stopServer } from './api.ts';
import { activeIndex, scaleAddress, scaleChain, seedCreators, seedHistory, seedTokens, type ScaleShape } from './scale-seed.ts';

/**
 * Growth over time (docs/scale.md): a year of tokens on 5 chains and a month of history for the
 * active ones, loaded with COPY; uncached latency of every list filter and of the PRO detail at a
 * tenth of the table and at all of it; EXPLAIN of each query; history size per day without and
 * with retention; expiry by partition drop against DELETE; the refresh fan-out at scale.
 */

const SUITE = 'scale';
const EXPLAIN_PATH = fileURLToPath(new URL('../scale-explain.txt', import.meta.url));
const LIST_TARGET_MS = 50;
const DETAIL_TARGET_MS = 20;
const BENCH_LIMITS = { requestsPerMinute: 100_000_000, requestsPerHour: 100_000_000, requestsPerDay: 100_000_000 };

export interface ScaleOptions {
  tokens: number;
  activeTokens: number;
  historyDays: number;
  fanoutTokens: number;
  samples: number;
}

/** Each kind of list request; `n` makes every request's cache key distinct (always a miss). */
const WORDS = ['pepe', 'moon', 'inu', 'doge', 'rocket', 'safe', 'baby', 'turbo', 'frog', 'whale', 'giga', 'floki', 'quantum', 'degen', 'gold', 'cash', 'swap', 'dao'];
const bust = (n: number) => `created_before=${new Date(Date.UTC(2100, 0, 1) + n).toISOString()}`;
const LIST_KINDS: { name: string; path: (n: number) => string; query: TokenListQuery; pro?: boolean }[] = [
  { name: 'no filter', path: (n) => `/api/tokens?limit=100&page=${1 + (n % 5)}&${bust(n)}`, query: { page: 1, limit: 100 } },
  { name: 'chain_id', path: (n) => `/api/tokens?limit=100&chain_id=${scaleChain(n)}&page=${1 + (n % 5)}&${bust(n)}`, query: { page: 1, limit: 100, chainId: 56 } },
  { name: 'risk_level', path: (n) => `/api/tokens?limit=100&risk_level=${['low', 'medium', 'high', 'honeypot'][n % 4]}&${bust(n)}`, query: { page: 1, limit: 100, riskLevel: 'honeypot' } },
  { name: 'has_liquidity', path: (n) => `/api/tokens?limit=100&has_liquidity=true&page=${1 + (n % 5)}&${bust(n)}`, query: { page: 1, limit: 100, hasLiquidity: true } },
  { name: 'is_actively_traded', path: (n) => `/api/tokens?limit=100&is_actively_traded=true&page=${1 + (n % 5)}&${bust(n)}`, query: { page: 1, limit: 100, isActivelyTraded: true } },
  { name: 'q (name or symbol)', path: (n) => `/api/tokens?limit=100&q=${WORDS[n % WORDS.length]}&${bust(n)}`, query: { page: 1, limit: 100, q: 'floki' } },
  { name: 'q (address prefix)', path: (n) => `/api/tokens?limit=100&q=${scaleAddress(n * 977).slice(0, 8)}&${bust(n)}`, query: { page: 1, limit: 100, q: '0x1f2e3d' } },
  { name: 'chain_id + risk_level + has_liquidity', path: (n) => `/api/tokens?limit=100&chain_id=${scaleChain(n)}&risk_level=low&has_liquidity=true&${bust(n)}`, query: { page: 1, limit: 100, chainId: 1, riskLevel: 'low', hasLiquidity: true } },
  { name: 'PRO list (risk_level)', path: (n) => `/api/pro/tokens?limit=100&risk_level=${['low', 'high'][n % 2]}&page=${1 + (n % 5)}&${bust(n)}`, query: { page: 1, limit: 100, riskLevel: 'low' }, pro: true },
];

async function timeRequests(base: string, headers: Record<string, string>, paths: string[]): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers });
    const body = await response.text();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50), 1), p99: round(percentile(times, 99), 1) };
}

async function bytesOf(sql: ReturnType<typeof createDb>['sql'], relation: string, partitioned: boolean): Promise<number> {
  const [row] = partitioned
    ? await sql<{ b: string }[]>`select coalesce(sum(pg_total_relation_size(inhrelid)), 0)::text as b from pg_inherits where inhparent = ${relation}::regclass`
    : await sql<{ b: string }[]>`select pg_total_relation_size(${relation}::regclass)::text as b`;
  return Number(row!.b);
}

/** Redis bytes held under the prefix (the server is shared: INFO memory would count others). */
async function prefixMemory(redis: ReturnType<typeof createRedis>, prefix: string): Promise<{ keys: number; bytes: number }> {
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

const mib = (bytes: number) => round(bytes / 2 ** 20, 1);

export async function scaleGrowth(options: ScaleOptions): Promise<BenchRow[]> {
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  if (database.embedded) throw new Error('the scale suite needs a Postgres server (TEST_DATABASE_URL or 127.0.0.1:5432)');
  const handle = createDb(database.url, { max: 4 });
  const connection = createRedis(redis.url, 'producer');
  const children: Awaited<ReturnType<typeof startServer>>['child'][] = [];
  const rows: BenchRow[] = [];
  const shape: ScaleShape = { tokens: options.tokens, activeTokens: options.activeTokens, creators: Math.round(options.tokens / 5) };
  const now = Date.now();
  const history = createHistoryRepository(handle.db);
  try {
    // Partitions first (as the scheduler would have made them), so COPY lands in dated partitions.
    await history.maintain(new Date(now));
    const tenth = Math.round(options.tokens / 10);
    let started = performance.now();
    progress(`scale: COPY ${shape.creators} creators and ${tenth} tokens with analyses`);
    await seedCreators(handle.sql, shape, now);
    await seedTokens(handle.sql, shape, 0, tenth, now);
    await handle.sql`vacuum analyze tokens`;
    await handle.sql`vacuum analyze analyses`;

    const accounts = createAccountRepository(handle.db);
    const user = await accounts.createUser({ email: 'scale@bench.test', passwordHash: await hashPassword('bench-password'), plan: 'PRO' });
    const key = generateApiKey();
    await accounts.generateKey(user!.id, key, { name: 'bench', description: null, plan: 'PRO', now: new Date(), expiresAt: null });
    await accounts.setKeyLimits({ keyHash: key.keyHash }, BENCH_LIMITS);
    const api = await startServer(['app', database.url, redis.url, redis.prefix, '10']);
    children.push(api.child);
    const base = `http://127.0.0.1:${api.port}`;
    const bearer = { authorization: `Bearer ${key.apiKey}` };
    const proKey = { 'x-api-key': key.apiKey };
    const repository = createTokenRepository(handle.db);
    /** The same queries in process, straight through the repository: the Postgres share of the time. */
    const timeRepository = async (kind: (typeof LIST_KINDS)[number], samples: number) => {
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const query = { ...kind.query, page: 1 + (i % 5) };
        const t = performance.now();
        await (kind.pro ? repository.list(query) : repository.listItems(query));
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return round(percentile(times, 99), 1);
    };
    const measureLists = async (offset: number, samples: number) => {
      const out = new Map<string, { p50: number; p99: number; postgresP99: number }>();
      // Warm-up: the API process's first requests pay for connections and compilation.
      for (const kind of LIST_KINDS) await timeRequests(base, kind.pro ? proKey : bearer, Array.from({ length: 10 }, (_, i) => kind.path(offset + 1_000_000 + i)));
      for (const kind of LIST_KINDS) {
        const http = await timeRequests(base, kind.pro ? proKey : bearer, Array.from({ length: samples }, (_, i) => kind.path(offset + i)));
        out.set(kind.name, { ...http, postgresP99: await timeRepository(kind, samples) });
      }
      return out;
    };
    progress(`scale: uncached list latency at ${tenth} tokens`);
    const small = await measureLists(0, Math.max(50, Math.round(options.samples / 2)));

    progress(`scale: COPY the other ${options.tokens - tenth} tokens with analyses`);
    await seedTokens(handle.sql, shape, tenth, options.tokens, now);
    const tokenSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    progress(`scale: COPY ${options.historyDays} days of retained history for ${options.activeTokens} active tokens`);
    const historyRows = await seedHistory(handle.sql, history, shape, now, options.historyDays);
    const historySeconds = (performance.now() - started) / 1000;
    for (const table of ['tokens', 'analyses', 'creators', 'token_history', 'token_history_5m', 'token_history_1h']) await handle.sql.unsafe(`vacuum analyze ${table}`);

    const sizes = {
      tokens: await bytesOf(handle.sql, 'tokens', false), analyses: await bytesOf(handle.sql, 'analyses', false), creators: await bytesOf(handle.sql, 'creators', false),
      raw: await bytesOf(handle.sql, 'token_history', true), fiveMinute: await bytesOf(handle.sql, 'token_history_5m', true), hourly: await bytesOf(handle.sql, 'token_history_1h', true),
    };
    const totalRows = historyRows.token_history + historyRows.token_history_5m + historyRows.token_history_1h;
    progress(`scale: tokens ${mib(sizes.tokens)} MiB, analyses ${mib(sizes.analyses)} MiB, creators ${mib(sizes.creators)} MiB; history ${totalRows} rows: raw ${mib(sizes.raw)} MiB, 5 min ${mib(sizes.fiveMinute)} MiB, 1 h ${mib(sizes.hourly)} MiB`);
    rows.push(
      { suite: SUITE, metric: 'seeded tokens (5 chains, with analyses)', value: options.tokens, unit: 'tokens', note: `${shape.creators} creators; COPY ${round(tokenSeconds, 1)} s; tokens ${mib(sizes.tokens)} MiB, analyses ${mib(sizes.analyses)} MiB, creators ${mib(sizes.creators)} MiB (tables with indexes)` },
      { suite: SUITE, metric: 'seeded history rows (retained shape after 30 days)', value: totalRows, unit: 'rows', note: `${options.activeTokens} active tokens: ${historyRows.token_history} raw 60 s (24 h), ${historyRows.token_history_5m} 5 min (6 days), ${historyRows.token_history_1h} 1 h (${options.historyDays - 7} days); COPY ${round(historySeconds, 1)} s; ${mib(sizes.raw + sizes.fiveMinute + sizes.hourly)} MiB` },
    );

    progress(`scale: uncached list latency at ${options.tokens} tokens, ${options.samples} requests per filter`);
    const large = await measureLists(10_000, options.samples);
    for (const kind of LIST_KINDS) {
      const at = large.get(kind.name)!;
      const before = small.get(kind.name)!;
      rows.push({
        suite: SUITE, metric: `GET ${kind.pro ? '/api/pro/tokens' : '/api/tokens'} ${kind.name}, uncached p99`, value: at.p99, unit: 'ms',
        baseline: { metric: `same at ${tenth} tokens`, value: before.p99, ratio: before.p99 === 0 ? 0 : at.p99 / before.p99 },
        note: `limit 100, ${options.tokens} tokens; p50 ${at.p50} ms; target ≤ ${LIST_TARGET_MS} ms: ${at.p99 <= LIST_TARGET_MS ? 'met' : 'missed'}`,
      }, {
        suite: SUITE, metric: `Postgres share: ${kind.pro ? 'PRO list' : 'list'} ${kind.name} queries p99 (repository, in process)`, value: at.postgresP99, unit: 'ms',
        baseline: { metric: `same at ${tenth} tokens`, value: before.postgresP99, ratio: before.postgresP99 === 0 ? 0 : at.postgresP99 / before.postgresP99 },
        note: 'page and total, as the route runs them; no HTTP, authentication, rate limit or cache',
      });
    }
    const deep = await timeRequests(base, bearer, Array.from({ length: 20 }, (_, i) => `/api/tokens?limit=100&page=${100 + i}&${bust(20_000 + i)}`));
    rows.push({ suite: SUITE, metric: 'GET /api/tokens page 100-119 (offset ~10,000), uncached p99', value: deep.p99, unit: 'ms', baseline: { metric: 'pages 1-5 p99', value: large.get('no filter')!.p99, ratio: deep.p99 / large.get('no filter')!.p99 }, note: 'offset pagination: cost grows with the offset' });

    const detailPaths = Array.from({ length: options.samples }, (_, k) => {
      const i = activeIndex(shape, k % options.activeTokens);
      return `/api/pro/tokens/${scaleAddress(i)}?chain_id=${scaleChain(i)}&include_history=true`;
    });
    await timeRequests(base, proKey, detailPaths.slice(-5));
    const detail = await timeRequests(base, proKey, detailPaths.slice(0, -5));
    rows.push({ suite: SUITE, metric: 'GET /api/pro/tokens/{address} with 100 snapshots, uncached p99', value: detail.p99, unit: 'ms', note: `p50 ${detail.p50} ms; each request a different active token (cache miss); target ≤ ${DETAIL_TARGET_MS} ms: ${detail.p99 <= DETAIL_TARGET_MS ? 'met' : 'missed'}` });

    progress('scale: EXPLAIN of each query');
    await explainQueries(handle.sql, shape, EXPLAIN_PATH);

    rows.push(...(await measureRetention(handle, history, historyRows, sizes, options, now)));
    rows.push(...(await measureFanout(handle, connection, redis, options)));
    return rows;
  } finally {
    await Promise.all(children.map(stopServer));
    connection.disconnect();
    await handle.close();
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of the SQL each list filter and the PRO detail send. */
async function explainQueries(sql: ReturnType<typeof createDb>['sql'], shape: ScaleShape, path: string) {
  const captured: { query: string; params: unknown[] }[] = [];
  const logged = drizzle(sql, { schema, logger: { logQuery: (query, params) => captured.push({ query, params }) } });
  const tokens = createTokenRepository(logged);
  const sections: string[] = [];
  const explain = async (title: string, run: () => Promise<unknown>) => {
    captured.length = 0;
    await run();
    const plans: string[] = [];
    for (const { query, params } of captured.filter((c) => !/^\s*explain/i.test(c.query))) {
      const plan = await sql.unsafe(`explain (analyze, buffers, costs off) ${query}`, params as never[]);
      plans.push(`${query}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    sections.push(`### ${title}\n\n${plans.join('\n\n')}`);
  };
  for (const kind of LIST_KINDS) {
    await explain(`${kind.pro ? 'PRO list' : 'list'}: ${kind.name}`, () => (kind.pro ? tokens.list(kind.query) : tokens.listItems(kind.query)));
  }
  const i = activeIndex(shape, 1);
  await explain('PRO detail with 100 snapshots', () => assembleComplete(tokens, [{ chainId: scaleChain(i), address: scaleAddress(i) }]));
  writeFileSync(path, `${sections.join('\n\n')}\n`);
  progress(`scale: EXPLAIN output written to ${path}`);
}

async function measureRetention(
  handle: ReturnType<typeof createDb>, history: ReturnType<typeof createHistoryRepository>,
  seeded: Record<'token_history' | 'token_history_5m' | 'token_history_1h', number>,
  sizes: { raw: number; fiveMinute: number; hourly: number }, options: ScaleOptions, now: number,
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
    await handle.sql.begin(async (tx) => {
      const t = performance.now();
      const result = await tx.unsafe(statement);
      measured = { ms: performance.now() - t, count: result.count };
      throw rolledBack; // nothing of the measurement stays
    }).catch((error: unknown) => { if (error !== rolledBack) throw error; });
    return measured;
  };
  const deleted = await timed(`delete from token_history where bucket_at >= '${yesterday.from.toISOString()}' and bucket_at < '${yesterday.to.toISOString()}'`);
  const dropped = await timed(`drop table ${yesterday.name}`);
  let started = performance.now();
  const pass = await history.maintain(new Date(now));
  const rollupMs = performance.now() - started;
  started = performance.now();
  const nextDay = await history.maintain(new Date(now + DAY_MS));
  const nextDayMs = performance.now() - started;
  return [
    { suite: SUITE, metric: 'history per token per day, 60 s snapshots kept (before)', value: 1_440, unit: 'rows', note: `${round(rawBytesPerRow, 0)} B per row with its index: ${round((1_440 * rawBytesPerRow) / 1024, 1)} KiB per token per day` },
    { suite: SUITE, metric: 'history growth per day at 10,000 active tokens, before', value: mib((beforePerDay * 10_000) / options.activeTokens), unit: 'MiB/day', note: `${rawPerDay * (10_000 / options.activeTokens)} rows a day, forever: ${round((beforePerDay * 365 * 10_000) / options.activeTokens / 2 ** 30, 1)} GiB after a year` },
    { suite: SUITE, metric: 'history growth per day at 10,000 active tokens, after (1 h rollups only)', value: mib((afterPerDay * 10_000) / options.activeTokens), unit: 'MiB/day', baseline: { metric: 'before', value: mib((beforePerDay * 10_000) / options.activeTokens), ratio: afterPerDay / beforePerDay }, note: `24 rows per token per day once older than 7 days; raw (≤ 2 days) and 5 min (≤ 8 days) tiers stay at ${mib((steadyTiers * 10_000) / options.activeTokens)} MiB; ${round(((steadyTiers + afterPerDay * 365) * 10_000) / options.activeTokens / 2 ** 30, 1)} GiB after a year` },
    { suite: SUITE, metric: 'history size after 30 days at 10,000 active tokens, after', value: mib(((sizes.raw + sizes.fiveMinute + sizes.hourly) * 10_000) / options.activeTokens), unit: 'MiB', baseline: { metric: 'before (30 days of 60 s)', value: mib((beforePerDay * 30 * 10_000) / options.activeTokens), ratio: (sizes.raw + sizes.fiveMinute + sizes.hourly) / (beforePerDay * 30) }, note: `measured on the seeded ${options.activeTokens} active tokens${options.activeTokens === 10_000 ? '' : ', scaled linearly'}` },
    { suite: SUITE, metric: 'expiry of one raw day: DROP of its partition', value: round(dropped.ms, 1), unit: 'ms', baseline: { metric: `DELETE of the same ${deleted.count} rows`, value: round(deleted.ms, 0), ratio: dropped.ms / deleted.ms }, note: 'each inside a transaction rolled back; DELETE also leaves dead tuples for vacuum' },
    { suite: SUITE, metric: 'maintenance pass: roll up the finished day', value: round(rollupMs / 1000, 2), unit: 's', note: `days ${pass?.rolledUpDays.join(', ') || 'none'}; partitions created ${pass?.created.length ?? 0}` },
    { suite: SUITE, metric: 'maintenance pass one day later: roll up, drop expired', value: round(nextDayMs / 1000, 2), unit: 's', note: `rolled up ${nextDay?.rolledUpDays.join(', ') || 'none'}; dropped ${nextDay?.dropped.join(', ') || 'none'}` },
  ];
}

async function measureFanout(
  handle: ReturnType<typeof createDb>, connection: ReturnType<typeof createRedis>, redis: { url: string; prefix: string }, options: ScaleOptions,
): Promise<BenchRow[]> {
  const prefix = `${redis.prefix}-fanout`;
  const producer = createProducer(connection, prefix);
  const workerConnection = createRedis(redis.url, 'worker');
  let first!: () => void;
  const firstTick = new Promise<void>((resolve) => { first = resolve; });
  const scheduler = await startDexScheduler({
    workerConnection, producerConnection: connection, prefix, dex: createDexRepository(handle.db), producer,
    chainIds: [...new Set(Array.from({ length: 5 }, (_, i) => scaleChain(i)))], logger: silentLogger, intervalMs: 3_600_000, onTick: () => first(),
  });
  try {
    await firstTick; // the scheduler's immediate first iteration, before anything is due
    const tracked = Math.min(options.fanoutTokens, options.tokens);
    await handle.sql`update tokens t set next_refresh_at = now() - interval '2 hours'
      from (select chain_id, address from tokens order by address limit ${tracked}) s where t.chain_id = s.chain_id and t.address = s.address`;
    const [count] = await handle.sql<{ n: number }[]>`select count(*)::int as n from tokens where next_refresh_at is not null`;
    const n = count!.n;
    await handle.sql`analyze tokens`;
    const before = await prefixMemory(connection, prefix);
    const started = performance.now();
    const result = await scheduler.tick(Date.now());
    const ms = performance.now() - started;
    const after = await prefixMemory(connection, prefix);
    progress(`scale: fan-out of ${result.enqueued} due tokens in ${round(ms, 0)} ms, Redis ${mib(after.bytes - before.bytes)} MiB`);
    return [
      { suite: SUITE, metric: `refresh fan-out tick at ${n} tracked tokens`, value: round(ms / 1000, 2), unit: 's', baseline: { metric: 'refresh interval', value: 60, ratio: ms / 60_000 }, note: `${result.enqueued} dex jobs enqueued in pages of 1,000` },
      { suite: SUITE, metric: `Redis memory of one fan-out at ${n} tracked tokens`, value: mib(after.bytes - before.bytes), unit: 'MiB', note: `${after.keys - before.keys} keys; ${round((after.bytes - before.bytes) / Math.max(1, result.enqueued), 0)} B per waiting job (MEMORY USAGE under the run's prefix)` },
    ];
  } finally {
    await scheduler.close();
    await producer.close();
    workerConnection.disconnect();
  }
}
