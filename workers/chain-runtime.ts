import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { type Metrics, rpcMethodLabel } from '../infra/metrics.ts';
import { createRpcClient } from '../infra/rpc/index.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import { type ChainReader, createChainReader } from '../src/evm/chain-reader.ts';
import type { RpcClient } from '../src/evm/rpc.ts';

/**
 * A configured chain as the workers use it: its configuration, its JSON-RPC client and the
 * block/receipt/trace reader over that client. One per chain per process.
 */

export interface ChainRuntime {
  config: ChainConfig;
  rpc: RpcClient;
  reader: ChainReader;
}

export function createChainRuntimes(
  chains: ChainConfig[],
  logger: Logger,
  metrics?: Metrics,
): Map<number, ChainRuntime> {
  return new Map(
    chains.map((config) => {
      const chain = String(config.chainId);
      const rpc = createRpcClient({
        urls: config.rpcUrls,
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
      return [config.chainId, { config, rpc, reader: createChainReader(rpc) }];
    }),
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
