import { UnrecoverableError } from 'bullmq';
import type { HolderRepository, ReplayApplyResult } from '../../db/repositories/holders.ts';
import {
  type FetchedBlock,
  mapWindowed,
  readBlockRange,
  SEGMENTS_IN_FLIGHT,
  segmentsOf,
} from '../../src/evm/block-range.ts';
import { fromQuantity, sleep } from '../../src/evm/rpc.ts';
import { transfersOf } from '../../src/holders/transfers.ts';
import { type ChainRuntime, chainOf } from '../chain-runtime.ts';
import type { JobData } from '../jobs.ts';
import { routeOutcome } from '../pipeline.ts';
import {
  type BlockDeployment,
  blockDeployments,
  createOldContractCache,
  type DetectDeps,
  type OldContractCache,
  probeDeployments,
  type RecordedDeployments,
  recordPoolCreations,
  recordTokens,
} from '../scan/index.ts';

/**
 * The replay stage: one job is a range of final blocks, worked in segments (src/evm/block-range.ts),
 * a few at once. A segment's headers come in one JSON-RPC batch, the receipts and traces of its
 * blocks with transactions through a bounded window, and its deployments are probed through a
 * window and recorded with the detect stage's rules, its tokens in one transaction
 * (the detect stage's recordTokens). The tokens are recorded and announced, not routed: the
 * replay hands them to analysis after the range (workers/replay/handoff.ts), so that analysis
 * trails instead of throttling detection. Idempotent like detection: a retried or repeated range
 * upserts the same rows and announces nothing twice.
 */

/** A job of more blocks than this is refused: a job holds every block of its range in memory. */
export const MAX_REPLAY_BATCH = 1_000;

export type ReplayBatchResult = RecordedDeployments & {
  status: 'done';
  blocks: number;
  deployments: number;
  poolsCreated: number;
  /** Transfer logs applied to the holders' balances (with holder tracking). */
  holderTransfers?: number;
};

export interface ReplayStageDeps extends DetectDeps {
  /**
   * With it, the batch's Transfers are applied to the holders' balances on the replay track
   * (db/repositories/holders.ts applyReplay) after its tokens and pools are recorded.
   */
  replayHolders?: Pick<HolderRepository, 'applyReplay'>;
  /** How long a batch waits for the batches before it to apply their holders (default 60 s). */
  holdersWaitMs?: number;
}

/** How long a batch waits for earlier batches' holders before its job fails (and is retried). */
const HOLDERS_WAIT_MS = 60_000;
const HOLDERS_POLL_MS = 100;

/**
 * Applies the batch's Transfers in replay order: a batch waits (a bounded while) for the batches
 * before it, whose tokens must be known before this batch's Transfers are filtered by them.
 */
async function applyHolders(
  deps: ReplayStageDeps,
  data: JobData<'replay'>,
  fetched: readonly FetchedBlock[],
): Promise<ReplayApplyResult | null> {
  const holders = deps.replayHolders;
  if (!holders) return null;
  const blocks = fetched.map((b) => ({ number: b.number, transfers: transfersOf(b.receipts) }));
  const range = { from: data.fromBlock, to: data.toBlock };
  const deadline = Date.now() + (deps.holdersWaitMs ?? HOLDERS_WAIT_MS);
  for (;;) {
    const result = await holders.applyReplay(data.chainId, range, blocks);
    if (result.status !== 'behind') return result;
    if (Date.now() > deadline)
      throw new Error(`replay holders: blocks before ${data.fromBlock} are not applied yet`);
    await sleep(HOLDERS_POLL_MS);
  }
}

/** The deployments of a segment's blocks, each with the block it happened in. */
async function deploymentsOf(
  deps: ReplayStageDeps,
  oldContracts: OldContractCache,
  chain: ChainRuntime,
  blocks: readonly FetchedBlock[],
): Promise<BlockDeployment[]> {
  const items: BlockDeployment[] = [];
  for (const b of blocks) {
    const block = {
      number: b.number,
      hash: b.hash,
      timestamp: new Date(fromQuantity(b.header.timestamp) * 1000),
    };
    for (const deployment of await blockDeployments(deps, oldContracts, chain, b))
      items.push({ deployment, block });
  }
  return items;
}

/** Pools created by configured factories, per block, after the batch's tokens are known. */
async function recordPools(deps: ReplayStageDeps, chain: ChainRuntime, fetched: FetchedBlock[]) {
  const pools: { blockNumber: number; pooledTokens: string[] }[] = [];
  let created = 0;
  if (!deps.dex) return { pools, created };
  for (const b of fetched) {
    const result = await recordPoolCreations(deps.dex, chain, b.receipts, b);
    created += result.created;
    if (result.pooledTokens.length > 0)
      pools.push({ blockNumber: b.number, pooledTokens: result.pooledTokens });
  }
  return { pools, created };
}

export function createReplayProcessor(deps: ReplayStageDeps) {
  const oldContracts = createOldContractCache();

  return async function processReplay(data: JobData<'replay'>): Promise<ReplayBatchResult> {
    const blocks = data.toBlock - data.fromBlock + 1;
    if (blocks < 1 || blocks > MAX_REPLAY_BATCH)
      throw new UnrecoverableError(
        `replay range ${data.fromBlock}-${data.toBlock}: 1 to ${MAX_REPLAY_BATCH} blocks`,
      );
    const chain = chainOf(deps.chains, data.chainId);
    const log = deps.logger.child({ chain: data.chainId, block: data.fromBlock });
    const outcome: RecordedDeployments = { tokens: [], pairs: [], skipped: 0, orphaned: 0 };
    const fetched: FetchedBlock[] = [];
    let deployments = 0;
    // Reading and probing run in segments, a few at once; each segment's writes start as soon as
    // its probes are done and run beside the next segments' RPC work, so the RPC work never
    // waits for Postgres. Segments hold different tokens, and each write locks its rows in
    // address order, so concurrent writes cannot deadlock. A failed write fails the job (retried
    // whole: every write is an upsert).
    const writes: Promise<unknown>[] = [];
    await mapWindowed(
      segmentsOf({ from: data.fromBlock, to: data.toBlock }),
      SEGMENTS_IN_FLIGHT,
      async (segment) => {
        const segmentBlocks = await readBlockRange(chain.rpc, chain.reader, segment);
        const items = await deploymentsOf(deps, oldContracts, chain, segmentBlocks);
        const found = await probeDeployments(deps, chain, items, log, outcome);
        fetched.push(...segmentBlocks);
        deployments += items.length;
        // Settled below; the handler keeps an early failure from going unhandled meanwhile.
        const write = recordTokens(deps, data.chainId, found, outcome);
        write.catch(() => {});
        writes.push(write);
      },
    ).finally(() => Promise.allSettled(writes));
    for (const result of await Promise.allSettled(writes))
      if (result.status === 'rejected') throw result.reason;
    fetched.sort((a, b) => a.number - b.number);
    const pools = await recordPools(deps, chain, fetched);
    const holders = await applyHolders(deps, data, fetched);
    await routeOutcome(deps.producer, 'replay', data, { pools: pools.pools });
    log.debug(
      { toBlock: data.toBlock, deployments, tokens: outcome.tokens.length },
      'replay batch detected',
    );
    return {
      status: 'done',
      blocks,
      deployments,
      ...outcome,
      poolsCreated: pools.created,
      ...(holders?.status === 'applied' ? { holderTransfers: holders.transfers } : {}),
    };
  };
}
