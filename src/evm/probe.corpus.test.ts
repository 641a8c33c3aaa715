import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../app/embedded/index.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { loadCorpus } from '../../test/support/corpus.ts';
import { recogniseCorpus } from '../../test/support/corpus-recognition.ts';

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
