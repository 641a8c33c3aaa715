import { Contract, getCreate2Address, keccak256, parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniswapArtifact } from '../../../contracts/artifacts.ts';
import {
  decodePoolState,
  HOOK_FLAGS,
  hookAddressProblems,
  hookPermissions,
  NO_HOOK,
  parseInitialize,
  poolStateCall,
  V4_INITIALIZE_TOPIC,
  virtualReserves,
} from '../../../src/dex/v4/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import {
  addLiquidityV4,
  CREATE2_DEPLOYER,
  deployHook,
  fullRangeLiquidity,
  initializePool,
  mineHookSalt,
  poolKeyOf,
  sqrtPriceX96Of,
  swapV4,
} from './uniswap-v4.ts';

const SUPPLY = parseEther('1000000');
const POOL_TOKENS = parseEther('500000');
const POOL_ETH = parseEther('10');
const FEE = 3000;
const TICK_SPACING = 60;

/** Uniswap V4 from @uniswap/v4-core's own artifacts, on a real Anvil. */
describe('deployUniswapV4', () => {
  let chain: TestChain;
  let token: string;

  beforeAll(async () => {
    chain = await startTestChain({ v4: true });
    token = (await chain.deploy('SimpleToken', ['V4 Token', 'V4T', SUPPLY])).address;
  });
  afterAll(() => chain?.stop());

  const rawCall = (call: { target: string; data: string }) =>
    chain.provider.send('eth_call', [
      { to: call.target, data: call.data },
      'latest',
    ]) as Promise<string>;

  it('deploys the real PoolManager and routers, and pools trade through them', async () => {
    const v4 = chain.v4!;
    for (const address of Object.values(v4))
      expect((await chain.provider.getCode(address)).length).toBeGreaterThan(1000);
    const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING);
    const init = await initializePool(chain.signer, v4, key, sqrtPriceX96Of(POOL_ETH, POOL_TOKENS));
    await addLiquidityV4(
      chain.signer,
      v4,
      key,
      fullRangeLiquidity(POOL_ETH, POOL_TOKENS),
      POOL_ETH + parseEther('1'),
    );

    // The Initialize log, read back by the parser the detect stage uses.
    const logs = (await chain.provider.send('eth_getLogs', [
      {
        address: v4.poolManager,
        topics: [V4_INITIALIZE_TOPIC],
        fromBlock: '0x0',
        toBlock: 'latest',
      },
    ])) as { topics: string[]; data: string; blockNumber: string }[];
    const parsed = logs.map(parseInitialize);
    expect(parsed).toEqual([expect.objectContaining({ ...key, id: init.id })]);

    // extsload as StateLibrary: the price we set, and virtual reserves of the deposit.
    const state = decodePoolState({
      ok: true,
      result: await rawCall(poolStateCall(v4.poolManager, init.id)),
    })!;
    expect(state.sqrtPriceX96).toBe(sqrtPriceX96Of(POOL_ETH, POOL_TOKENS));
    expect(state.lpFee).toBe(FEE);
    const reserves = virtualReserves(state.sqrtPriceX96, state.liquidity);
    // Native currency is currency0; the PoolManager holds exactly what the position took.
    expect(
      Number(reserves.amount0) / Number(await chain.provider.getBalance(v4.poolManager)),
    ).toBeCloseTo(1, 6);
    const erc20 = chain.contract('SimpleToken', token);
    const held = (await erc20.getFunction('balanceOf')(v4.poolManager)) as bigint;
    expect(Number(reserves.amount1) / Number(held)).toBeCloseTo(1, 6);

    // A buy through PoolSwapTest moves tokens to the buyer.
    const before = (await erc20.getFunction('balanceOf')(chain.account)) as bigint;
    await swapV4(chain.signer, v4, key, true, parseEther('0.1'));
    expect((await erc20.getFunction('balanceOf')(chain.account)) as bigint).toBeGreaterThan(before);
  });

  it('deploys hooks at mined addresses whose low 14 bits are their permissions', async () => {
    const v4 = chain.v4!;
    const flags = HOOK_FLAGS.afterSwap | HOOK_FLAGS.afterSwapReturnDelta;
    const hook = await deployHook(
      chain.signer,
      'FeeHook',
      [v4.poolManager, chain.account, 300],
      flags,
    );
    expect(hookPermissions(hook)).toEqual(['afterSwap', 'afterSwapReturnDelta']);
    const fee = new Contract(hook, ['function feeBps() view returns (uint256)'], chain.provider);
    expect(await fee.getFunction('feeBps')()).toBe(300n);
    // The same code and arguments mine the same salt: deploying again is a no-op.
    expect(
      await deployHook(chain.signer, 'FeeHook', [v4.poolManager, chain.account, 300], flags),
    ).toBe(hook);
  });

  it('agrees with the PoolManager on which hook addresses are impossible', async () => {
    const v4 = chain.v4!;
    const manager = new Contract(v4.poolManager, uniswapArtifact('PoolManager').abi, chain.signer);
    // Bit patterns on a fixed 0xcafe… address prefix: valid ones, a return delta without its
    // callback, no bits at all with a static fee.
    const patterns = [
      HOOK_FLAGS.beforeSwap,
      HOOK_FLAGS.beforeSwapReturnDelta,
      HOOK_FLAGS.afterSwapReturnDelta | HOOK_FLAGS.beforeSwap,
      HOOK_FLAGS.afterAddLiquidityReturnDelta,
      HOOK_FLAGS.afterRemoveLiquidity | HOOK_FLAGS.afterRemoveLiquidityReturnDelta,
      0,
    ];
    for (const bits of patterns) {
      const hooks = `0xcafe${'0'.repeat(32)}${bits.toString(16).padStart(4, '0')}`;
      const key = poolKeyOf(NO_HOOK, token, FEE, TICK_SPACING, hooks);
      const accepted = await manager
        .getFunction('initialize')
        .staticCall([key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks], 2n ** 96n)
        .then(
          () => true,
          () => false,
        );
      expect({ bits, accepted }).toEqual({
        bits,
        accepted: hookAddressProblems(hooks, FEE).length === 0,
      });
    }
  });

  it('mines a salt for any flag pattern, at the address CREATE2 gives', () => {
    const { salt, address } = mineHookSalt('0x6080', 0x2abc);
    expect(Number(BigInt(address) & 0x3fffn)).toBe(0x2abc);
    expect(address).toBe(
      getCreate2Address(CREATE2_DEPLOYER, salt, keccak256('0x6080')).toLowerCase(),
    );
  });
});
