/** The subset of JSON-RPC objects the service reads. Quantities are hex strings, as on the wire. */

export interface RpcBlockHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions?: unknown[];
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  transactionHash: string;
  blockNumber?: string;
  blockHash?: string;
  logIndex?: string;
}

export interface RpcReceipt {
  transactionHash: string;
  from: string;
  to: string | null;
  contractAddress: string | null;
  status?: string;
  gasUsed: string;
  blockNumber: string;
  blockHash: string;
  logs: RpcLog[];
}

/** One frame of geth's callTracer. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  gasUsed?: string;
  error?: string;
  calls?: CallFrame[];
}

/** An entry of debug_traceBlockByNumber with callTracer. */
export interface TxCallTrace {
  txHash?: string;
  result?: CallFrame;
  error?: string;
}

/** An entry of Parity/OpenEthereum-style trace_block. */
export interface ParityTrace {
  type: string;
  action: { from?: string; creationMethod?: string };
  result?: { address?: string; gasUsed?: string } | null;
  error?: string;
  transactionHash?: string;
  blockHash?: string;
  traceAddress: number[];
}
