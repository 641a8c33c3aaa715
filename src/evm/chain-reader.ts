import type { BlockTraces } from './deployments.ts';
import { fromQuantity, type RpcClient, RpcError, toQuantity } from './rpc.ts';
import type { ParityTrace, RpcBlockHeader, RpcReceipt, TxCallTrace } from './types.ts';

/**
 * Block reading with capability discovery: eth_getBlockReceipts else per-transaction receipts;
 * trace_block else debug_traceBlockByNumber (callTracer) else no traces. What a node lacks is
 * remembered, so it is asked only once.
 */

export type TraceMethod = 'callTracer' | 'parity' | 'none';

export interface ChainReader {
  blockNumber(): Promise<number>;
  block(tag: number | 'latest'): Promise<RpcBlockHeader | null>;
  blockByHash(hash: string, withTransactions?: boolean): Promise<RpcBlockHeader | null>;
  receipts(block: RpcBlockHeader): Promise<RpcReceipt[]>;
  traces(block: RpcBlockHeader): Promise<BlockTraces>;
  code(address: string, blockTag: number | 'latest'): Promise<string>;
  capabilities(): { blockReceipts: boolean | undefined; traces: TraceMethod | undefined };
}

const tag = (t: number | 'latest') => (t === 'latest' ? 'latest' : toQuantity(t));
const same = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

function txHashes(block: RpcBlockHeader): string[] | undefined {
  return block.transactions?.map((t) =>
    (typeof t === 'string' ? t : (t as { hash: string }).hash).toLowerCase(),
  );
}

/** A node (or a proxy in front of it) may answer for another block: such answers are refused. */
function traceProblem(block: RpcBlockHeader, traces: BlockTraces): string | undefined {
  const expected = txHashes(block);
  if (!expected) return undefined;
  if (traces.kind === 'callTracer') {
    if (!Array.isArray(traces.traces) || traces.traces.length !== expected.length)
      return `traces of block ${block.hash}: wrong number of entries`;
    if (traces.traces.some((t, i) => t.txHash && t.txHash.toLowerCase() !== expected[i]))
      return `traces of block ${block.hash} belong to another block`;
  } else if (traces.kind === 'parity') {
    if (!Array.isArray(traces.traces)) return `trace_block of ${block.hash}: not a list`;
    const known = new Set(expected);
    const traced = new Set<string>();
    for (const t of traces.traces) {
      const tx = t.transactionHash?.toLowerCase();
      if ((tx && !known.has(tx)) || (t.blockHash && !same(t.blockHash, block.hash)))
        return `trace_block of ${block.hash} belongs to another block`;
      if (tx) traced.add(tx);
    }
    // A block with transactions has traces: an empty answer (another, empty block's, from a node
    // behind a balancer that is not there yet) would hide the block's deployments. Partial cover
    // is accepted: some chains leave system transactions out of trace_block.
    if (known.size > 0 && traced.size === 0)
      return `trace_block of ${block.hash}: no trace of its ${known.size} transactions`;
  }
  return undefined;
}

/** eth_getBlockReceipts, else one eth_getTransactionReceipt per transaction (remembered). */
function createReceiptReader(rpc: RpcClient) {
  let blockReceipts: boolean | undefined;

  async function perTransactionReceipts(block: RpcBlockHeader): Promise<RpcReceipt[]> {
    const full =
      block.transactions &&
      block.transactions.length > 0 &&
      typeof block.transactions[0] === 'string'
        ? block
        : await rpc.request<RpcBlockHeader | null>('eth_getBlockByHash', [block.hash, false]);
    const hashes = (full?.transactions ?? []).map((t) =>
      typeof t === 'string' ? t : (t as { hash: string }).hash,
    );
    const outcomes = await rpc.batch<RpcReceipt | null>(
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
    );
    return outcomes.map((o, i) => {
      if (!o.ok) throw o.error;
      if (!o.result) throw new RpcError('bad-response', `receipt of ${hashes[i]} missing`);
      if (!same(o.result.blockHash, block.hash))
        throw new RpcError('bad-response', `receipt of ${hashes[i]} is from another block`);
      return o.result;
    });
  }

  const read = async (block: RpcBlockHeader): Promise<RpcReceipt[]> => {
    if (block.transactions && block.transactions.length === 0) return [];
    if (blockReceipts !== false) {
      try {
        const expected = txHashes(block);
        const receipts = await rpc.request<RpcReceipt[] | null>(
          'eth_getBlockReceipts',
          [block.hash],
          {
            // Every receipt must belong to the block asked for.
            validate: (answer) =>
              answer &&
              (answer.some((r) => !same(r.blockHash, block.hash)) ||
                (expected && answer.length !== expected.length))
                ? `answered for another block than ${block.hash}`
                : undefined,
          },
        );
        if (receipts) {
          blockReceipts = true;
          return receipts;
        }
      } catch (error) {
        if (
          !(error instanceof RpcError) ||
          (error.kind !== 'unsupported' && error.kind !== 'invalid-request')
        )
          throw error;
        blockReceipts = false;
      }
    }
    return perTransactionReceipts(block);
  };
  return { read, known: () => blockReceipts };
}

