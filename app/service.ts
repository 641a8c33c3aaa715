import type { Metrics } from '../infra/metrics.ts';
import type { ChainRuntime } from '../workers/chain-runtime.ts';
import type { WorkerPool } from '../workers/queues.ts';
import type { Scanner } from '../workers/scan/index.ts';
import { createResimulate, type ResimulateReason } from '../workers/simulate.ts';
import { ensureOwnNamespace } from './namespace.ts';
import { startApi } from './service-api.ts';
import { startAlerts, startScanners, startSchedulers, startStageWorkers } from './service-roles.ts';
import { openShared, type ServiceOptions, type Shared } from './service-shared.ts';

/**
 * Assembles the roles of one process (docs/architecture.md): api, worker, scanner, scheduler, or all.
 * The same code serves every role; `stop` shuts them down in dependency order.
 */

export { ROLES, type Role, type ServiceOptions } from './service-shared.ts';

export interface Service {
  /** The API's base URL when the api role runs. */
  url?: string;
  port?: number;
  chains: ReadonlyMap<number, ChainRuntime>;
  scanners: Scanner[];
  metrics: Metrics;
  /** Runs simulate → risk again for a token under a new run key (first liquidity, refresh). */
  resimulate(chainId: number, address: string, reason: ResimulateReason): Promise<string>;
  stop(): Promise<void>;
}

interface RunningRoles {
  scanners: Scanner[];
  pool?: WorkerPool;
  alerts?: Awaited<ReturnType<typeof startAlerts>>;
  api?: Awaited<ReturnType<typeof startApi>>;
  schedulers?: Awaited<ReturnType<typeof startSchedulers>>;
}

/** Order matters: no new blocks, then no new jobs, then no clients, then the pools. */
async function stopRoles(s: Shared, running: RunningRoles) {
  const { pool, alerts, api, schedulers } = running;
  await Promise.all(running.scanners.map((scanner) => scanner.stop()));
  await schedulers?.dexScheduler.close();
  await schedulers?.historyMaintenance.close();
  await pool?.close(s.options.workerDrainDeadlineMs);
  await alerts?.alertsConsumer.stop();
  s.mailer?.close();
  await api?.broadcaster.close();
  await api?.usage.stop();
  if (api) {
    api.server.closeIdleConnections();
    await new Promise<void>((resolve) => api.server.close(() => resolve()));
  }
  await s.producer.close();
  await s.detectionSignal?.close();
  const connections = [
    s.commandRedis,
    s.producerConnection,
    s.workerConnection,
    api?.tailRedis,
    schedulers?.schedulerConnection,
    api?.apiRedis,
    alerts?.alertsRedis,
  ];
  for (const connection of connections) connection?.disconnect();
  await s.closeDb();
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { roles } = options;
  const shared = openShared(options);
  try {
    await ensureOwnNamespace(shared.db, shared.commandRedis, shared.keys, {
      database: options.databaseUrl,
      redis: options.redisUrl,
    });
  } catch (error) {
    await stopRoles(shared, { scanners: [] });
    throw error;
  }
  const { workerConnection } = shared;
  const pool = workerConnection ? startStageWorkers(shared, workerConnection) : undefined;
  const alerts = workerConnection ? await startAlerts(shared) : undefined;
  const scanners = roles.has('scanner') ? startScanners(shared) : [];
  const api = roles.has('api') ? await startApi(shared) : undefined;
  const schedulers = roles.has('scheduler') ? await startSchedulers(shared) : undefined;
  const running: RunningRoles = { scanners, pool, alerts, api, schedulers };

  const port = api?.port;
  const displayHost =
    options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: port === undefined ? undefined : `http://${displayHost}:${port}`,
    port,
    chains: shared.chains,
    scanners,
    metrics: shared.metrics,
    resimulate: createResimulate(shared.producer),
    stop: () => stopRoles(shared, running),
  };
}
