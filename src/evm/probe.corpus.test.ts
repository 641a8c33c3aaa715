import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../scripts/dev/anvil.ts';
import { type CorpusContract, loadCorpus } from '../../test/support/corpus.ts';
import { dispatcherSelectors, SURFACE } from './erc20.ts';
import { probeContract } from './probe.ts';
import { createRpcClient, type RpcClient } from './rpc.ts';

/**
 * Token recognition on real code: each of the 2,000 mainnet contracts of
 * test/fixtures/mainnet-tokens.ndjson.gz is placed on Anvil with anvil_setCode (empty storage, as
 * a held-out token is submitted) and probed as the detect stage and the refresh path do. Every
 * contract whose dispatcher routes the whole transfer surface must be recognised, whatever its
 * calls answer on empty storage; the refusals are tallied by the call that was missing.
 */

/** Probes in flight at once: Anvil answers a batch per probe. */
const CONCURRENCY = 8;

let corpus: CorpusContract[];
let anvil: AnvilHandle;
let rpc: RpcClient;
beforeAll(async () => {
  corpus = loadCorpus();
  anvil = await startAnvil();
  rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
});
afterAll(async () => anvil?.stop());

const routesSurface = (code: string) => {
  const selectors = dispatcherSelectors(code);
  return selectors !== null && Object.values(SURFACE).every((s) => selectors.has(s));
};

describe('token recognition on 2,000 mainnet contracts placed with anvil_setCode', () => {
  it('recognises every contract that routes totalSupply, balanceOf and transfer', async () => {
    const refusedSurface: string[] = [];
    const refusals = new Map<string, number>();
    let recognised = 0;
    let surface = 0;
    for (let i = 0; i < corpus.length; i += CONCURRENCY) {
      await Promise.all(
        corpus.slice(i, i + CONCURRENCY).map(async (c) => {
          await rpc.request('anvil_setCode', [c.address, c.runtime_bytecode]);
          const probe = await probeContract(rpc, c.address, 'latest');
          const routes = routesSurface(c.runtime_bytecode);
          if (routes) surface++;
          if (probe.kind === 'token') recognised++;
          else if (probe.kind === 'not-token') {
            refusals.set(probe.missing, (refusals.get(probe.missing) ?? 0) + 1);
            if (routes) refusedSurface.push(`${c.address}: ${probe.reason}`);
          }
        }),
      );
    }
    console.log(
      `recognised ${recognised} of ${corpus.length}; ${surface} route the whole surface; refused by missing call: ${JSON.stringify(Object.fromEntries(refusals))}`,
    );
    expect(refusedSurface).toEqual([]);
    // Most of the fixture is tokens: a probe that refused them wholesale would fail here.
    expect(recognised).toBeGreaterThanOrEqual(surface);
    expect(recognised).toBeGreaterThan(corpus.length / 2);
  }, 600_000);
});
