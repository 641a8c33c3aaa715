import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../app/embedded/index.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { loadCorpus } from '../../test/support/corpus.ts';
import { recogniseCorpus } from '../../test/support/corpus-recognition.ts';
import { startRpcProxy } from '../../test/support/protocol/rpc-proxy.ts';
import { createCoalescingRpc } from './coalesce/index.ts';
import { PROBE_REQUEST_COUNT } from './erc20.ts';
import { probeContract, probeContracts } from './probe.ts';

/**
 * Token recognition on real code: each of the 2,000 mainnet contracts of
 * test/fixtures/mainnet-tokens.ndjson.gz is placed on Anvil with anvil_setCode (empty storage, as
 * a held-out token is submitted) and probed as the detect stage and the refresh path do. Every
 * contract whose dispatcher routes the whole transfer surface must be recognised, whatever its
 * calls answer on empty storage.
 */

let anvil: AnvilHandle;
beforeAll(async () => {
  anvil = await startAnvil();
});
afterAll(async () => anvil?.stop());

describe('token recognition on 2,000 mainnet contracts placed with anvil_setCode', () => {
  it('recognises every contract that routes totalSupply, balanceOf and transfer', async () => {
    const rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
    const r = await recogniseCorpus(rpc, loadCorpus());
    console.log(
      `recognised ${r.recognised} of ${r.contracts}; ${r.routingSurface} route the whole surface; refused by missing call: ${JSON.stringify(r.refusedBy)}`,
    );
    expect(r.refusedRoutingSurface).toEqual([]);
    // Most of the fixture is tokens: a probe that refused them wholesale would fail here.
    expect(r.recognised).toBeGreaterThanOrEqual(r.routingSurface);
    expect(r.recognised).toBeGreaterThan(r.contracts / 2);
  }, 600_000);
});

/** Contracts of the corpus probed both ways, and how many share one batch (as detection does). */
const FOLDED_SAMPLE = 320;
const FOLDED_BATCH = 32;

describe('probes of many contracts in one batch, folded into one eth_call', () => {
  it('answer as each contract probed alone, with a tenth of the eth_calls', async () => {
    const plain = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
    const sample = loadCorpus().slice(0, FOLDED_SAMPLE);
    for (const c of sample) await plain.request('anvil_setCode', [c.address, c.runtime_bytecode]);
    const alone = [];
    for (const c of sample) alone.push(await probeContract(plain, c.address, 'latest'));

    const proxy = await startRpcProxy(anvil.rpcUrl);
    try {
      const folded = createCoalescingRpc(createRpcClient({ urls: [proxy.url], maxAttempts: 2 }), {
        callGas: 300_000,
      });
      const together = [];
      for (let i = 0; i < sample.length; i += FOLDED_BATCH) {
        const batch = sample.slice(i, i + FOLDED_BATCH);
        together.push(
          ...(await probeContracts(
            folded,
            batch.map((c) => ({ address: c.address, blockTag: 'latest' })),
          )),
        );
      }
      expect(together).toEqual(alone);
      expect(alone.filter((p) => p.kind === 'token').length).toBeGreaterThan(FOLDED_SAMPLE / 2);
      // Unfolded, each contract's probe is nine eth_calls (2,880 here). Calls that use all their
      // gas (old code's invalid jumps) are sent alone, as are proxies' implementation reads: 164
      // eth_calls in all on this sample when this was written.
      const unfolded = FOLDED_SAMPLE * PROBE_REQUEST_COUNT;
      console.log(`folded probes: ${proxy.calls.get('eth_call')} eth_calls (unfolded ${unfolded})`);
      expect(proxy.calls.get('eth_call') ?? 0).toBeLessThan(unfolded / 10);
      expect(proxy.calls.get('eth_getCode') ?? 0).toBeGreaterThanOrEqual(FOLDED_SAMPLE);
    } finally {
      await proxy.close();
    }
  }, 600_000);
});
