import { and, eq, sql } from 'drizzle-orm';
import { createDb } from '../../db/client.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { tokens } from '../../db/schema.ts';
import { createRedis } from '../../infra/redis.ts';
import { passFor } from '../../src/run-key.ts';
import type { TestChain } from '../../test/support/chain.ts';
import {
  type StatementTally,
  startWireCounter,
  type WireCounts,
} from '../../test/support/protocol/wire-counter.ts';
import { BENCH_POOL_MAX, startTestService } from '../../test/support/service.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import type { CorpusToken } from '../../test/support/token-corpus.ts';
import { createProducer } from '../../workers/queues.ts';
import { progress } from '../report.ts';

/**
 * The analysis pipeline as the worker role runs it (BullMQ, Postgres, Redis), for the analysis
 * and accuracy suites: the tokens recorded as detected, their passes started at the selectors
 * stage, and the wait until every token's stage is risk.
 */

const PIPELINE_TIMEOUT_MS = 30 * 60_000;

export type Row = typeof tokens.$inferSelect;

/** The worker's Postgres and Redis traffic while the passes ran (`countWire`). */
export interface WireTraffic {
  postgres: WireCounts;
  redis: WireCounts;
  /** Postgres round trips and statements per statement text. */
  statements: StatementTally;
}

/** How a corpus token is recorded as detected: what the pipeline and the in-process baseline start from. */
export function detectedAs(chain: TestChain, t: CorpusToken) {
  return {
    chainId: chain.anvil.chainId,
    address: t.address,
    name: t.kind,
    symbol: 'C',
    decimals: 18,
    totalSupply: '0',
    creationTxHash: null,
    creator: chain.account,
    creatorIsContract: false,
    txOrigin: chain.account,
    creationBlockNumber: null,
    creationBlockHash: null,
    creationTimestamp: new Date(),
    creationGasUsed: null,
    detectionSource: 'submitted',
  };
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Records the tokens as detected, enqueues the selectors stage for all, and waits for risk. A
 * detected token's pass goes on to the DEX stage, whose first sight of liquidity simulates and
 * scores the token again (workers/pipeline.ts); `analysisOnly` starts passes that end at risk
 * (the refresh cadence's reason), so that only the analysis stages run: what the in-process
 * baseline does.
 */
export async function runPipeline(
  chain: TestChain,
  corpus: CorpusToken[],
  options: {
    rpcUrl?: string;
    analysisOnly?: boolean;
    countWire?: boolean;
    /** ANALYSIS_THREADS of the worker; absent: 0, the static analysis on the event loop as in the in-process baseline. */
    analysisThreads?: number;
  } = {},
): Promise<{ seconds: number; rows: Map<string, Row>; wire?: WireTraffic }> {
  const { rpcUrl } = options;
  const pass = passFor(
    options.analysisOnly ? { kind: 'scheduled-refresh', bucketMs: 0 } : { kind: 'detected' },
  );
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const db = createDb(database.url, { max: 2 });
  try {
    const repo = createTokenRepository(db.db);
    for (const t of corpus) {
      await repo.upsertDetected(detectedAs(chain, t));
    }
    // Counting proxies in front of Postgres and Redis for the worker only (this function's own
    // polling and enqueueing go around them), reset once the worker has started.
    const counters = options.countWire
      ? await Promise.all([
          startWireCounter(database.url, 'postgres'),
          startWireCounter(redis.url, 'redis'),
        ])
      : undefined;
    const service = await startTestService({
      roles: ['worker'],
      database: counters ? { ...database, url: counters[0].url } : database,
      redis: counters ? { ...redis, url: counters[1].url } : redis,
      chain: chain.chainConfig(rpcUrl ? { rpcUrls: [rpcUrl] } : {}),
      poolMax: database.embedded ? 1 : BENCH_POOL_MAX,
      analysisThreads: options.analysisThreads ?? 0,
    });
    const connection = createRedis(redis.url, 'producer');
    const producer = createProducer(connection, redis.prefix);
    for (const c of counters ?? []) c.reset();
    const started = performance.now();
    await producer.enqueueBulk(
      'selectors',
      corpus.map((t) => ({
        chainId: chain.anvil.chainId,
        address: t.address,
        ...pass,
      })),
    );
    let done = 0;
    let lastReport = 0;
    while (done < corpus.length) {
      if (performance.now() - started > PIPELINE_TIMEOUT_MS)
        throw new Error(`pipeline: ${done}/${corpus.length} after ${PIPELINE_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
      const [row] = await db.db
        .select({ n: sql<number>`count(*)::int` })
        .from(tokens)
        .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.stage, 'risk')));
      done = row?.n ?? 0;
      if (done - lastReport >= 100) {
        lastReport = done;
        progress(`pipeline: ${done}/${corpus.length} tokens through risk`);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const wire = counters && {
      postgres: counters[0].counts(),
      redis: counters[1].counts(),
      statements: counters[0].statements(),
    };
    await service.stop();
    await Promise.all((counters ?? []).map((c) => c.close()));
    await producer.close();
    connection.disconnect();
    const rows = await db.db.select().from(tokens).where(eq(tokens.chainId, chain.anvil.chainId));
    return { seconds, rows: new Map(rows.map((r) => [r.address, r])), ...(wire ? { wire } : {}) };
  } finally {
    await db.close();
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}
