import { UnrecoverableError } from 'bullmq';
import { readBlockRange } from '../src/evm/block-range.ts';
import { fromQuantity } from '../src/evm/rpc.ts';
import type { JobData } from './catalog.ts';
import { chainOf } from './chain-runtime.ts';
import {
  type BlockDeployment,
  blockDeployments,
  createOldContractCache,
  type DetectDeps,
  type RecordedDeployments,
  recordDeployments,
  recordPoolCreations,
} from './detect.ts';
import { routeOutcome } from './pipeline.ts';

/**
 * The replay stage: one job is a range of final blocks. Its headers come in one batch, the
 * receipts and traces of blocks with transactions through a bounded window, and every
 * deployment of the range is probed and recorded by the detect stage's code. The tokens are
 * recorded and announced, not routed: the replay hands them to analysis after the range
 * (workers/replay-handoff.ts), so that analysis trails instead of throttling detection.
 * Idempotent like detection: a retried or repeated range upserts the same rows and announces
 * nothing twice.
 */

/** A job of more blocks than this is refused: one JSON-RPC batch carries every header. */
export const MAX_REPLAY_BATCH = 1_000;

export type ReplayBatchResult = RecordedDeployments & {
  status: 'done';
  blocks: number;
  deployments: number;
  poolsCreated: number;
};

export function createReplayProcessor(deps: DetectDeps) {
  const oldContracts = createOldContractCache();

  return async function processReplay(data: JobData<'replay'>): Promise<ReplayBatchResult> {
    const blocks = data.toBlock - data.fromBlock + 1;
    if (blocks < 1 || blocks > MAX_REPLAY_BATCH)
      throw new UnrecoverableError(
        `replay range ${data.fromBlock}-${data.toBlock}: 1 to ${MAX_REPLAY_BATCH} blocks`,
      );
    const chain = chainOf(deps.chains, data.chainId);
    const log = deps.logger.child({ chain: data.chainId, block: data.fromBlock });
    const fetched = await readBlockRange(chain.rpc, chain.reader, {
      from: data.fromBlock,
      to: data.toBlock,
    });
    const items: BlockDeployment[] = [];
    for (const b of fetched) {
      const block = {
        number: b.number,
        hash: b.hash,
        timestamp: new Date(fromQuantity(b.header.timestamp) * 1000),
      };
      for (const deployment of await blockDeployments(deps, oldContracts, chain, b))
        items.push({ deployment, block });
    }
    const outcome = await recordDeployments(deps, chain, items, log);

    const pools: { blockNumber: number; pooledTokens: string[] }[] = [];
    let poolsCreated = 0;
    if (deps.dex) {
      // After the range's deployments: a token deployed and paired in the range is known by then.
      for (const b of fetched) {
        const created = await recordPoolCreations(deps.dex, chain, b.receipts, b);
        poolsCreated += created.created;
        if (created.pooledTokens.length > 0)
          pools.push({ blockNumber: b.number, pooledTokens: created.pooledTokens });
      }
    }
    await routeOutcome(deps.producer, 'replay', data, { pools });
    log.debug(
      { toBlock: data.toBlock, deployments: items.length, tokens: outcome.tokens.length },
      'replay batch detected',
    );
    return { status: 'done', blocks, deployments: items.length, ...outcome, poolsCreated };
  };
}
