import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createAlertRepository } from '../db/repositories/alerts.ts';
import { createHistoryRepository } from '../db/repositories/history.ts';
import {
  createAnalysisThreads,
  DEFAULT_ANALYSIS_THREADS,
} from '../infra/analysis-threads/index.ts';
import { bumpAuthGeneration } from '../infra/auth-generation.ts';
import { createRedis } from '../infra/redis.ts';
import { createAggregatorClient } from '../src/dex/aggregator.ts';
import { createAccountsProcessor } from '../workers/accounts/index.ts';
import {
  type AlertsConsumer,
  DEFAULT_ALERT_EMAIL_FROM,
  startAlertsConsumer,
} from '../workers/alerts.ts';
import { createBytecodeProcessor } from '../workers/bytecode.ts';
import { analysisRuntimes } from '../workers/chain-runtime.ts';
import {
  checkDexFactories,
  createDexProcessor,
  type DexScheduler,
  startDexScheduler,
} from '../workers/dex/index.ts';
import {
  type HistoryMaintenance,
  startHistoryMaintenance,
} from '../workers/history-maintenance.ts';
import { buildHoldersReport } from '../workers/holders-report.ts';
import { ACCOUNTS_SCHEDULER, jobCatalog, type QueueName } from '../workers/jobs.ts';
import { chainStages } from '../workers/pipeline.ts';
import { startWorkers, type WorkerPool } from '../workers/queues.ts';
import { createReplayProcessor } from '../workers/replay/index.ts';
import { createLiquidityInput, createRiskProcessor } from '../workers/risk.ts';
import { createDetectProcessor, createScanner, type Scanner } from '../workers/scan/index.ts';
import { createSelectorsProcessor } from '../workers/selectors.ts';
import { createSimulateProcessor } from '../workers/simulate.ts';
import type { Shared } from './service-shared.ts';

/**
 * The worker, scanner and scheduler roles of app/service.ts, each started on the shared
 * connections and repositories.
 */

/** Default of DEX_IDLE_AFTER_MINUTES when a caller sets nothing. */
const DEFAULT_DEX_IDLE_AFTER_MS = 6 * 3_600_000;

function createDexStage(s: Shared) {
  const { dexOptions } = s;
  return createDexProcessor({
    chains: analysisRuntimes(s.chains),
    dex: s.dexRepo,
    producer: s.producer,
    events: s.events,
    logger: s.logger,
    onLiquidityPulled: (chainId, address) => s.creators.recordLiquidityPulled(chainId, address),
    idleAfterMs: dexOptions.idleAfterMs ?? DEFAULT_DEX_IDLE_AFTER_MS,
    intervalMs: dexOptions.intervalMs,
    multicall: dexOptions.multicall,
    holders: s.holders,
    aggregator: dexOptions.aggregatorUrl
      ? createAggregatorClient({
          baseUrl: dexOptions.aggregatorUrl,
          requestsPerMinute: dexOptions.aggregatorRequestsPerMinute,
        })
      : undefined,
  });
}

/**
 * A detection job that tells other processes' analysis it runs (infra/detection-signal.ts), so that
 * their requests leave the node to it.
 */
function whileDetecting<D extends { chainId: number }, R>(
  s: Shared,
  process: (data: D) => Promise<R>,
): (data: D) => Promise<R> {
  const signal = s.detectionSignal;
  if (!signal) return process;
  return async (data) => {
    signal.begin(data.chainId);
    try {
      return await process(data);
    } finally {
      signal.end(data.chainId);
    }
  };
}

