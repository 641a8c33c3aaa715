import type { DexConfig } from '../config/chains.ts';
import type { RpcReceipt } from '../evm/types.ts';
import {
  dataWord,
  PAIR_CREATED_TOPIC,
  POOL_CREATED_TOPIC,
  topicAddress,
  wordAddress,
} from './abi.ts';

/**
 * Pools created in a block, from the factories' own events: V2 `PairCreated` and V3
 * `PoolCreated`, emitted only by the configured factories (anyone can emit a look-alike event).
 */

export interface PoolCreation {
  dex: string;
  kind: 'v2' | 'v3';
  factory: string;
  address: string;
  token0: string;
  token1: string;
  fee: number | null;
  txHash: string;
}

export function poolCreations(
  receipts: readonly RpcReceipt[],
  dexes: readonly DexConfig[],
): PoolCreation[] {
  const byFactory = new Map(dexes.map((d) => [d.factory, d]));
  const found: PoolCreation[] = [];
  for (const receipt of receipts) {
    if (receipt.status !== undefined && receipt.status !== '0x1') continue;
    for (const log of receipt.logs) {
      const dex = byFactory.get(log.address.toLowerCase());
      if (!dex) continue;
      const token0 = topicAddress(log.topics[1]);
      const token1 = topicAddress(log.topics[2]);
      if (!token0 || !token1) continue;
      if (dex.kind === 'v2' && log.topics[0] === PAIR_CREATED_TOPIC) {
        // data: pair address, pair count.
        const address = wordAddress(dataWord(log.data, 0));
        if (address)
          found.push({
            dex: dex.name,
            kind: 'v2',
            factory: dex.factory,
            address,
            token0,
            token1,
            fee: null,
            txHash: receipt.transactionHash,
          });
      } else if (dex.kind === 'v3' && log.topics[0] === POOL_CREATED_TOPIC) {
        // topics: token0, token1, fee; data: tickSpacing, pool address.
        const fee = log.topics[3] ? dataWord(log.topics[3], 0) : null;
        const address = wordAddress(dataWord(log.data, 1));
        if (address)
          found.push({
            dex: dex.name,
            kind: 'v3',
            factory: dex.factory,
            address,
            token0,
            token1,
            fee: fee === null ? null : Number(fee),
            txHash: receipt.transactionHash,
          });
      }
    }
  }
  return found;
}

/** The sides of new pools worth a DEX pass: neither the wrapped native token nor a stablecoin (those are quotes). */
export function baseTokensOf(
  pools: readonly PoolCreation[],
  quotes: ReadonlySet<string>,
): string[] {
  return [...new Set(pools.flatMap((p) => [p.token0, p.token1]).filter((t) => !quotes.has(t)))];
}
