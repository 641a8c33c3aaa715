import { AbiCoder, zeroPadValue } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { RpcReceipt } from '../evm/types.ts';
import { PAIR_CREATED_TOPIC, POOL_CREATED_TOPIC, V2_MINT_TOPIC, V3_MINT_TOPIC } from './abi.ts';
import { baseTokensOf, poolCreations, poolMints } from './pairs.ts';
import { V4_INITIALIZE_TOPIC } from './v4/index.ts';

const abi = AbiCoder.defaultAbiCoder();
const V2_FACTORY = '0xf200000000000000000000000000000000000002';
const V3_FACTORY = '0xf300000000000000000000000000000000000003';
const A = '0xa000000000000000000000000000000000000001';
const WETH = '0xb000000000000000000000000000000000000002';
const PAIR = '0xc000000000000000000000000000000000000003';
const POOL = '0xd000000000000000000000000000000000000004';
const V4_MANAGER = '0xf400000000000000000000000000000000000004';
const ZERO = '0x0000000000000000000000000000000000000000';
const topic = (a: string) => zeroPadValue(a, 32);

const receipt = (logs: RpcReceipt['logs'], status = '0x1'): RpcReceipt => ({
  transactionHash: '0xfeed',
  from: A,
  to: V2_FACTORY,
  contractAddress: null,
  status,
  gasUsed: '0x1',
  blockNumber: '0x1',
  blockHash: '0x1',
  logs,
});

const dexes = [
  { name: 'uniswap-v2', kind: 'v2' as const, factory: V2_FACTORY },
  { name: 'uniswap-v3', kind: 'v3' as const, factory: V3_FACTORY },
];

describe('poolCreations', () => {
  it('reads PairCreated and PoolCreated from the configured factories', () => {
    const found = poolCreations(
      [
        receipt([
          {
            address: V2_FACTORY,
            topics: [PAIR_CREATED_TOPIC, topic(A), topic(WETH)],
            data: abi.encode(['address', 'uint256'], [PAIR, 7]),
            transactionHash: '0xfeed',
          },
          {
            address: V3_FACTORY,
            topics: [POOL_CREATED_TOPIC, topic(A), topic(WETH), zeroPadValue('0x0bb8', 32)],
            data: abi.encode(['int24', 'address'], [60, POOL]),
            transactionHash: '0xfeed',
          },
        ]),
      ],
      dexes,
    );
    expect(found).toEqual([
      {
        dex: 'uniswap-v2',
        kind: 'v2',
        factory: V2_FACTORY,
        address: PAIR,
        token0: A,
        token1: WETH,
        fee: null,
        tickSpacing: null,
        hooks: null,
        txHash: '0xfeed',
      },
      {
        dex: 'uniswap-v3',
        kind: 'v3',
        factory: V3_FACTORY,
        address: POOL,
        token0: A,
        token1: WETH,
        fee: 3000,
        tickSpacing: null,
        hooks: null,
        txHash: '0xfeed',
      },
    ]);
    expect(baseTokensOf(found, new Set([WETH]))).toEqual([A]);
  });

  it('reads Initialize from a configured V4 PoolManager: the pool id is its address, its hook kept', () => {
    const hook = `0x${'ab'.repeat(18)}0080`;
    const id = `0x${'9'.repeat(64)}`;
    const init = {
      address: V4_MANAGER,
      topics: [V4_INITIALIZE_TOPIC, id, topic(ZERO), topic(A)],
      data: abi.encode(
        ['uint24', 'int24', 'address', 'uint160', 'int24'],
        [3000, 60, hook, 2n ** 96n, 0],
      ),
      transactionHash: '0xfeed',
    };
    const v4 = [{ name: 'uniswap-v4', kind: 'v4' as const, factory: V4_MANAGER }];
    const found = poolCreations([receipt([init])], v4);
    expect(found).toEqual([
      {
        dex: 'uniswap-v4',
        kind: 'v4',
        factory: V4_MANAGER,
        address: id,
        token0: ZERO,
        token1: A,
        fee: 3000,
        tickSpacing: 60,
        hooks: hook,
        txHash: '0xfeed',
      },
    ]);
    // Native currency is a quote: the token is what gets the DEX pass.
    expect(baseTokensOf(found, new Set([ZERO, WETH]))).toEqual([A]);
    // The same log from another contract is a look-alike.
    expect(poolCreations([receipt([{ ...init, address: A }])], v4)).toEqual([]);
  });

  it('ignores look-alike events from other contracts and reverted transactions', () => {
    const fake = {
      address: A,
      topics: [PAIR_CREATED_TOPIC, topic(A), topic(WETH)],
      data: abi.encode(['address', 'uint256'], [PAIR, 7]),
      transactionHash: '0xfeed',
    };
    expect(poolCreations([receipt([fake])], dexes)).toEqual([]);
    const real = { ...fake, address: V2_FACTORY };
    expect(poolCreations([receipt([real], '0x0')], dexes)).toEqual([]);
  });
});

describe('poolMints', () => {
  it('names each contract that emitted a V2 or V3 Mint once, outside reverted transactions', () => {
    const v2Mint = {
      address: PAIR.toUpperCase().replace('0X', '0x'),
      topics: [V2_MINT_TOPIC, topic(A)],
      data: abi.encode(['uint256', 'uint256'], [1, 2]),
      transactionHash: '0xfeed',
    };
    const v3Mint = {
      address: POOL,
      topics: [V3_MINT_TOPIC, topic(A), zeroPadValue('0x01', 32), zeroPadValue('0x02', 32)],
      data: '0x',
      transactionHash: '0xfeed',
    };
    const swap = { ...v3Mint, address: A, topics: [PAIR_CREATED_TOPIC] };
    expect(poolMints([receipt([v2Mint, v3Mint, swap]), receipt([v2Mint])])).toEqual([PAIR, POOL]);
    expect(poolMints([receipt([{ ...v2Mint, address: WETH }], '0x0')])).toEqual([]);
  });
});

describe('hand-encoded calls', () => {
  it('match the generic ABI coder', async () => {
    const { Interface } = await import('ethers');
    const { calls } = await import('./abi.ts');
    const iface = new Interface([
      'function getPair(address,address)',
      'function getPool(address,address,uint24)',
      'function balanceOf(address)',
      'function getReserves()',
    ]);
    expect(calls.getPair(V2_FACTORY, A, WETH).data).toBe(
      iface.encodeFunctionData('getPair', [A, WETH]),
    );
    expect(calls.getPool(V3_FACTORY, A, WETH, 10000).data).toBe(
      iface.encodeFunctionData('getPool', [A, WETH, 10000]),
    );
    expect(calls.balanceOf(PAIR, '0x000000000000000000000000000000000000dEaD').data).toBe(
      iface.encodeFunctionData('balanceOf', ['0x000000000000000000000000000000000000dEaD']),
    );
    expect(calls.getReserves(PAIR).data).toBe(iface.encodeFunctionData('getReserves', []));
  });
});
