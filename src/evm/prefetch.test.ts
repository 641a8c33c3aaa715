import { Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startFaultProxy } from '../../test/support/protocol/fault-proxy.ts';
import { createCoalescingRpc } from './coalesce/index.ts';
import { prefetch } from './prefetch.ts';
import type { RpcOutcome, RpcRequest } from './rpc.ts';

/** Reads asked ahead answer later steps as the plain requests would, without asking again. */

const token = new Interface(['function owner() view returns (address)']);

let chain: TestChain;
let address: string;

beforeAll(async () => {
  chain = await startTestChain();
  ({ address } = await chain.deploy('MintableToken', ['M', 'M', 10n ** 24n]));
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

const slot = (n: number): RpcRequest => ({
  method: 'eth_getStorageAt',
  params: [address, `0x${n.toString(16)}`, 'latest'],
});
const owner = (): RpcRequest => ({
  method: 'eth_call',
  params: [{ to: address, data: token.encodeFunctionData('owner') }, 'latest'],
});
const seen = (o: RpcOutcome<unknown>) => (o.ok ? o.result : `error ${o.error.kind}`);

describe('prefetch', () => {
  it('answers prefetched reads from its one batch and asks only for the others', async () => {
    const plain = createRpcClient({ urls: [chain.anvil.rpcUrl] });
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const rpc = createCoalescingRpc(createRpcClient({ urls: [proxy.url] }));
      const reads = await prefetch(rpc, [slot(0), owner(), slot(1), slot(5), owner()]);
      // Three slots of one contract and one call: one SlotReader eth_call and the call alone.
      expect(proxy.calls.get('eth_call')).toBe(2);
      const later = [owner(), slot(5), slot(0)];
      expect((await reads.batch(later)).map(seen)).toEqual((await plain.batch(later)).map(seen));
      expect(proxy.calls.get('eth_call')).toBe(2);
      // A read not asked ahead is asked now; the prefetched ones beside it are not asked again.
      const mixed = [slot(1), slot(7)];
      expect((await reads.batch(mixed)).map(seen)).toEqual((await plain.batch(mixed)).map(seen));
      expect(proxy.calls.get('eth_getStorageAt')).toBe(1);
      expect(proxy.calls.get('eth_call')).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});
