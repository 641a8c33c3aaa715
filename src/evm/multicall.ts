import { Interface } from 'ethers';
import { type RpcClient, RpcError, type RpcOutcome } from './rpc.ts';

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

/** aggregate3((address,bool,bytes)[]) selector. */
const AGGREGATE3_SELECTOR = multicall.getFunction('aggregate3')!.selector;
const WORD = 64; // hex characters per 32-byte word

const hexWord = (n: number) => n.toString(16).padStart(WORD, '0');
const padRight = (hex: string) => hex.padEnd(Math.ceil(hex.length / WORD) * WORD, '0');

/**
 * ABI encoding of aggregate3 by hand: ethers' generic coder spends ~0.3 ms per call on this shape,
 * which made a batch of refresh reads CPU-bound; the layout is fixed, so it is written directly.
 * Every call has allowFailure = true. (Checked against ethers' coder in multicall.test.ts.)
 */
export function encodeAggregate3(calls: readonly ContractCall[]): string {
  const tuples = calls.map((c) => {
    const data = c.data.startsWith('0x') ? c.data.slice(2) : c.data;
    const target = c.target.slice(2).toLowerCase().padStart(WORD, '0');
    // (address target, bool allowFailure, bytes callData): head of three words, then the bytes.
    return `${target}${hexWord(1)}${hexWord(3 * 32)}${hexWord(data.length / 2)}${padRight(data)}`;
  });
  let offset = calls.length * 32;
  const offsets = tuples.map((t) => {
    const here = offset;
    offset += t.length / 2;
    return hexWord(here);
  });
  return `${AGGREGATE3_SELECTOR}${hexWord(32)}${hexWord(calls.length)}${offsets.join('')}${tuples.join('')}`;
}

/** Decodes aggregate3's (bool success, bytes returnData)[] by hand, with bounds checks. */
export function decodeAggregate3(data: string, count: number): RpcOutcome<string>[] {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  const read = (byteOffset: number): number => {
    const start = byteOffset * 2;
    if (start + WORD > hex.length)
      throw new RpcError('bad-response', 'aggregate3 answer truncated');
    const value = Number.parseInt(hex.slice(start, start + WORD), 16);
    if (!Number.isSafeInteger(value))
      throw new RpcError('bad-response', 'aggregate3 answer malformed');
    return value;
  };
  const arrayStart = read(0);
  const length = read(arrayStart);
  if (length !== count)
    throw new RpcError('bad-response', `aggregate3 returned ${length} results for ${count} calls`);
  const base = arrayStart + 32;
  const out: RpcOutcome<string>[] = [];
  for (let i = 0; i < length; i++) {
    const tuple = base + read(base + i * 32);
    const success = read(tuple) !== 0;
    const bytesAt = tuple + read(tuple + 32);
    const size = read(bytesAt);
    const start = (bytesAt + 32) * 2;
    if (start + size * 2 > hex.length)
      throw new RpcError('bad-response', 'aggregate3 answer truncated');
    const returnData = `0x${hex.slice(start, start + size * 2)}`;
    out.push(
      success
        ? { ok: true, result: returnData }
        : {
            ok: false,
            error: new RpcError('revert', 'call reverted inside aggregate3', undefined, returnData),
          },
    );
  }
  return out;
}

export function createCallBatcher(rpc: RpcClient, multicallAddress?: string): CallBatcher {
  // undefined until checked: a configured address without code (a chain that lacks the canonical
  // deployment) switches to plain batches for the life of the process.
  let multicallAvailable: boolean | undefined = multicallAddress ? undefined : false;

  async function viaBatch(
    calls: readonly ContractCall[],
    blockTag: string,
  ): Promise<RpcOutcome<string>[]> {
    return rpc.batch<string>(
      calls.map((c) => ({
        method: 'eth_call',
        params: [{ to: c.target, data: c.data }, blockTag],
      })),
    );
  }

  async function viaMulticall(
    calls: readonly ContractCall[],
    blockTag: string,
  ): Promise<RpcOutcome<string>[]> {
    const chunks: ContractCall[][] = [];
    for (let i = 0; i < calls.length; i += MAX_CALLS_PER_MULTICALL)
      chunks.push(calls.slice(i, i + MAX_CALLS_PER_MULTICALL));
    const answers = await Promise.all(
      chunks.map(async (chunk) => {
        const data = await rpc.request<string>('eth_call', [
          {
            to: multicallAddress,
            data: encodeAggregate3(chunk),
            gas: `0x${MULTICALL_GAS.toString(16)}`,
          },
          blockTag,
        ]);
        return decodeAggregate3(data, chunk.length);
      }),
    );
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
