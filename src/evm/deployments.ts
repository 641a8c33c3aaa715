import { fromQuantity } from './rpc.ts';
import type { CallFrame, ParityTrace, RpcReceipt, TxCallTrace } from './types.ts';

/**
 * Finds the contracts created in one block, from its receipts and (when the node offers them)
 * its traces. Pure: the caller fetches, this decides.
 */

export type DetectionSource = 'receipt' | 'trace' | 'transfer-log';

export interface Deployment {
  address: string;
  /** The account whose code ran CREATE/CREATE2: the sender for a top-level deployment, else the factory. */
  creator: string | null;
  creatorIsContract: boolean | null;
  /** The transaction's sender. */
  txOrigin: string;
  txHash: string;
  gasUsed: number | null;
  source: DetectionSource;
}

export type BlockTraces =
  | { kind: 'callTracer'; traces: TxCallTrace[] }
  | { kind: 'parity'; traces: ParityTrace[] }
  | { kind: 'none' };

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = `0x${'0'.repeat(64)}`;
const SUCCESS = '0x1';

const lower = (s: string) => s.toLowerCase();
const hexToNumber = (hex: string | undefined) => (hex === undefined ? null : fromQuantity(hex));

export function findDeployments(
  receipts: readonly RpcReceipt[],
  traces: BlockTraces,
): Deployment[] {
  const byAddress = new Map<string, Deployment>();
  const receiptByTx = new Map(receipts.map((r) => [lower(r.transactionHash), r]));

  for (const receipt of receipts) {
    if (!receipt.contractAddress || !succeeded(receipt)) continue;
    const address = lower(receipt.contractAddress);
    byAddress.set(address, {
      address,
      creator: lower(receipt.from),
      creatorIsContract: false,
      txOrigin: lower(receipt.from),
      txHash: lower(receipt.transactionHash),
      gasUsed: hexToNumber(receipt.gasUsed),
      source: 'receipt',
    });
  }

  const add = (d: Deployment) => {
    if (!byAddress.has(d.address)) byAddress.set(d.address, d);
  };
  if (traces.kind === 'callTracer') {
    traces.traces.forEach((entry, index) => {
      // Some nodes omit txHash; entries come in transaction order, as do receipts.
      const receipt = entry.txHash ? receiptByTx.get(lower(entry.txHash)) : receipts[index];
      if (!entry.result || !receipt || !succeeded(receipt)) return;
      for (const d of nestedCreations(entry.result, receipt)) add(d);
    });
  } else if (traces.kind === 'parity') {
    for (const d of parityCreations(traces.traces, receiptByTx)) add(d);
  }
  return [...byAddress.values()];
}

/** Contracts created below the top frame of one transaction, skipping reverted subtrees. */
function nestedCreations(root: CallFrame, receipt: RpcReceipt): Deployment[] {
  const found: Deployment[] = [];
  const visit = (frame: CallFrame, depth: number) => {
    // A reverted frame undoes every creation beneath it, even those that report no error.
    if (frame.error) return;
    if (depth > 0 && isCreate(frame.type) && frame.to) {
      found.push({
        address: lower(frame.to),
        creator: lower(frame.from),
        creatorIsContract: true,
        txOrigin: lower(receipt.from),
        txHash: lower(receipt.transactionHash),
        gasUsed: hexToNumber(frame.gasUsed),
        source: 'trace',
      });
    }
    for (const child of frame.calls ?? []) visit(child, depth + 1);
  };
  visit(root, 0);
  return found;
}

function parityCreations(
  traces: readonly ParityTrace[],
  receiptByTx: Map<string, RpcReceipt>,
): Deployment[] {
  // A trace whose ancestor failed is undone too: collect failed trace paths per transaction first.
  const failedPaths = new Map<string, string[]>();
  for (const t of traces) {
    if (t.error && t.transactionHash) {
      const list = failedPaths.get(lower(t.transactionHash)) ?? [];
      list.push(t.traceAddress.join('.'));
      failedPaths.set(lower(t.transactionHash), list);
    }
  }
  const found: Deployment[] = [];
  for (const t of traces) {
    if (
      t.type !== 'create' ||
      t.traceAddress.length === 0 ||
      t.error ||
      !t.result?.address ||
      !t.transactionHash
    )
      continue;
    const tx = lower(t.transactionHash);
    const receipt = receiptByTx.get(tx);
    if (!receipt || !succeeded(receipt)) continue;
    const path = t.traceAddress.join('.');
    const undone = (failedPaths.get(tx) ?? []).some(
      (p) => p === '' || path === p || path.startsWith(`${p}.`),
    );
    if (undone) continue;
    found.push({
      address: lower(t.result.address),
      creator: t.action.from ? lower(t.action.from) : null,
      creatorIsContract: true,
      txOrigin: lower(receipt.from),
      txHash: tx,
      gasUsed: hexToNumber(t.result.gasUsed),
      source: 'trace',
    });
  }
  return found;
}

export interface TransferCandidate {
  address: string;
  txHash: string;
  txOrigin: string;
  /** The contract the transaction called, when the first Transfer is a mint: the likely factory. */
  likelyCreator: string | null;
}

/**
 * The fallback for nodes without traces: emitters of ERC-20 Transfer logs (three topics; ERC-721
 * has four) that are not already known. The caller confirms each by checking that the address
 * had no code before this block.
 */
export function transferLogCandidates(
  receipts: readonly RpcReceipt[],
  exclude: ReadonlySet<string>,
): TransferCandidate[] {
  const found = new Map<string, TransferCandidate>();
  for (const receipt of receipts) {
    if (!succeeded(receipt)) continue;
    for (const log of receipt.logs) {
      if (log.topics.length !== 3 || lower(log.topics[0] ?? '') !== TRANSFER_TOPIC) continue;
      const address = lower(log.address);
      if (exclude.has(address) || found.has(address)) continue;
      const isMint = lower(log.topics[1] ?? '') === ZERO_TOPIC;
      found.set(address, {
        address,
        txHash: lower(receipt.transactionHash),
        txOrigin: lower(receipt.from),
        likelyCreator: isMint && receipt.to ? lower(receipt.to) : null,
      });
    }
  }
  return [...found.values()];
}

function succeeded(receipt: RpcReceipt): boolean {
  // Pre-Byzantium receipts have no status; treat them as successful.
  return receipt.status === undefined || receipt.status === SUCCESS;
}

function isCreate(type: string): boolean {
  const t = type.toUpperCase();
  return t === 'CREATE' || t === 'CREATE2';
}
