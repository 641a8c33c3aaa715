import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { startTestChain, type TestChain, waitMined } from '../../test/support/chain.ts';
import { type FaultProxy, startFaultProxy } from '../../test/support/protocol/fault-proxy.ts';
import { createChainReader } from './chain-reader.ts';
import { RpcError } from './rpc.ts';
import type { RpcBlockHeader } from './types.ts';

/**
 * Traces are where a factory's tokens are found: an answer for another block (a node behind a
 * balancer that is not at this block yet answers for `latest`) must be refused, never read as
 * "this block created nothing".
 */

let chain: TestChain;
let proxy: FaultProxy;
let header: RpcBlockHeader;

beforeAll(async () => {
  chain = await startTestChain();
  const factory = await chain.deploy('TokenFactory');
  const tx = await factory.contract.getFunction('createToken')('Traced', 'TRC', 10n ** 21n);
  const receipt = await waitMined(chain.provider, tx);
  // `latest` is then an empty block: what a lagging node answers for.
  await chain.provider.send('evm_mine', []);
  header = await chain.provider.send('eth_getBlockByNumber', [
    `0x${receipt.blockNumber.toString(16)}`,
    false,
  ]);
  proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 1, kinds: ['wrong-block'] });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

describe('chain reader traces', () => {
  it("finds the factory's creation in the block's own traces", async () => {
    const reader = createChainReader(createRpcClient({ urls: [chain.anvil.rpcUrl] }));
    const traces = await reader.traces(header);
    expect(traces.kind).toBe('parity');
    const creations =
      traces.kind === 'parity' ? traces.traces.filter((t) => t.type === 'create') : [];
    expect(creations.length).toBe(1);
  });

  it("refuses another block's traces instead of reading them as no creations", async () => {
    const reader = createChainReader(createRpcClient({ urls: [proxy.url], maxAttempts: 2 }));
    const error = await reader.traces(header).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).kind).toBe('bad-response');
    expect(proxy.injected['wrong-block']).toBeGreaterThanOrEqual(2);
  });
});
