import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { startFaultProxy } from '../../../test/support/protocol/fault-proxy.ts';
import type { RpcOutcome, RpcRequest } from '../rpc.ts';
import { createCoalescingRpc, withCode } from './coalesce.ts';

/** Folded reads on real Anvil answer exactly what the plain requests answer, in fewer calls. */

const token = new Interface([
  'function mint(address to, uint256 amount)',
  'function totalSupply() view returns (uint256)',
  'function owner() view returns (address)',
]);
const STRANGER = '0x00000000000000000000000000000000005a1e57';

let chain: TestChain;
let address: string;

beforeAll(async () => {
  chain = await startTestChain();
  ({ address } = await chain.deploy('MintableToken', ['M', 'M', 10n ** 24n]));
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

const call = (from: string | undefined, data: string): RpcRequest => ({
  method: 'eth_call',
  params: [{ ...(from ? { from } : {}), to: address, data, gas: '0x4c4b40' }, 'latest'],
});
const slot = (n: number): RpcRequest => ({
  method: 'eth_getStorageAt',
  params: [address, `0x${n.toString(16)}`, 'latest'],
});
/** What a caller reads from an outcome: the answer, or that it reverted and with which data. */
const seen = (o: RpcOutcome<unknown>) =>
  o.ok ? { ok: true, result: o.result } : { ok: false, kind: o.error.kind, data: o.error.data };

describe('createCoalescingRpc', () => {
  it('answers slots and calls from several senders as the plain requests do, in one eth_call per group', async () => {
    const mint = token.encodeFunctionData('mint', [STRANGER, 7n]);
    const requests = [
      slot(0),
      call(STRANGER, mint),
      slot(1),
      call(chain.account, mint),
      slot(2),
      call(STRANGER, token.encodeFunctionData('owner')),
      // Each call sees the chain's state: the owner's mint above does not move the supply here.
      call(chain.account, token.encodeFunctionData('totalSupply')),
      call(undefined, token.encodeFunctionData('totalSupply')),
      call(undefined, token.encodeFunctionData('owner')),
    ];
    const plain = createRpcClient({ urls: [chain.anvil.rpcUrl] });
    const expected = await plain.batch(requests);
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const folded = createCoalescingRpc(createRpcClient({ urls: [proxy.url] }));
      const answers = await folded.batch(requests);
      expect(answers.map(seen).map((a) => ({ ...a, data: undefined }))).toEqual(
        expected.map(seen).map((a) => ({ ...a, data: undefined })),
      );
      // The owner's mint succeeds, the stranger's reverts with the same data as plainly.
      expect(answers[3]!.ok).toBe(true);
      expect(answers[1]!.ok).toBe(false);
      const revertOf = (o: RpcOutcome<unknown>) => (o.ok ? null : String(o.error.data));
      expect(revertOf(answers[1]!)).toBe(revertOf(expected[1]!));
      // Slots of one contract, calls of the stranger, of the owner and of no sender: four calls.
      expect(proxy.calls.get('eth_call')).toBe(4);
      expect(proxy.calls.get('eth_getStorageAt')).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('folds the calls of several senders into one eth_call, each with its own msg.sender', async () => {
    const mint = token.encodeFunctionData('mint', [STRANGER, 7n]);
    const requests = [
      call(STRANGER, mint),
      slot(0),
      call(chain.account, mint),
      call(STRANGER, token.encodeFunctionData('owner')),
      call(chain.account, token.encodeFunctionData('totalSupply')),
      call(undefined, token.encodeFunctionData('owner')),
      slot(1),
    ];
    const expected = await createRpcClient({ urls: [chain.anvil.rpcUrl] }).batch(requests);
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const folded = createCoalescingRpc(createRpcClient({ urls: [proxy.url] }), {
        acrossSenders: true,
      });
      const answers = await folded.batch(requests);
      expect(answers.map(seen)).toEqual(expected.map(seen));
      // Only the owner may mint: the hub kept each call's sender.
      expect(answers.map((a) => a.ok)).toEqual([false, true, true, true, true, true, true]);
      // The slots in one call, the calls of three senders in another.
      expect(proxy.calls.get('eth_call')).toBe(2);
      expect(proxy.calls.get('eth_getStorageAt')).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('reads the slots of a contract whose code it was told in the same eth_call as calls to it', async () => {
    const mint = token.encodeFunctionData('mint', [STRANGER, 7n]);
    const requests = [
      slot(0),
      call(undefined, token.encodeFunctionData('owner')),
      slot(5),
      call(undefined, token.encodeFunctionData('totalSupply')),
      call(undefined, mint),
      slot(2),
    ];
    const plain = createRpcClient({ urls: [chain.anvil.rpcUrl] });
    const expected = await plain.batch(requests);
    const code = await plain.request<string>('eth_getCode', [address, 'latest']);
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const folded = withCode(createCoalescingRpc(createRpcClient({ urls: [proxy.url] })), {
        [address]: code,
      });
      expect((await folded.batch(requests)).map(seen)).toEqual(expected.map(seen));
      // The contract's own code answered the calls (the mint reverts, as plainly) beside its slots.
      expect(proxy.calls.get('eth_call')).toBe(1);
      expect(proxy.calls.get('eth_getStorageAt')).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('keeps apart the senders that another call targets (their code would be the bundle)', async () => {
    const supply = token.encodeFunctionData('totalSupply');
    const requests = [
      call(STRANGER, supply),
      call(chain.account, supply),
      { method: 'eth_call', params: [{ from: STRANGER, to: chain.account, data: '0x' }, 'latest'] },
    ];
    const expected = await createRpcClient({ urls: [chain.anvil.rpcUrl] }).batch(requests);
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const folded = createCoalescingRpc(createRpcClient({ urls: [proxy.url] }), {
        acrossSenders: true,
      });
      expect((await folded.batch(requests)).map(seen)).toEqual(expected.map(seen));
      // The stranger's two calls in its own bundle, the account's call alone.
      expect(proxy.calls.get('eth_call')).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('pays the sender as an EOA is paid, and leaves an exceptional halt to the node', async () => {
    // Sends 1 wei to the caller and reverts if that fails; and a bare INVALID opcode.
    const payer = '0x00000000000000000000000000000000000baee1';
    const halter = '0x00000000000000000000000000000000000baee2';
    await chain.provider.send('anvil_setCode', [
      payer,
      '0x60006000600060006001335af115601257005b60006000fd',
    ]);
    await chain.provider.send('anvil_setBalance', [payer, '0xde0b6b3a7640000']);
    await chain.provider.send('anvil_setCode', [halter, '0xfe']);
    const from = (to: string): RpcRequest => ({
      method: 'eth_call',
      params: [{ from: STRANGER, to, data: '0x', gas: '0x4c4b40' }, 'latest'],
    });
    const requests = [from(payer), from(halter), from(payer)];
    const expected = await createRpcClient({ urls: [chain.anvil.rpcUrl] }).batch(requests);
    const answers = await createCoalescingRpc(
      createRpcClient({ urls: [chain.anvil.rpcUrl] }),
    ).batch(requests);
    expect(answers[0]!.ok).toBe(true);
    const message = (o: RpcOutcome<unknown>) => (o.ok ? null : o.error.message);
    expect(answers.map(seen)).toEqual(expected.map(seen));
    expect(answers.map(message)).toEqual(expected.map(message));
  });

  it('folds calls that named no gas with `callGas`, and sends one that needed more alone, without it', async () => {
    // Loops 16,384 times (about 426,000 gas) and returns 42: beyond the fold's 300,000, within a
    // plain eth_call's cap.
    const heavy = '0x00000000000000000000000000000000000baee3';
    await chain.provider.send('anvil_setCode', [
      heavy,
      '0x6140005b6001900380600357602a60005260206000f3',
    ]);
    const plainCall = (to: string, data: string): RpcRequest => ({
      method: 'eth_call',
      params: [{ to, data }, 'latest'],
    });
    const requests = [
      plainCall(address, token.encodeFunctionData('totalSupply')),
      plainCall(heavy, '0x'),
      plainCall(address, token.encodeFunctionData('owner')),
    ];
    const expected = await createRpcClient({ urls: [chain.anvil.rpcUrl] }).batch(requests);
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const folded = createCoalescingRpc(createRpcClient({ urls: [proxy.url] }), {
        callGas: 300_000,
      });
      const answers = await folded.batch(requests);
      expect(answers.map(seen)).toEqual(expected.map(seen));
      expect(answers[1]).toEqual({ ok: true, result: `0x${'2a'.padStart(64, '0')}` });
      // The fold, and the heavy call again alone.
      expect(proxy.calls.get('eth_call')).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('asks plainly, from then on, a node that refuses state overrides', async () => {
    let refused = 0;
    const server: Server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as
        | { id: number; method: string; params: unknown[] }[]
        | { id: number; method: string; params: unknown[] };
      const entries = Array.isArray(body) ? body : [body];
      const answers = await Promise.all(
        entries.map(async (e) => {
          if (e.method === 'eth_call' && e.params.length > 2) {
            refused++;
            return { jsonrpc: '2.0', id: e.id, error: { code: -32602, message: 'invalid params' } };
          }
          const r = await fetch(chain.anvil.rpcUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(e),
          });
          return r.json();
        }),
      );
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const folded = createCoalescingRpc(createRpcClient({ urls: [url] }));
      const requests = [slot(0), slot(1), slot(2)];
      const expected = await createRpcClient({ urls: [chain.anvil.rpcUrl] }).batch(requests);
      expect((await folded.batch(requests)).map(seen)).toEqual(expected.map(seen));
      expect(refused).toBe(1);
      expect((await folded.batch(requests)).map(seen)).toEqual(expected.map(seen));
      expect(refused).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
