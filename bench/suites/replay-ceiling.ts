import { createRpcClient } from '../../infra/rpc/index.ts';
import {
  mapWindowed,
  readBlockRange,
  SEGMENTS_IN_FLIGHT,
  segmentsOf,
} from '../../src/evm/block-range.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { findDeployments } from '../../src/evm/deployments.ts';
import { type BlockRange, pendingChunks } from '../../src/evm/ranges.ts';
import { toQuantity } from '../../src/evm/rpc.ts';
import { jobCatalog } from '../../workers/jobs.ts';
import { probeInBatches } from '../../workers/scan/index.ts';

/**
 * The replay's raw RPC ceiling: exactly the RPC work a replay does per block (per segment, the
 * headers in one JSON-RPC batch, receipts and traces of its non-empty blocks through the same
 * window, the ERC-20 probes of a segment's deployments as the replay makes them), in the same
 * segments, with as many segments per batch and batches at once as the replay, and nothing else:
 * no queue, no database, no events.
 */

export async function rawReplayCeiling(
  rpcUrl: string,
  range: BlockRange,
  batchBlocks: number,
): Promise<{ seconds: number; tokens: number }> {
  const rpc = createRpcClient({ urls: [rpcUrl] });
  const reader = createChainReader(rpc);
  const batches = pendingChunks(range.from, range.to, batchBlocks, []);
  let tokens = 0;
  const started = performance.now();
  const segment = async (range: BlockRange) => {
    const blocks = await readBlockRange(rpc, reader, range);
    const deployments = blocks.flatMap((b) =>
      findDeployments(b.receipts, b.traces).map((d) => ({ address: d.address, block: b.number })),
    );
    const probes = await probeInBatches(
      rpc,
      deployments.map((d) => ({ address: d.address, blockTag: toQuantity(d.block) })),
    );
    tokens += probes.filter((p) => p.kind === 'token').length;
  };
  await mapWindowed(batches, jobCatalog.replay.concurrency, (batch) =>
    mapWindowed(segmentsOf(batch), SEGMENTS_IN_FLIGHT, segment),
  );
  return { seconds: (performance.now() - started) / 1000, tokens };
}