export function startStageWorkers(
  s: Shared,
  connection: ReturnType<typeof createRedis>,
): WorkerPool {
  const { chains, tokens, producer, events, logger, analyses, commandRedis, keys, metrics } = s;
  // Advisory and in the background: a slow node must not hold up the start.
  void checkDexFactories(chains, logger).catch((error: unknown) =>
    logger.warn({ err: error }, 'DEX factory check failed'),
  );
  // Detection (and the bytecode read that ends it) on the chains' first lane; the analysis stages
  // on the second (chain-runtime.ts).
  const analysisChains = analysisRuntimes(chains);
  // What the live detect stage and the replay share (workers/replay runs the detect stage's code).
  const detection = {
    chains,
    tokens,
    producer,
    events,
    logger,
    dex: s.dexRepo,
    onChanged: s.tokenChanged,
  };
  const processDetect = createDetectProcessor({ ...detection, holders: s.holders });
  // Simulate and risk run in the job that routes to them (workers/pipeline.ts chainStages).
  const risk = createRiskProcessor({
    chains: analysisChains,
    analyses,
    events,
    logger,
    producer,
    onChanged: s.tokenChanged,
    liquidity: createLiquidityInput(tokens),
    holdersReport: async (chain, token) =>
      buildHoldersReport(
        s.holders,
        chain.config,
        token,
        await s.dexRepo.pairsOf(token.chainId, token.address),
      ),
  });
  const simulate = createSimulateProcessor({
    chains: analysisChains,
    analyses,
    producer: chainStages(producer, { risk }),
    logger,
    holders: s.holders,
    pairsOf: s.dexRepo.pairsOf,
  });
  const taken = s.options.workerQueues ? new Set<QueueName>(s.options.workerQueues) : undefined;
  const threadCount = s.options.analysisThreads ?? DEFAULT_ANALYSIS_THREADS;
  const threads =
    threadCount > 0 && (!taken || taken.has('selectors'))
      ? createAnalysisThreads({ threads: threadCount, logger })
      : undefined;
  const selectors = createSelectorsProcessor({
    chains: analysisChains,
    analyses,
    producer: chainStages(producer, { simulate }),
    logger,
    ...(threads ? { analyze: threads.analyze } : {}),
  });
  const workers = startWorkers({
    connection,
    prefix: keys.prefix,
    logger,
    only: taken,
    onJobDone: (queue, status, seconds) =>
      metrics.stageDuration.observe({ queue, status }, seconds),
    processors: {
      detect: whileDetecting(s, processDetect),
      replay: whileDetecting(s, createReplayProcessor({ ...detection, replayHolders: s.holders })),
      bytecode: createBytecodeProcessor({
        // The code read and hashed at once: the end of detection, on its lane (a catch-up is back
        // at the head when every token has its code).
        chains,
        tokens,
        producer,
        logger,
        onChanged: s.tokenChanged,
      }),
      // As jobs of their own they start with no state (the second argument is not the BullMQ job).
      selectors: (data) => selectors(data),
      simulate: (data) => simulate(data),
      risk: (data) => risk(data),
      accounts: createAccountsProcessor({
        accounts: s.accounts,
        logger,
        onPlansChanged: () => bumpAuthGeneration(commandRedis, keys.prefix),
        clock: s.clock,
        notices: {
          mailer: s.mailer,
          from: s.options.alertEmailFrom ?? DEFAULT_ALERT_EMAIL_FROM,
        },
      }),
      dex: createDexStage(s),
    },
  });
  return {
    workers: workers.workers,
    // The threads after the workers: an analysis still running when the drain deadline passed
    // fails with its thread, its job already handed back.
    close: async (deadlineMs) => {
      await workers.close(deadlineMs);
      await threads?.close();
    },
  };
}

/** The alerts consumer (workers/alerts.ts) runs with the worker role, on a connection of its own. */
export async function startAlerts(s: Shared) {
  const { options } = s;
  const alertsRedis = createRedis(options.redisUrl, 'worker');
  const alertsConsumer: AlertsConsumer = await startAlertsConsumer({
    redis: alertsRedis,
    streamKey: s.keys.events,
    prefix: s.keys.prefix,
    alerts: createAlertRepository(s.db),
    events: s.events,
    logger: s.logger,
    mailer: s.mailer,
    from: options.alertEmailFrom,
    claimIdleMs: options.alertsClaimIdleMs,
  });
  return { alertsRedis, alertsConsumer };
}

export function startScanners(s: Shared): Scanner[] {
  const scanners: Scanner[] = [];
  const holderId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  for (const chain of s.chains.values()) {
    const label = { chain: String(chain.config.chainId) };
    const scanner = createScanner({
      chain,
      scan: s.scan,
      producer: s.producer,
      redis: s.commandRedis,
      events: s.events,
      leaseKey: s.keys.lease(`scanner:${chain.config.chainId}`),
      holderId,
      logger: s.logger,
      onLag: (blocks) => s.metrics.scannerLag.set(label, blocks),
      onReorg: () => s.metrics.reorgs.inc(label),
      holders: s.holders,
    });
    scanner.start();
    scanners.push(scanner);
  }
  return scanners;
}

export async function startSchedulers(s: Shared) {
  const { producer, logger } = s;
  const historyMaintenance: HistoryMaintenance = startHistoryMaintenance({
    history: createHistoryRepository(s.db),
    logger,
  });
  const schedulerConnection = createRedis(s.options.redisUrl, 'worker');
  const dexScheduler: DexScheduler = await startDexScheduler({
    workerConnection: schedulerConnection,
    producerConnection: s.producerConnection,
    prefix: s.keys.prefix,
    dex: s.dexRepo,
    producer,
    chainIds: [...s.chains.keys()],
    logger,
    intervalMs: s.dexOptions.intervalMs,
    dueForResimulation: (chainId, before, limit) =>
      s.analyses.dueForResimulation(chainId, before, limit),
    dueForHolderSells: (chainId, before, limit) =>
      s.analyses.dueForHolderSells(chainId, before, limit),
  });
  // A job scheduler, not a legacy repeatable job: upserting is idempotent across restarts and instances.
  await producer.queue('accounts').upsertJobScheduler(
    ACCOUNTS_SCHEDULER.id,
    { every: ACCOUNTS_SCHEDULER.everyMs },
    {
      name: 'accounts',
      data: ACCOUNTS_SCHEDULER.data,
      opts: jobCatalog.accounts.options,
    },
  );
  logger.info(
    { scheduler: ACCOUNTS_SCHEDULER.id, every_ms: ACCOUNTS_SCHEDULER.everyMs },
    'account maintenance scheduled',
  );
  return { dexScheduler, schedulerConnection, historyMaintenance };
}
