import { Interface } from 'ethers';
import { RpcError, type RpcClient, type RpcOutcome } from './rpc.ts';

/**
 * Batched contract reads. With a Multicall3 address, many eth_calls travel as one
 * `aggregate3` eth_call (allowFailure on each, so one reverting target never sinks the others);
 * without one, or when no code answers there, as a plain JSON-RPC batch of eth_calls. Either way
 * each call gets its own outcome, and a revert is an answer ('revert'), not a failure.
 */

/** Calls per aggregate3: keeps each eth_call well under node gas caps and response limits. */
export const MAX_CALLS_PER_MULTICALL = 250;
/** Gas for one aggregate3 eth_call; nodes cap eth_call gas themselves (geth: 50M by default). */
const MULTICALL_GAS = 0x2faf080; // 50 000 000

const multicall = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

export interface ContractCall {
  target: string;
  data: string;
}

export interface CallBatcher {
  /** One outcome per call, in order; `result` is the call's return data. */
  call(calls: readonly ContractCall[], blockTag?: string): Promise<RpcOutcome<string>[]>;
  /** Whether reads currently go through Multicall3. */
  usesMulticall(): boolean;
}

export function encodeAggregate3(calls: readonly ContractCall[]): string {
  return multicall.encodeFunctionData('aggregate3', [calls.map((c) => ({ target: c.target, allowFailure: true, callData: c.data }))]);
}

export function decodeAggregate3(data: string, count: number): RpcOutcome<string>[] {
  const [results] = multicall.decodeFunctionResult('aggregate3', data) as unknown as [[boolean, string][]];
  if (results.length !== count) throw new RpcError('bad-response', `aggregate3 returned ${results.length} results for ${count} calls`);
  return results.map(([success, returnData]) =>
    success
      ? { ok: true as const, result: returnData }
      : { ok: false as const, error: new RpcError('revert', 'call reverted inside aggregate3', undefined, returnData) });
}

export function createCallBatcher(rpc: RpcClient, multicallAddress?: string): CallBatcher {
  // undefined until checked: a configured address without code (a chain that lacks the canonical
  // deployment) switches to plain batches for the life of the process.
  let multicallAvailable: boolean | undefined = multicallAddress ? undefined : false;

  async function viaBatch(calls: readonly ContractCall[], blockTag: string): Promise<RpcOutcome<string>[]> {
    return rpc.batch<string>(calls.map((c) => ({ method: 'eth_call', params: [{ to: c.target, data: c.data }, blockTag] })));
  }

  async function viaMulticall(calls: readonly ContractCall[], blockTag: string): Promise<RpcOutcome<string>[]> {
    const chunks: ContractCall[][] = [];
    for (let i = 0; i < calls.length; i += MAX_CALLS_PER_MULTICALL) chunks.push(calls.slice(i, i + MAX_CALLS_PER_MULTICALL));
    const answers = await Promise.all(chunks.map(async (chunk) => {
      const data = await rpc.request<string>('eth_call', [{ to: multicallAddress, data: encodeAggregate3(chunk), gas: `0x${MULTICALL_GAS.toString(16)}` }, blockTag]);
      return decodeAggregate3(data, chunk.length);
    }));
    return answers.flat();
  }

  return {
    async call(calls, blockTag = 'latest') {
      if (calls.length === 0) return [];
      if (multicallAvailable === undefined) {
        const code = await rpc.request<string>('eth_getCode', [multicallAddress, 'latest']);
        multicallAvailable = code !== '0x' && code !== '';
      }
      return multicallAvailable ? viaMulticall(calls, blockTag) : viaBatch(calls, blockTag);
    },
    usesMulticall: () => multicallAvailable !== false,
  };
}