/**
 * trace_block (the flat parity traces: Erigon, Reth, Nethermind, Anvil), else
 * debug_traceBlockByNumber with the callTracer (geth and its forks: BSC, Polygon's bor), else
 * none; what answered is remembered. trace_block first: where a node has both, it is the cheaper
 * to serve (Anvil answers a 130-transaction block's trace_block in about 20 ms and its
 * callTracer in about 900 ms), and a block's deployments need nothing the flat form lacks.
 */
function createTraceReader(rpc: RpcClient) {
  let traceMethod: TraceMethod | undefined;
  /** The node does not offer this method (or not this way): try the next one. */
  const refused = (error: unknown, method: TraceMethod) =>
    error instanceof RpcError &&
    (error.kind === 'unsupported' || error.kind === 'invalid-request') &&
    traceMethod !== method;
  const read = async (block: RpcBlockHeader): Promise<BlockTraces> => {
    if (block.transactions && block.transactions.length === 0) return { kind: 'none' };
    const number = toQuantity(fromQuantity(block.number));
    if (traceMethod === undefined || traceMethod === 'parity') {
      try {
        const traces = await rpc.request<ParityTrace[]>('trace_block', [number], {
          validate: (answer) => traceProblem(block, { kind: 'parity', traces: answer }),
        });
        traceMethod = 'parity';
        return { kind: 'parity', traces };
      } catch (error) {
        if (!refused(error, 'parity')) throw error;
      }
    }
    if (traceMethod === undefined || traceMethod === 'callTracer') {
      try {
        const traces = await rpc.request<TxCallTrace[]>(
          'debug_traceBlockByNumber',
          [number, { tracer: 'callTracer' }],
          {
            validate: (answer) => traceProblem(block, { kind: 'callTracer', traces: answer }),
          },
        );
        traceMethod = 'callTracer';
        return { kind: 'callTracer', traces };
      } catch (error) {
        if (!refused(error, 'callTracer')) throw error;
      }
    }
    traceMethod = 'none';
    return { kind: 'none' };
  };
  return { read, method: () => traceMethod };
}

export function createChainReader(rpc: RpcClient): ChainReader {
  const receiptReader = createReceiptReader(rpc);
  const traceReader = createTraceReader(rpc);
  return {
    async blockNumber() {
      return fromQuantity(await rpc.request<string>('eth_blockNumber'));
    },
    block(t) {
      return rpc.request<RpcBlockHeader | null>('eth_getBlockByNumber', [tag(t), false], {
        validate: (block) =>
          block && t !== 'latest' && fromQuantity(block.number) !== t
            ? `asked for block ${t}, got ${block.number}`
            : undefined,
      });
    },
    blockByHash(hash, withTransactions = false) {
      return rpc.request<RpcBlockHeader | null>('eth_getBlockByHash', [hash, withTransactions], {
        validate: (block) =>
          block && !same(block.hash, hash)
            ? `asked for block ${hash}, got ${block.hash}`
            : undefined,
      });
    },
    receipts: receiptReader.read,
    traces: traceReader.read,
    code(address, blockTag) {
      return rpc.request<string>('eth_getCode', [address, tag(blockTag)]);
    },
    capabilities: () => ({ blockReceipts: receiptReader.known(), traces: traceReader.method() }),
  };
}
