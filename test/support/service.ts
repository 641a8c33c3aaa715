import { join } from 'node:path';
import { pino } from 'pino';
import { type Role, type Service, type ServiceOptions, startService } from '../../app/service.ts';
import { loggerOptions, silentLogger } from '../../infra/logger.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import type { TestDatabase, TestRedis } from './services.ts';

/**
 * The real service (app/service.ts) with the given roles on a test's own database, Redis prefix
 * and chain, listening on a free loopback port. Options a test needs beyond that override these.
 */

/** Pool size on a real Postgres; an embedded PGlite serves one connection at a time. */
const TEST_POOL_MAX = 4;
/** Benchmarks measure a worker's throughput, so they give it a production-sized pool. */
export const BENCH_POOL_MAX = 10;

export interface TestServiceOptions extends Partial<Omit<ServiceOptions, 'roles'>> {
  roles: Role[];
  database: TestDatabase;
  redis: TestRedis;
  chain: ChainConfig;
}

/**
 * Silent unless TEST_SERVICE_LOG_DIR names a folder: then each test service writes its log there
 * (TEST_SERVICE_LOG_LEVEL, default debug), to read why a flaky test waited in vain.
 */
function testLogger() {
  const dir = process.env.TEST_SERVICE_LOG_DIR;
  if (!dir) return silentLogger;
  const file = join(dir, `service-${process.pid}-${Date.now()}.log`);
  return pino(
    loggerOptions(process.env.TEST_SERVICE_LOG_LEVEL ?? 'debug', 'test-service'),
    pino.destination({ dest: file, mkdir: true, sync: true }),
  );
}

export function startTestService(options: TestServiceOptions): Promise<Service> {
  const { roles, database, redis, chain, ...overrides } = options;
  return startService({
    roles: new Set(roles),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [chain],
    knownChainIds: new Set([chain.chainId]),
    port: 0,
    host: '127.0.0.1',
    logger: testLogger(),
    poolMax: database.embedded ? 1 : TEST_POOL_MAX,
    ...overrides,
  });
}
