import { interpretProbe, probeRequests, type ProbeOutcome } from './erc20.ts';
import type { RpcClient } from './rpc.ts';

/**
 * Runs the ERC-20 probe against a node. Reads at `blockTag` first; a node that has pruned that
 * state (not an archive node) answers errors rather than reverts, and then the latest state is used.
 */
export async function probeContract(rpc: RpcClient, address: string, blockTag: string): Promise<ProbeOutcome> {
  const outcomes = await rpc.batch(probeRequests(address, blockTag));
  const stateMissing = outcomes.every((o) => !o.ok && o.error.kind !== 'revert');
  if (stateMissing && blockTag !== 'latest') {
    return interpretProbe(await rpc.batch(probeRequests(address, 'latest')));
  }
  return interpretProbe(outcomes);
}
