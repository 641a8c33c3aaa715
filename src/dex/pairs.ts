import type { DexConfig } from '../config/chains.ts';
import type { RpcLog, RpcReceipt } from '../evm/types.ts';
import {
  dataWord,
  PAIR_CREATED_TOPIC,
  POOL_CREATED_TOPIC,
  topicAddress,
  V2_MINT_TOPIC,
  V3_MINT_TOPIC,
  wordAddress,
} from './abi.ts';
import type { DexKind } from './pricing.ts';
import { liquidityAddedTo, parseInitialize } from './v4/index.ts';

/**
 * Pools created in a block, from the factories' own events: V2 `PairCreated`, V3 `PoolCreated`
 * and V4 `Initialize` (a PoolManager's), emitted only by the configured contracts (anyone can
 * emit a look-alike event).
 */

export interface PoolCreation {
  dex: string;
  kind: DexKind;
  factory: string;
  /** The pool's address; for V4, its pool id. */
  address: string;
  token0: string;
  token1: string;
  fee: number | null;
  /** V4 only (null otherwise): the key's tick spacing and hook address. */
  tickSpacing: number | null;
  hooks: string | null;
  txHash: string;
}

/** A V4 PoolManager's Initialize: the pool id is its address, the hook travels with it. */
function v4Creation(dex: DexConfig, log: RpcLog, txHash: string): PoolCreation | null {
  const init = parseInitialize(log);
  if (!init) return null;
  return {
    dex: dex.name,
    kind: 'v4',
    factory: dex.factory,
    address: init.id,
    token0: init.currency0,
    token1: init.currency1,
    fee: init.fee,
    tickSpacing: init.tickSpacing,
    hooks: init.hooks,
    txHash,
  };
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
      if (dex.kind === 'v4') {
        const pool = v4Creation(dex, log, receipt.transactionHash);
        if (pool) found.push(pool);
        continue;
      }
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
            tickSpacing: null,
            hooks: null,
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
            tickSpacing: null,
            hooks: null,
            txHash: receipt.transactionHash,
          });
      }
    }
  }
  return found;
}

/** A V4 pool that got liquidity, and the PoolManager that holds it. */
export interface V4LiquidityAdd {
  poolId: string;
  poolManager: string;
}

/**
 * V4 pools that got liquidity in these receipts (ModifyLiquidity with a positive delta, from a
 * configured PoolManager). A V4 pool's first liquidity usually comes after its Initialize, in
 * another transaction: this is how the DEX stage hears of it.
 */
export function v4LiquidityAdds(
  receipts: readonly RpcReceipt[],
  dexes: readonly DexConfig[],
): V4LiquidityAdd[] {
  const managers = new Set(dexes.filter((d) => d.kind === 'v4').map((d) => d.factory));
  if (managers.size === 0) return [];
  const adds = new Map<string, V4LiquidityAdd>();
  for (const receipt of receipts) {
    if (receipt.status !== undefined && receipt.status !== '0x1') continue;
    for (const log of receipt.logs) {
      const poolManager = log.address.toLowerCase();
      if (!managers.has(poolManager)) continue;
      const poolId = liquidityAddedTo(log);
      if (poolId) adds.set(poolId, { poolId, poolManager });
    }
  }
  return [...adds.values()];
}

const POOL_MINT_TOPICS = new Set([V2_MINT_TOPIC, V3_MINT_TOPIC]);

/**
 * The contracts that emitted a V2 or V3 `Mint` (liquidity added) in these receipts. A pair made
 * before its liquidity (tokens that must know their pair before the first transfer into it) is
 * funded in a later transaction: this is how the DEX stage hears of it. Anyone can emit a
 * look-alike `Mint`, so only the addresses of pools recorded from the factories' own events count
 * (the caller matches them against the recorded pools).
 */
export function poolMints(receipts: readonly RpcReceipt[]): string[] {
  const emitters = new Set<string>();
  for (const receipt of receipts) {
    if (receipt.status !== undefined && receipt.status !== '0x1') continue;
    for (const log of receipt.logs)
      if (POOL_MINT_TOPICS.has(log.topics[0] ?? '')) emitters.add(log.address.toLowerCase());
  }
  return [...emitters];
}

/** A V4 pool read back from its Initialize log (eth_getLogs), with the block that created it. */
export interface LoggedPoolCreation extends PoolCreation {
  blockNumber: number;
  blockHash: string;
}

/**
 * The V4 pools of Initialize logs fetched by eth_getLogs (each log carries its block), from the
 * configured PoolManagers only.
 */
export function v4PoolsFromLogs(
  logs: readonly RpcLog[],
  dexes: readonly DexConfig[],
): LoggedPoolCreation[] {
  const managers = new Map(dexes.filter((d) => d.kind === 'v4').map((d) => [d.factory, d]));
  return logs.flatMap((log) => {
    const dex = managers.get(log.address.toLowerCase());
    if (!dex || !log.blockNumber || !log.blockHash) return [];
    const pool = v4Creation(dex, log, log.transactionHash);
    if (!pool) return [];
    return [{ ...pool, blockNumber: Number(BigInt(log.blockNumber)), blockHash: log.blockHash }];
  });
}

/** The sides of new pools worth a DEX pass: neither native currency, the wrapped native token nor a stablecoin (those are quotes). */
export function baseTokensOf(
  pools: readonly PoolCreation[],
  quotes: ReadonlySet<string>,
): string[] {
  return [...new Set(pools.flatMap((p) => [p.token0, p.token1]).filter((t) => !quotes.has(t)))];
}
