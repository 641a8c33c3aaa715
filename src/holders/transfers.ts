import { TRANSFER_TOPIC } from '../evm/deployments.ts';
import type { RpcReceipt } from '../evm/types.ts';

/**
 * ERC-20 Transfer logs of a block, and the balance changes they make (docs/architecture.md,
 * "Holders"). Pure: the holders sequencer (db/repositories/holders.ts) applies the changes.
 */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * Addresses tokens are sent to for good ("burned" without lowering the supply). The zero address
 * is not among them: a Transfer to it is a burn that lowers the supply (and a Transfer from it a
 * mint), so it is never tracked as a holder.
 */
export const BURN_ADDRESSES: ReadonlySet<string> = new Set([
  '0x000000000000000000000000000000000000dead',
  '0xdead000000000000000042069420694206942069',
  '0xdead000000000000000000000000000000000000',
]);

/** One Transfer: emitter (the token or LP token), from, to, amount. */
export interface Transfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
}

const WORD = /^0x[0-9a-fA-F]{64}$/;
const topicAddress = (topic: string) => `0x${topic.slice(26).toLowerCase()}`;

/**
 * The ERC-20 Transfer logs of `receipts`: three topics (ERC-721's has four, its id indexed) and a
 * 32-byte amount. Logs of reverted transactions are absent from receipts already; a receipt whose
 * status says it failed is skipped as well.
 */
export function transfersOf(receipts: readonly RpcReceipt[]): Transfer[] {
  const out: Transfer[] = [];
  for (const receipt of receipts) {
    if (receipt.status === '0x0') continue;
    for (const log of receipt.logs) {
      if (log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
      if (!WORD.test(log.data)) continue;
      const [, from, to] = log.topics as [string, string, string];
      if (!WORD.test(from) || !WORD.test(to)) continue;
      out.push({
        token: log.address.toLowerCase(),
        from: topicAddress(from),
        to: topicAddress(to),
        value: BigInt(log.data),
      });
    }
  }
  return out;
}

/** A holder's net change in one token over a set of transfers. */
export interface BalanceChange {
  token: string;
  holder: string;
  delta: bigint;
}

/**
 * Net balance changes per (token, holder) of the transfers whose token is in `tracked`. The zero
 * address is skipped on both sides (mints and burns); a self-transfer nets to nothing.
 */
export function balanceChanges(
  transfers: readonly Transfer[],
  tracked: ReadonlySet<string>,
): BalanceChange[] {
  const net = new Map<string, bigint>();
  const add = (token: string, holder: string, delta: bigint) => {
    if (holder === ZERO_ADDRESS) return;
    const key = `${token}:${holder}`;
    net.set(key, (net.get(key) ?? 0n) + delta);
  };
  for (const t of transfers) {
    if (!tracked.has(t.token) || t.value === 0n) continue;
    add(t.token, t.from, -t.value);
    add(t.token, t.to, t.value);
  }
  const out: BalanceChange[] = [];
  for (const [key, delta] of net) {
    if (delta === 0n) continue;
    const [token, holder] = key.split(':') as [string, string];
    out.push({ token, holder, delta });
  }
  return out;
}

/** The compact form a block's transfers wait in (db holder_pending): [token, from, to, value]. */
export type PackedTransfer = [string, string, string, string];

export const packTransfers = (transfers: readonly Transfer[]): PackedTransfer[] =>
  transfers.map((t) => [t.token, t.from, t.to, t.value.toString()]);

export const unpackTransfers = (packed: readonly PackedTransfer[]): Transfer[] =>
  packed.map(([token, from, to, value]) => ({ token, from, to, value: BigInt(value) }));
