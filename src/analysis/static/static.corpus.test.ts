import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../../app/embedded/index.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { type CorpusContract, loadCorpus } from '../../../test/support/corpus.ts';
import { createChainReader } from '../../evm/chain-reader.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import type { AccessControl } from '../types.ts';
import { analyzeBytecode, analyzeStatic } from './static.ts';

/**
 * Robustness on real code: every one of the 2,000 mainnet token contracts of
 * test/fixtures/mainnet-tokens.ndjson.gz goes through the bytecode stages without a crash or a hang
 * (the walks' step budgets bound the work; the test's timeout catches a hang; speed is measured by
 * `npm run bench`, never asserted on a shared machine's clock); a sample is placed on Anvil (anvil_setCode, empty storage) and analysed as a user would submit it.
 */

const WARM_UP = 20;
const YIELD_EVERY = 50;
const SAMPLE_EVERY = 40; // 2,000 / 40 = 50 contracts on Anvil
const ACCESS: readonly AccessControl[] = ['owner-only', 'role', 'none', 'unknown'];

let corpus: CorpusContract[];
beforeAll(() => {
  corpus = loadCorpus();
});

describe('mainnet corpus', () => {
  it('analyzeBytecode handles all 2,000 contracts', async () => {
    expect(corpus.length).toBe(2_000);
    // Warm-up (JIT, evmole's WebAssembly): the logged times are about steady-state work.
    for (const c of corpus.slice(0, WARM_UP)) analyzeBytecode(c.runtime_bytecode);
    const times: { address: string; ms: number }[] = [];
    let withAdmin = 0;
    for (const [i, c] of corpus.entries()) {
      // A minute and more of synchronous work on a loaded machine outlasts the vitest worker's
      // RPC timeout (60 s): let its messages through now and then.
      if (i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const a = analyzeBytecode(c.runtime_bytecode);
      const ms = performance.now() - started;
      times.push({ address: c.address, ms });
      expect(a.skeleton_hash).toMatch(/^0x[0-9a-f]{64}$/);
      const selectors = new Set(a.functions.map((f) => f.selector));
      for (const f of a.admin_functions) {
        expect(selectors.has(f.selector)).toBe(true);
        expect(ACCESS).toContain(f.access_control);
        expect(f.evidence.length).toBeGreaterThan(0);
      }
      if (a.admin_functions.length > 0) withAdmin++;
    }
    times.sort((x, y) => y.ms - x.ms);
    const total = times.reduce((s, t) => s + t.ms, 0);
    console.log(
      `analyzeBytecode over ${times.length} contracts: ${(total / 1000).toFixed(1)} s, ${(times.length / (total / 1000)).toFixed(0)} contracts/s; ` +
        `slowest ${times[0]!.address} ${times[0]!.ms.toFixed(0)} ms, p99 ${times[Math.floor(times.length / 100)]!.ms.toFixed(0)} ms; ${withAdmin} with admin functions`,
    );
    // Real tokens have admin functions: the catalog must find them in a good share of the corpus.
    expect(withAdmin).toBeGreaterThan(corpus.length / 4);
  }, 600_000);

  describe('a sample on Anvil, analysed from the chain', () => {
    let anvil: AnvilHandle;
    let rpc: RpcClient;
    beforeAll(async () => {
      anvil = await startAnvil();
      rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
    });
    afterAll(async () => anvil?.stop());

    it('analyzeStatic completes on 50 real contracts placed with anvil_setCode', async () => {
      const sample = corpus.filter((_, i) => i % SAMPLE_EVERY === 0);
      const reader = createChainReader(rpc);
      let slowest = { address: '', ms: 0 };
      for (const c of sample) {
        await rpc.request('anvil_setCode', [c.address, c.runtime_bytecode]);
        const code = await rpc.request<string>('eth_getCode', [c.address, 'latest']);
        const started = performance.now();
        const a = await analyzeStatic({ rpc, reader }, { chainId: 1, address: c.address, code });
        const ms = performance.now() - started;
        if (ms > slowest.ms) slowest = { address: c.address, ms };
        const offline = analyzeBytecode(c.runtime_bytecode);
        // The chain adds to what the code says; it never loses a function.
        expect(new Set(a.functions.map((f) => f.selector))).toEqual(
          new Set([
            ...offline.functions.map((f) => f.selector),
            ...a.functions.map((f) => f.selector),
          ]),
        );
        expect(a.admin_functions.map((f) => f.selector).sort()).toEqual(
          offline.admin_functions.map((f) => f.selector).sort(),
        );
        for (const f of [...a.admin_functions, ...(a.privileged_functions ?? [])]) {
          expect(ACCESS).toContain(f.access_control);
          expect(f.evidence.length).toBeGreaterThan(0);
        }
        // Empty storage: whatever owner() answers is zero or nothing, and nothing is hidden.
        if (a.ownership.fake_renounce)
          expect(a.ownership.renounced && a.ownership.hidden_owner).toBeTruthy();
        expect(a.skeleton_hash).toBe(offline.skeleton_hash);
      }
      console.log(
        `analyzeStatic on ${sample.length} mainnet contracts on Anvil: slowest ${slowest.address} ${slowest.ms.toFixed(0)} ms`,
      );
    }, 600_000);
  });
});
