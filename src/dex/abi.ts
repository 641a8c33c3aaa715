import { id } from 'ethers';
import type { ContractCall } from '../evm/multicall.ts';
import type { RpcOutcome } from '../evm/rpc.ts';

/** The few DEX and ERC-20 functions and events the DEX stage reads, with tolerant decoders. */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** The conventional burn address: LP tokens sent here are gone for good. */
export const DEAD_ADDRESS = '0x000000000000000000000000000000000000dead';

const selector = (signature: string) => id(signature).slice(0, 10);
const SELECTORS = {
  getPair: selector('getPair(address,address)'),
  getPool: selector('getPool(address,address,uint24)'),
  getReserves: selector('getReserves()'),
  slot0: selector('slot0()'),
  liquidity: selector('liquidity()'),
  totalSupply: selector('totalSupply()'),
  balanceOf: selector('balanceOf(address)'),
  decimals: selector('decimals()'),
};
// Arguments are static words, encoded by hand: the generic ABI coder costs more CPU than the
// RPC round trip on a fast node (a refresh builds dozens of calls).
const arg = (value: string | number) =>
  (typeof value === 'number' ? value.toString(16) : value.slice(2).toLowerCase()).padStart(64, '0');

export const calls = {
  getPair: (factory: string, a: string, b: string): ContractCall => ({
    target: factory,
    data: SELECTORS.getPair + arg(a) + arg(b),
  }),
  getPool: (factory: string, a: string, b: string, fee: number): ContractCall => ({
    target: factory,
    data: SELECTORS.getPool + arg(a) + arg(b) + arg(fee),
  }),
  getReserves: (pair: string): ContractCall => ({ target: pair, data: SELECTORS.getReserves }),
  slot0: (pool: string): ContractCall => ({ target: pool, data: SELECTORS.slot0 }),
  liquidity: (pool: string): ContractCall => ({ target: pool, data: SELECTORS.liquidity }),
  totalSupply: (token: string): ContractCall => ({ target: token, data: SELECTORS.totalSupply }),
  balanceOf: (token: string, holder: string): ContractCall => ({
    target: token,
    data: SELECTORS.balanceOf + arg(holder),
  }),
  decimals: (token: string): ContractCall => ({ target: token, data: SELECTORS.decimals }),
};

const WORD_HEX = 64;

/** The n-th 32-byte word of return data as an unsigned integer, or null when absent or not an answer. */
export function word(outcome: RpcOutcome<string> | undefined, index = 0): bigint | null {
  if (!outcome?.ok || typeof outcome.result !== 'string') return null;
  return dataWord(outcome.result, index);
}

/** A word holding an address; the zero address (no pair) and words wider than 160 bits are null. */
export function wordAddress(value: bigint | null): string | null {
  if (value === null || value === 0n || value >= 1n << 160n) return null;
  return `0x${value.toString(16).padStart(40, '0')}`;
}

/** An address answer; the zero address (no pair) and malformed words are null. */
export const addressWord = (outcome: RpcOutcome<string> | undefined): string | null =>
  wordAddress(word(outcome));

/** Uniswap V2 `Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out, address indexed to)`. */
export const V2_SWAP_TOPIC = id('Swap(address,uint256,uint256,uint256,uint256,address)');
/** Uniswap V3 `Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)`. */
export const V3_SWAP_TOPIC = id('Swap(address,address,int256,int256,uint160,uint128,int24)');
/** Uniswap V2 factory `PairCreated(address indexed token0, address indexed token1, address pair, uint)`. */
export const PAIR_CREATED_TOPIC = id('PairCreated(address,address,address,uint256)');
/** Uniswap V3 factory `PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)`. */
export const POOL_CREATED_TOPIC = id('PoolCreated(address,address,uint24,int24,address)');
/** Uniswap V2 pair `Mint(address indexed sender, uint amount0, uint amount1)`: liquidity added. */
export const V2_MINT_TOPIC = id('Mint(address,uint256,uint256)');
/** Uniswap V3 pool `Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)`. */
export const V3_MINT_TOPIC = id('Mint(address,address,int24,int24,uint128,uint256,uint256)');

export const topicAddress = (topic: string | undefined): string | null =>
  topic && /^0x[0-9a-fA-F]{64}$/.test(topic) ? `0x${topic.slice(26).toLowerCase()}` : null;

/** Two's-complement int256 from a 32-byte word. */
export function toSigned256(value: bigint): bigint {
  return value >= 1n << 255n ? value - (1n << 256n) : value;
}

/** Data word `index` of a log's data, unsigned. */
export function dataWord(data: string, index: number): bigint | null {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  const start = index * WORD_HEX;
  if (hex.length < start + WORD_HEX) return null;
  return BigInt(`0x${hex.slice(start, start + WORD_HEX)}`);
}
