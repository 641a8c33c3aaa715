import { dispatcherSelectors, type MissingSurface, SURFACE } from '../../src/evm/erc20.ts';
import { probeContract } from '../../src/evm/probe.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import type { CorpusContract } from './corpus.ts';

/**
 * Token recognition of real code as a held-out token is submitted: each contract is placed with
 * anvil_setCode (empty storage) and probed as the detect stage and the refresh path do. The
 * truth is the code's own dispatcher: a contract routing totalSupply, balanceOf and transfer is a
 * token, whatever its calls answer on empty storage.
 */

/** Probes in flight at once: Anvil answers one batch per probe. */
const CONCURRENCY = 8;

export interface CorpusRecognition {
  contracts: number;
  /** Contracts whose dispatcher routes the whole transfer surface. */
  routingSurface: number;
  recognised: number;
  /** Contracts routing the surface that the probe refused, with its reason: should be none. */
  refusedRoutingSurface: string[];
  refusedBy: Partial<Record<MissingSurface, number>>;
}

const routesSurface = (code: string) => {
  const selectors = dispatcherSelectors(code);
  return selectors !== null && Object.values(SURFACE).every((s) => selectors.has(s));
};

export async function recogniseCorpus(
  rpc: RpcClient,
  corpus: readonly CorpusContract[],
  onProgress?: (done: number) => void,
): Promise<CorpusRecognition> {
  const out: CorpusRecognition = {
    contracts: corpus.length,
    routingSurface: 0,
    recognised: 0,
    refusedRoutingSurface: [],
    refusedBy: {},
  };
  for (let i = 0; i < corpus.length; i += CONCURRENCY) {
    await Promise.all(
      corpus.slice(i, i + CONCURRENCY).map(async (c) => {
        await rpc.request('anvil_setCode', [c.address, c.runtime_bytecode]);
        const probe = await probeContract(rpc, c.address, 'latest');
        const routes = routesSurface(c.runtime_bytecode);
        if (routes) out.routingSurface++;
        if (probe.kind === 'token') out.recognised++;
        else if (probe.kind === 'not-token') {
          out.refusedBy[probe.missing] = (out.refusedBy[probe.missing] ?? 0) + 1;
          if (routes) out.refusedRoutingSurface.push(`${c.address}: ${probe.reason}`);
        }
      }),
    );
    onProgress?.(Math.min(i + CONCURRENCY, corpus.length));
  }
  return out;
}
