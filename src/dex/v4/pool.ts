import { AbiCoder, id, keccak256 } from 'ethers';
import type { ContractCall } from '../../evm/multicall.ts';
import type { RpcOutcome } from '../../evm/rpc.ts';
import { dataWord, topicAddress, toSigned256, wordAddress } from '../abi.ts';
import { NO_HOOK } from './hooks.ts';

/**
 * Uniswap V4 pools: one PoolManager holds them all, each named by the id of its key (currency0,
 * currency1, fee, tickSpacing, hooks). Pools are announced by the manager's Initialize event, and
 * their state is read from its storage with extsload, as v4-core's StateLibrary does.
 */

export interface V4PoolKey {
  /** Sorted: currency0 < currency1; native currency is the zero address. */
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
}

/** `Initialize(PoolId indexed id, Currency indexed currency0, Currency indexed currency1, uint24 fee, int24 tickSpacing, IHooks hooks, uint160 sqrtPriceX96, int24 tick)`. */
export const V4_INITIALIZE_TOPIC = id(
  'Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)',
);
/** `Swap(PoolId indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)`. */
export const V4_SWAP_TOPIC = id('Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)');

/** `ModifyLiquidity(PoolId indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)`. */
export const V4_MODIFY_LIQUIDITY_TOPIC = id(
  'ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)',
);

/** StateLibrary.POOLS_SLOT: `pools` is the PoolManager's storage slot 6. */
const POOLS_SLOT = 6n;
/** Pool.State words read: slot0, feeGrowthGlobal0X128, feeGrowthGlobal1X128, liquidity. */
const STATE_WORDS = 4;
const LIQUIDITY_OFFSET = 3;
const EXTSLOAD_RANGE_SELECTOR = id('extsload(bytes32,uint256)').slice(0, 10);
const Q96 = 1n << 96n;
const MASK_160 = (1n << 160n) - 1n;
const MASK_24 = (1n << 24n) - 1n;
const MASK_128 = (1n << 128n) - 1n;

const coder = AbiCoder.defaultAbiCoder();
const word = (n: bigint) => n.toString(16).padStart(64, '0');

export const isPoolId = (value: string) => /^0x[0-9a-f]{64}$/.test(value);

/** PoolId: keccak256(abi.encode(key)). */
export function poolId(key: V4PoolKey): string {
  return keccak256(
    coder.encode(
      ['address', 'address', 'uint24', 'int24', 'address'],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
}

/** Where Pool.State of `id` starts in the PoolManager's storage: keccak256(id . POOLS_SLOT). */
export function poolStateSlot(poolIdHex: string): string {
  return keccak256(`0x${poolIdHex.slice(2)}${word(POOLS_SLOT)}`);
}

/** One eth_call reading slot0 and the liquidity of a pool (extsload of four words). */
export function poolStateCall(poolManager: string, poolIdHex: string): ContractCall {
  return {
    target: poolManager,
    data: `${EXTSLOAD_RANGE_SELECTOR}${poolStateSlot(poolIdHex).slice(2)}${word(BigInt(STATE_WORDS))}`,
  };
}

export interface V4PoolState {
  sqrtPriceX96: bigint;
  tick: number;
  protocolFee: number;
  lpFee: number;
  liquidity: bigint;
}

/** extsload's bytes32[] answer decoded as StateLibrary does; null when it is no such answer. */
export function decodePoolState(outcome: RpcOutcome<string> | undefined): V4PoolState | null {
  if (!outcome?.ok || typeof outcome.result !== 'string') return null;
  // (offset, length, words…)
  const length = dataWord(outcome.result, 1);
  if (length === null || length < BigInt(STATE_WORDS)) return null;
  const slot0 = dataWord(outcome.result, 2);
  const liquidity = dataWord(outcome.result, 2 + LIQUIDITY_OFFSET);
  if (slot0 === null || liquidity === null) return null;
  const tick = Number(BigInt.asIntN(24, (slot0 >> 160n) & MASK_24));
  return {
    sqrtPriceX96: slot0 & MASK_160,
    tick,
    protocolFee: Number((slot0 >> 184n) & MASK_24),
    lpFee: Number((slot0 >> 208n) & MASK_24),
    liquidity: liquidity & MASK_128,
  };
}

/**
 * The amounts the in-range liquidity stands for at the current price: x = L / √P, y = L · √P.
 * Exact for full-range positions; concentrated positions hold less than this (the PoolManager
 * keeps every pool's tokens together, so a pool's own balances cannot be read).
 */
export function virtualReserves(
  sqrtPriceX96: bigint,
  liquidity: bigint,
): { amount0: bigint; amount1: bigint } {
  if (sqrtPriceX96 === 0n || liquidity === 0n) return { amount0: 0n, amount1: 0n };
  return {
    amount0: (liquidity * Q96) / sqrtPriceX96,
    amount1: (liquidity * sqrtPriceX96) / Q96,
  };
}

export interface V4Initialize extends V4PoolKey {
  id: string;
  sqrtPriceX96: bigint;
  tick: number;
}

/** An Initialize log's pool, or null when the log is not one (wrong topic, malformed words). */
export function parseInitialize(log: {
  topics: readonly string[];
  data: string;
}): V4Initialize | null {
  if (log.topics[0] !== V4_INITIALIZE_TOPIC) return null;
  const idTopic = log.topics[1];
  // Native currency is the zero address, which topicAddress keeps (it is not "no pool" here).
  const currency0 = topicAddress(log.topics[2]);
  const currency1 = topicAddress(log.topics[3]);
  if (!idTopic || !/^0x[0-9a-fA-F]{64}$/.test(idTopic) || !currency0 || !currency1) return null;
  const fee = dataWord(log.data, 0);
  const tickSpacing = dataWord(log.data, 1);
  const hooksWord = dataWord(log.data, 2);
  const sqrtPriceX96 = dataWord(log.data, 3);
  const tick = dataWord(log.data, 4);
  if (fee === null || tickSpacing === null || hooksWord === null || sqrtPriceX96 === null)
    return null;
  if (tick === null || fee > MASK_24 || hooksWord > MASK_160) return null;
  return {
    id: idTopic.toLowerCase(),
    currency0,
    currency1,
    fee: Number(fee),
    tickSpacing: Number(toSigned256(tickSpacing)),
    hooks: wordAddress(hooksWord) ?? NO_HOOK,
    sqrtPriceX96,
    tick: Number(toSigned256(tick)),
  };
}

/** The quote-side amount of a V4 Swap log (the absolute delta of that currency), or null. */
export function v4SwapQuoteAmount(
  log: { topics: readonly string[]; data: string },
  quoteIs0: boolean,
): bigint | null {
  if (log.topics[0] !== V4_SWAP_TOPIC) return null;
  const raw = dataWord(log.data, quoteIs0 ? 0 : 1);
  if (raw === null) return null;
  const signed = toSigned256(raw);
  return signed < 0n ? -signed : signed;
}

/** The pool id of a ModifyLiquidity log that added liquidity, or null (removal, other log, malformed). */
export function liquidityAddedTo(log: { topics: readonly string[]; data: string }): string | null {
  if (log.topics[0] !== V4_MODIFY_LIQUIDITY_TOPIC) return null;
  const idTopic = log.topics[1];
  const delta = dataWord(log.data, 2);
  if (!idTopic || !/^0x[0-9a-fA-F]{64}$/.test(idTopic) || delta === null) return null;
  return toSigned256(delta) > 0n ? idTopic.toLowerCase() : null;
}
