import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import type { DetectionSignal } from '../infra/detection-signal.ts';
import { type Metrics, rpcMethodLabel } from '../infra/metrics.ts';
import { createEndpointPool, createRpcClient, type RpcPriority } from '../infra/rpc/index.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import { type ChainReader, createChainReader } from '../src/evm/chain-reader.ts';
import type { RpcClient } from '../src/evm/rpc.ts';

/**
 * A configured chain as the workers use it: its configuration, its JSON-RPC client and the
 * block/receipt/trace reader over that client. One per chain per process.
 *
 * Two lanes share the chain's endpoints (one concurrency limit per node): `rpc` and `reader` are
 * detection's (the scanner, detect, and the bytecode read that ends it), served first when the
 * node is busy; `analysis` is the analysis stages' (selectors to DEX), served with what detection
 * leaves. A burst of tokens whose analysis cannot keep up then slows analysis, not the blocks and
 * their `token.created` (docs/scale.md, back-pressure). With a detection signal, detection in
 * another process counts as well (infra/detection-signal.ts).
 */

export interface ChainLane {
  rpc: RpcClient;
  reader: ChainReader;
}

export interface ChainRuntime extends ChainLane {
  config: ChainConfig;
  /** The analysis stages' lane; runtimes built by hand (tests) have one lane for everything. */
  analysis?: ChainLane;
}

export function createChainRuntimes(
  chains: ChainConfig[],
  logger: Logger,
  metrics?: Metrics,
  signal?: Pick<DetectionSignal, 'othersDetecting' | 'onIdle'>,
): Map<number, ChainRuntime> {
  return new Map(
    chains.map((config) => {
      const chain = String(config.chainId);
      const endpoints = createEndpointPool(config.rpcUrls, {
        othersDetecting: signal ? () => signal.othersDetecting(config.chainId) : undefined,
      });
      signal?.onIdle(config.chainId, () => endpoints.recheck());
      const lane = (priority: RpcPriority): ChainLane => {
        const rpc = createRpcClient({
          urls: config.rpcUrls,
          endpoints,
          priority,
          timeoutMs: config.rpcTimeoutMs,
          logger: logger.child({ chain: config.chainId }),
          onCall: metrics
            ? ({ method, methods, errorKind }) => {
                metrics.rpcCalls.inc({
                  chain,
                  method: rpcMethodLabel(method),
                  outcome: errorKind ?? 'ok',
                });
                for (const m of methods) metrics.rpcRequests.inc({ chain, method: m });
              }
            : undefined,
        });
        return { rpc, reader: createChainReader(rpc) };
      };
      return [config.chainId, { config, ...lane('high'), analysis: lane('normal') }];
    }),
  );
}

/** The same chains as the analysis stages see them: their lane as `rpc` and `reader`. */
export function analysisRuntimes(
  chains: ReadonlyMap<number, ChainRuntime>,
): Map<number, ChainRuntime> {
  return new Map(
    [...chains].map(([id, chain]) => [id, { ...chain, ...(chain.analysis ?? {}) }] as const),
  );
}

/**
 * A job for a chain this worker has no RPC endpoint for. Retrying cannot help (the configuration
 * does not change while the process runs), so BullMQ fails it at once instead of 6–12 attempts.
 */
export class ChainNotConfiguredError extends UnrecoverableError {
  constructor(readonly chainId: number) {
    super(`chain ${chainId} is not configured in this worker`);
    this.name = 'ChainNotConfiguredError';
  }
}

/** The runtime of `chainId`, or an unrecoverable failure of the job. */
export function chainOf(chains: ReadonlyMap<number, ChainRuntime>, chainId: number): ChainRuntime {
  const chain = chains.get(chainId);
  if (!chain) throw new ChainNotConfiguredError(chainId);
  return chain;
}
