import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ChainConfig } from '../src/config/chains.ts';
import { createChainReader } from '../src/evm/chain-reader.ts';
import { createRpcClient } from '../src/evm/rpc.ts';
import { createDb } from '../db/client.ts';
import { createAnalysisRepository } from '../db/repositories/analyses.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { createScanRepository } from '../db/repositories/scan.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { createEventPublisher } from '../infra/events.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { createApp } from '../api/app.ts';
import { createBroadcaster, type Broadcaster } from '../api/ws.ts';
import { createBytecodeProcessor } from '../workers/bytecode.ts';
import { createDetectProcessor, type ChainRuntime } from '../workers/detect.ts';
import { createRiskProcessor } from '../workers/risk.ts';
import { createSelectorsProcessor } from '../workers/selectors.ts';
import { createResimulate, createSimulateProcessor, type ResimulateReason } from '../workers/simulate.ts';
import { createProducer } from '../workers/queues.ts';
import { startWorkers, type WorkerPool } from '../workers/queues.ts';
import { createScanner, type Scanner } from '../workers/scanner.ts';

/**
 * Assembles the roles of one process (DESIGN §2): api, worker, scanner, scheduler, or all.
 * The same code serves every role; `stop` shuts them down in dependency order.
 */

export const ROLES = ['api', 'worker', 'scanner', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

export interface ServiceOptions {
  roles: ReadonlySet<Role>;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  chains: ChainConfig[];
  knownChainIds: ReadonlySet<number>;
  port: number;
  host: string;
  logger: Logger;
  /** Database pool size; keep it within an embedded PGlite's connection slots. */
  poolMax?: number;
  workerDrainDeadlineMs?: number;
}

export interface Service {
  /** The API's base URL when the api role runs. */
  url?: string;
  port?: number;
  chains: ReadonlyMap<number, ChainRuntime>;
  scanners: Scanner[];
  /** Runs simulate → risk again for a token under a new run key (first liquidity, refresh). */
  resimulate(chainId: number, address: string, reason: ResimulateReason): Promise<string>;
  stop(): Promise<void>;
}

export function createChainRuntimes(chains: ChainConfig[], logger: Logger): Map<number, ChainRuntime> {
  return new Map(chains.map((config) => {
    const rpc = createRpcClient({ urls: config.rpcUrls, logger: logger.child({ chain: config.chainId }) });
    return [config.chainId, { config, rpc, reader: createChainReader(rpc) }];
  }));
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { logger, roles } = options;
  const keys = keySpace(options.redisPrefix);
  const { db, sql, close: closeDb } = createDb(options.databaseUrl, { max: options.poolMax });
  const general = createRedis(options.redisUrl, 'general');
  const producerConnection = createRedis(options.redisUrl, 'producer');
  const workerConnection = roles.has('worker') ? createRedis(options.redisUrl, 'worker') : undefined;
  const producer = createProducer(producerConnection, keys.prefix);
  const tokens = createTokenRepository(db);
  const analyses = createAnalysisRepository(db);
  const creators = createCreatorRepository(db);
  const scan = createScanRepository(db);
  const events = createEventPublisher(general, keys.events);
  const chains = createChainRuntimes(options.chains, logger);

  let pool: WorkerPool | undefined;
  if (workerConnection) {
    pool = startWorkers({
      connection: workerConnection,
      prefix: keys.prefix,
      logger,
      processors: {
        detect: createDetectProcessor({ chains, tokens, producer, events, logger }),
        bytecode: createBytecodeProcessor({ chains, tokens, producer, logger }),
        selectors: createSelectorsProcessor({ chains, analyses, producer, logger }),
        simulate: createSimulateProcessor({ chains, analyses, tokens, producer, logger }),
        risk: createRiskProcessor({ chains, analyses, tokens, creators, events, logger }),
      },
    });
  }

  const scanners: Scanner[] = [];
  if (roles.has('scanner')) {
    const holderId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    for (const chain of chains.values()) {
      const scanner = createScanner({ chain, scan, producer, redis: general, leaseKey: keys.lease(`scanner:${chain.config.chainId}`), holderId, logger });
      scanner.start();
      scanners.push(scanner);
    }
  }

  let server: Server | undefined;
  let broadcaster: Broadcaster | undefined;
  let tailRedis: ReturnType<typeof createRedis> | undefined;
  let port: number | undefined;
  if (roles.has('api')) {
    const app = createApp({
      tokens,
      knownChainIds: options.knownChainIds,
      logger,
      readiness: [
        { name: 'postgres', check: async () => void (await sql`select 1`) },
        { name: 'redis', check: async () => void (await general.ping()) },
        { name: 'queues', check: async () => void (await producer.queue('detect').getJobCounts('waiting')) },
      ],
    });
    server = createServer(app);
    tailRedis = createRedis(options.redisUrl, 'worker');
    broadcaster = createBroadcaster({ server, redis: general, tailRedis, streamKey: keys.events, logger });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(options.port, options.host, () => resolve());
    });
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : options.port;
  }
  if (roles.has('scheduler')) logger.debug('scheduler role: no scheduled jobs in this version');

  const displayHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: port === undefined ? undefined : `http://${displayHost}:${port}`,
    port,
    chains,
    scanners,
    resimulate: createResimulate(producer),
    async stop() {
      // Order matters: no new blocks, then no new jobs, then no clients, then the pools.
      await Promise.all(scanners.map((s) => s.stop()));
      await pool?.close(options.workerDrainDeadlineMs);
      await broadcaster?.close();
      if (server) {
        server.closeIdleConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
      await producer.close();
      for (const connection of [general, producerConnection, workerConnection, tailRedis]) {
        connection?.disconnect();
      }
      await closeDb();
    },
  };
}
