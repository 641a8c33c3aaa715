import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import type { EventPublisher } from '../infra/events.ts';
import { bumpTokenVersion } from '../infra/token-cache.ts';
import { tokenCreatedData } from '../src/events/types.ts';
import { probeContract } from '../src/evm/probe.ts';
import type { ChainRuntime } from './chain-runtime.ts';
import { startPasses } from './pipeline.ts';
import type { Producer } from './queues.ts';

/**
 * Runs one contract through the pipeline now (docs/api.md refresh, docs/operations.md analyze). A known token gets
 * a fresh pass from the bytecode stage; an unknown address is probed first: no code, no token
 * (or a DEX pair's LP token) is "not found"; a token is recorded with null creation data
 * (detection_source 'submitted'), announced like a detected one, and sent through every stage.
 */

/** The log message of every refusal; its fields say why (docs/risk-model.md). */
const REFUSED = 'submitted contract refused: not a token';

export type SubmitResult =
  | { status: 'queued'; known: boolean; jobId: string }
  | { status: 'not-found'; reason: string };

export interface SubmitDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  tokens: TokenRepository;
  producer: Producer;
  events: EventPublisher;
  redis: Redis;
  redisPrefix: string;
  clock?: () => Date;
  /** Each refusal is logged with the surface call that failed (docs/risk-model.md). */
  logger?: Logger;
}

export function createSubmitter(deps: SubmitDeps) {
  const clock = deps.clock ?? (() => new Date());
  return async function submit(chainId: number, address: string): Promise<SubmitResult> {
    const known = await deps.tokens.get(chainId, address);
    if (known) {
      // Its own run key: a retained job of an earlier pass does not swallow this one.
      const [jobId] = await startPasses(deps.producer, 'bytecode', [{ chainId, address }], {
        kind: 'reanalysis',
        atMs: clock().getTime(),
      });
      return { status: 'queued', known: true, jobId: jobId! };
    }
    const chain = deps.chains.get(chainId);
    // A built-in chain without an RPC endpoint: nothing can be probed, so the token stays unknown.
    if (!chain)
      return { status: 'not-found', reason: `chain ${chainId} has no RPC endpoint configured` };
    const code = await chain.reader.code(address, 'latest');
    if (code === '0x') {
      const reason = 'no contract code at this address';
      deps.logger?.info({ chain: chainId, address, missing: 'code', reason }, REFUSED);
      return { status: 'not-found', reason };
    }
    const probe = await probeContract(chain.rpc, address, 'latest');
    if (probe.kind !== 'token') {
      const reason = probe.kind === 'pair' ? 'a DEX pair, not a token' : probe.reason;
      const missing = probe.kind === 'pair' ? null : probe.missing;
      deps.logger?.info({ chain: chainId, address, missing, reason }, REFUSED);
      return { status: 'not-found', reason };
    }
    const { row, announced } = await deps.tokens.upsertSubmitted({
      chainId,
      address,
      name: probe.name,
      symbol: probe.symbol,
      decimals: probe.decimals,
      totalSupply: probe.totalSupply,
    });
    // Announce before marking, once, as in the detect stage.
    if (!announced) {
      await deps.events.publish(
        { type: 'token.created', data: tokenCreatedData(row) },
        { onceKey: `created:${chainId}:${address}:submitted` },
      );
      await deps.tokens.markAnnounced(chainId, [address]);
    }
    await bumpTokenVersion(deps.redis, deps.redisPrefix, { chainId, address });
    const [jobId] = await startPasses(deps.producer, 'bytecode', [{ chainId, address }], {
      kind: 'detected',
    });
    return { status: 'queued', known: false, jobId: jobId! };
  };
}

export type Submitter = ReturnType<typeof createSubmitter>;
