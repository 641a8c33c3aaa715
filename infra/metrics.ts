import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { queueBacklog } from './queue-backlog.ts';

/**
 * Prometheus metrics (served at /metrics). One registry per process; queue gauges are read from
 * Redis at scrape time, so any API instance reports the depth of the shared queues.
 */

const STAGE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

export interface Metrics {
  registry: Registry;
  stageDuration: Histogram<'queue' | 'status'>;
  rpcCalls: Counter<'chain' | 'method' | 'outcome'>;
  /** Every JSON-RPC request, a batch's entries one by one: what providers bill. */
  rpcRequests: Counter<'chain' | 'method'>;
  scannerLag: Gauge<'chain'>;
  reorgs: Counter<'chain'>;
  wsConnections: Gauge;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Reports these queues' depth and oldest-waiting-job age at each scrape. */
  watchQueues(queues: Queue[]): void;
  /** Reads the WebSocket client count at each scrape. */
  watchWebSocket(count: () => number): void;
}

/** "batch(eth_call…×8)" → "batch:eth_call": bounded label values. */
export function rpcMethodLabel(label: string): string {
  const batch = /^batch\(([^…)]+)/.exec(label);
  return batch ? `batch:${batch[1]}` : label;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, prefix: 'tm_process_' });
  let queues: Queue[] = [];
  let wsCount: () => number = () => 0;

  new Gauge({
    name: 'tm_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (q) => {
          const counts = await q.getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  new Gauge({
    name: 'tm_queue_oldest_waiting_seconds',
    help: 'Age of the oldest waiting job per queue (plain and prioritized waiting jobs)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (q) => {
          this.set({ queue: q.name }, (await queueBacklog(q)).oldestWaitingSeconds);
        }),
      );
    },
  });
  const wsConnections = new Gauge({
    name: 'tm_ws_connections',
    help: 'Open WebSocket connections on this instance',
    registers: [registry],
    collect() {
      this.set(wsCount());
    },
  });

  return {
    registry,
    stageDuration: new Histogram({
      name: 'tm_stage_duration_seconds',
      help: 'Job processing time per stage',
      labelNames: ['queue', 'status'],
      buckets: STAGE_BUCKETS,
      registers: [registry],
    }),
    rpcCalls: new Counter({
      name: 'tm_rpc_calls_total',
      help: 'RPC round trips per chain, method and outcome (ok or error kind)',
      labelNames: ['chain', 'method', 'outcome'],
      registers: [registry],
    }),
    rpcRequests: new Counter({
      name: 'tm_rpc_requests_total',
      help: 'JSON-RPC requests per chain and method, each entry of a batch counted (providers bill per request)',
      labelNames: ['chain', 'method'],
      registers: [registry],
    }),
    scannerLag: new Gauge({
      name: 'tm_scanner_lag_blocks',
      help: 'Blocks between the chain head and the scanner cursor',
      labelNames: ['chain'],
      registers: [registry],
    }),
    reorgs: new Counter({
      name: 'tm_reorgs_total',
      help: 'Reorgs handled per chain',
      labelNames: ['chain'],
      registers: [registry],
    }),
    wsConnections,
    httpDuration: new Histogram({
      name: 'tm_http_request_duration_seconds',
      help: 'HTTP latency per route',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    watchQueues(list) {
      queues = list;
    },
    watchWebSocket(count) {
      wsCount = count;
    },
  };
}
