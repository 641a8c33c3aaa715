import type { JsonRpcProvider } from 'ethers';
import { type MinedReceipt, waitMined } from '../test/support/chain.ts';

/**
 * Bench deployments wait for receipts by polling the node by hash (test/support/chain.ts). ethers'
 * `tx.wait()` subscribes to new blocks and can miss a transaction that an automining Anvil mined
 * before the subscription (no later block ever comes); and once the provider is destroyed, a
 * pending wait rejects with "provider destroyed; cancelled request" — which is how a whole bench
 * run used to be lost.
 */

/** A loaded bench machine mines slower than a test's: twice the tests' patience. */
const BENCH_RECEIPT_TIMEOUT_MS = 60_000;

/** Waits for a sent transaction (anything with a hash) by polling; throws on a revert. */
export async function mined(
  provider: JsonRpcProvider,
  sent: { hash: string } | null | undefined,
): Promise<MinedReceipt> {
  if (!sent) throw new Error('no transaction to wait for');
  return waitMined(provider, sent, BENCH_RECEIPT_TIMEOUT_MS);
}
