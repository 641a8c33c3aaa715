import type { JsonRpcProvider } from 'ethers';

/**
 * Bench deployments wait for receipts by polling the node by hash. ethers' `tx.wait()` subscribes
 * to new blocks and can miss a transaction that an automining Anvil mined before the subscription
 * (no later block ever comes); and once the provider is destroyed, a pending wait rejects with
 * "provider destroyed; cancelled request" — which is how a whole bench run used to be lost.
 */

const RECEIPT_POLL_MS = 10;
const RECEIPT_TIMEOUT_MS = 60_000;

export interface MinedReceipt {
  status: string;
  blockNumber: number;
  contractAddress: string | null;
}

/** The receipt of `hash` once mined; throws on a revert or after RECEIPT_TIMEOUT_MS. */
export async function minedReceipt(provider: JsonRpcProvider, hash: string): Promise<MinedReceipt> {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const raw = (await provider.send('eth_getTransactionReceipt', [hash])) as {
      status: string;
      blockNumber: string;
      contractAddress: string | null;
    } | null;
    if (raw) {
      if (raw.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return {
        status: raw.status,
        blockNumber: Number(raw.blockNumber),
        contractAddress: raw.contractAddress,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
  throw new Error(`transaction ${hash} not mined within ${RECEIPT_TIMEOUT_MS} ms`);
}

/** Waits for a sent transaction (anything with a hash) by polling. */
export async function mined(
  provider: JsonRpcProvider,
  sent: { hash: string } | null | undefined,
): Promise<MinedReceipt> {
  if (!sent) throw new Error('no transaction to wait for');
  return minedReceipt(provider, sent.hash);
}
