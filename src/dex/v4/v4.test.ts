import { AbiCoder, keccak256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  DYNAMIC_FEE_FLAG,
  decodePoolState,
  hookAddressProblems,
  hookPermissions,
  liquidityAddedTo,
  NO_HOOK,
  parseInitialize,
  poolId,
  V4_INITIALIZE_TOPIC,
  V4_MODIFY_LIQUIDITY_TOPIC,
  virtualReserves,
} from './index.ts';

const coder = AbiCoder.defaultAbiCoder();
const hookWith = (bits: number) => `0x${'ab'.repeat(18)}${bits.toString(16).padStart(4, '0')}`;

describe('hook permissions', () => {
  it('reads the low 14 bits of the address as permissions, in v4-core order', () => {
    expect(hookPermissions(hookWith(0x80))).toEqual(['beforeSwap']);
    expect(hookPermissions(hookWith(0x44))).toEqual(['afterSwap', 'afterSwapReturnDelta']);
    expect(hookPermissions(hookWith(0x3fff))).toHaveLength(14);
    // Bits above the 14 are not permissions.
    expect(hookPermissions(hookWith(0xc000))).toEqual([]);
  });

  it('explains the addresses the PoolManager refuses', () => {
    expect(hookAddressProblems(hookWith(0x08), 3000)).toEqual([
      'permission beforeSwapReturnDelta without beforeSwap: the delta could never be returned',
    ]);
    expect(hookAddressProblems(hookWith(0x00), 3000)).toHaveLength(1);
    // No bits is fine when the hook sets a dynamic fee; no hook with a dynamic fee is not.
    expect(hookAddressProblems(hookWith(0x00), DYNAMIC_FEE_FLAG)).toEqual([]);
    expect(hookAddressProblems(NO_HOOK, DYNAMIC_FEE_FLAG)).toHaveLength(1);
    expect(hookAddressProblems(NO_HOOK, 500)).toEqual([]);
  });
});

describe('pool state and logs', () => {
  const key = {
    currency0: NO_HOOK,
    currency1: `0x${'11'.repeat(20)}`,
    fee: 3000,
    tickSpacing: 60,
    hooks: hookWith(0x80),
  };

  it('parses an Initialize log, negative ticks included, and refuses other logs', () => {
    const id = poolId(key);
    const topics = [
      V4_INITIALIZE_TOPIC,
      id,
      coder.encode(['address'], [key.currency0]),
      coder.encode(['address'], [key.currency1]),
    ];
    const data = coder.encode(
      ['uint24', 'int24', 'address', 'uint160', 'int24'],
      [key.fee, key.tickSpacing, key.hooks, 2n ** 96n, -23028],
    );
    expect(parseInitialize({ topics, data })).toEqual({
      ...key,
      id,
      sqrtPriceX96: 2n ** 96n,
      tick: -23028,
    });
    expect(parseInitialize({ topics: [keccak256('0x01'), ...topics.slice(1)], data })).toBeNull();
    expect(parseInitialize({ topics, data: data.slice(0, 100) })).toBeNull();
  });

  it('tells a liquidity add from a removal in ModifyLiquidity logs', () => {
    const id = poolId(key);
    const log = (delta: bigint) => ({
      topics: [V4_MODIFY_LIQUIDITY_TOPIC, id, coder.encode(['address'], [key.currency1])],
      data: coder.encode(
        ['int24', 'int24', 'int256', 'bytes32'],
        [-60, 60, delta, `0x${'0'.repeat(64)}`],
      ),
    });
    expect(liquidityAddedTo(log(10n ** 18n))).toBe(id);
    expect(liquidityAddedTo(log(-(10n ** 18n)))).toBeNull();
    expect(liquidityAddedTo({ ...log(1n), topics: [V4_INITIALIZE_TOPIC, id] })).toBeNull();
  });

  it('decodes extsload words as StateLibrary does, and refuses short answers', () => {
    const slot0 = (3000n << 208n) | (BigInt.asUintN(24, -5n) << 160n) | (2n ** 96n);
    const words = [slot0, 0n, 0n, 10n ** 18n];
    const result = coder.encode(
      ['bytes32[]'],
      [words.map((w) => `0x${w.toString(16).padStart(64, '0')}`)],
    );
    expect(decodePoolState({ ok: true, result })).toEqual({
      sqrtPriceX96: 2n ** 96n,
      tick: -5,
      protocolFee: 0,
      lpFee: 3000,
      liquidity: 10n ** 18n,
    });
    expect(decodePoolState({ ok: true, result: coder.encode(['bytes32[]'], [[]]) })).toBeNull();
    expect(virtualReserves(2n ** 96n * 2n, 100n)).toEqual({ amount0: 50n, amount1: 200n });
    expect(virtualReserves(0n, 100n)).toEqual({ amount0: 0n, amount1: 0n });
  });
});
