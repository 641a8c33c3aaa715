import { createApp } from '../../api/app.ts';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createRedis } from '../../infra/redis.ts';
import { createProAccount } from '../../test/support/accounts.ts';
import { closeServer, listen, testAppDeps } from '../../test/support/api.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * Export benchmark: `GET /api/pro/export` (NDJSON) of every token through the whole API role,
 * and the heap it needs while streaming, against the same rows read into memory at once (the list
 * query with the limit raised to all of them), in the same run and process.
 */

const SUITE = 'export';
const CHAIN_ID = 31337;
const SAMPLE_MS = 20;
/** With --expose-gc, a full collection before each of these samples: retained memory, not garbage. */
const GC_SAMPLE_MS = 250;
const LIMITS = { requestsPerMinute: 1_000, requestsPerHour: 1_000, requestsPerDay: 1_000 };

/** Peak heap growth over the baseline while `work` runs, sampled every SAMPLE_MS. */
async function peakHeap<T>(work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const collect = global.gc;
  const timer = setInterval(
    () => {
      collect?.();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    },
    collect ? GC_SAMPLE_MS : SAMPLE_MS,
  );
  try {
    const result = await work();
    // Without --expose-gc the figure includes garbage not yet collected.
    if (!collect) peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { result, peakMb: (peak - before) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export async function exportThroughput(options: { tokens: number }): Promise<BenchRow[]> {
  const [database, redisInfo] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const handle = createDb(database.url, { max: 4 });
  const redis = createRedis(redisInfo.url, 'commands');
  let server: Awaited<ReturnType<typeof listen>>['server'] | undefined;
  try {
    progress(`export: seeding ${options.tokens} tokens`);
    await handle.sql`insert into tokens (chain_id, address, name, symbol, decimals, total_supply, detection_source,
      current_risk_score, current_risk_level, current_liquidity_usd)
      select ${CHAIN_ID}, '0x' || lpad(to_hex(n), 40, '0'), 'Token ' || n, 'T' || n, 18, 1000000, 'receipt',
        n % 100, 'low', n * 1.5 from generate_series(1, ${options.tokens}) n`;
    const key = await createProAccount(createAccountRepository(handle.db), {
      email: 'bench@example.com',
      keyName: 'bench',
      limits: LIMITS,
    });
    const app = createApp({
      ...testAppDeps({
        db: handle.db,
        redis,
        prefix: redisInfo.prefix,
        knownChainIds: new Set([CHAIN_ID]),
      }),
      validateResponses: false,
    });
    const started = await listen(app);
    server = started.server;

    progress('export: streaming NDJSON');
    const streamed = await peakHeap(async () => {
      const t0 = performance.now();
      const response = await fetch(`${started.base}/api/pro/export?chain_ids=${CHAIN_ID}`, {
        headers: { 'x-api-key': key.apiKey },
      });
      let lines = 0;
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        for (const c of decoder.decode(chunk, { stream: true })) if (c === '\n') lines += 1;
      }
      return { lines, seconds: (performance.now() - t0) / 1000 };
    });
    if (streamed.result.lines !== options.tokens)
      throw new Error(`export streamed ${streamed.result.lines} of ${options.tokens} rows`);

    progress('export: the same rows read at once');
    const tokens = createTokenRepository(handle.db);
    const atOnce = await peakHeap(async () => {
      const { items } = await tokens.list({ chainIds: [CHAIN_ID], page: 1, limit: options.tokens });
      return items.map((row) => JSON.stringify(row)).length;
    });
    const rowsPerSecond = streamed.result.lines / streamed.result.seconds;
    return [
      {
        suite: SUITE,
        metric: `GET /api/pro/export NDJSON, ${options.tokens} tokens`,
        value: round(rowsPerSecond, 0),
        unit: 'rows/s',
      },
      {
        suite: SUITE,
        metric: `export peak heap growth, ${options.tokens} tokens`,
        value: round(streamed.peakMb, 1),
        unit: 'MB',
        baseline: {
          metric: 'the same rows read at once',
          value: round(atOnce.peakMb, 1),
          ratio: streamed.peakMb / atOnce.peakMb,
        },
        note: 'server and client in one process; cursor batches of 500 rows',
      },
    ];
  } finally {
    await closeServer(server);
    redis.disconnect();
    await handle.close();
    await Promise.all([database.drop(), redisInfo.cleanup()]);
  }
}
