import {
  Contract,
  ContractFactory,
  getCreate2Address,
  Interface,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  solidityPackedKeccak256,
  Wallet,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact, uniswapArtifact } from '../../../contracts/artifacts.ts';
import { ANVIL_PRIVATE_KEYS, type AnvilHandle, startAnvil } from './anvil.ts';
import { deployUniswapV2, type UniswapV2Deployment, uniswapV2PairInitCodeHash } from './uniswap.ts';

const TOKEN_SUPPLY = parseEther('1000000');
const LIQUIDITY_TOKENS = parseEther('400000');
const LIQUIDITY_ETH = parseEther('10');
const SWAP_ETH = parseEther('0.5');
// Explicit gas for swaps: an estimate taken in the block of the liquidity add misses the
// price-accumulator writes the swap makes when it lands a second later.
const SWAP_GAS_LIMIT = 400_000n;

describe('deployUniswapV2', () => {
  let anvil: AnvilHandle;
  let provider: JsonRpcProvider;
  let signer: NonceManager;
  let me: string;
  let uni: UniswapV2Deployment;
  let token: Contract;
  let tokenAddress: string;
  let pairAddress: string;

  const deadline = () => Math.floor(Date.now() / 1000) + 600;

  beforeAll(async () => {
    anvil = await startAnvil();
    provider = new JsonRpcProvider(anvil.rpcUrl, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    const wallet = new Wallet(ANVIL_PRIVATE_KEYS[0], provider);
    me = wallet.address;
    signer = new NonceManager(wallet);
    uni = await deployUniswapV2(signer);
    const art = loadArtifact('SimpleToken');
    const deployed = await new ContractFactory(art.abi, art.bytecode, signer).deploy(
      'Test Token',
      'TST',
      TOKEN_SUPPLY,
    );
    await deployed.waitForDeployment();
    tokenAddress = await deployed.getAddress();
    token = new Contract(tokenAddress, art.abi, signer);
  });

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  it('deploys code at every returned address, checksummed', async () => {
    for (const addr of Object.values(uni)) {
      expect(addr).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(addr).not.toBe(addr.toLowerCase());
      expect((await provider.getCode(addr)).length).toBeGreaterThan(2);
    }
    const router = new Contract(uni.router, uniswapArtifact('UniswapV2Router02').abi, provider);
    expect(await router.getFunction('factory')()).toBe(uni.factory);
    expect(await router.getFunction('WETH')()).toBe(uni.weth);
  });

  it('addLiquidityETH creates a pair whose reserves equal what was added', async () => {
    await (await token.getFunction('approve')(uni.router, LIQUIDITY_TOKENS)).wait();
    const router = new Contract(uni.router, uniswapArtifact('UniswapV2Router02').abi, signer);
    const tx = await router.getFunction('addLiquidityETH')(
      tokenAddress,
      LIQUIDITY_TOKENS,
      0,
      0,
      me,
      deadline(),
      {
        value: LIQUIDITY_ETH,
      },
    );
    expect((await tx.wait())?.status).toBe(1);

    const factory = new Contract(uni.factory, uniswapArtifact('UniswapV2Factory').abi, provider);
    pairAddress = await factory.getFunction('getPair')(tokenAddress, uni.weth);
    // The router computes pair addresses from its baked-in init-code hash: it must agree with
    // the factory's CREATE2 result, or every router call would target an empty address.
    const [t0, t1] =
      tokenAddress.toLowerCase() < uni.weth.toLowerCase()
        ? [tokenAddress, uni.weth]
        : [uni.weth, tokenAddress];
    const salt = solidityPackedKeccak256(['address', 'address'], [t0, t1]);
    expect(getCreate2Address(uni.factory, salt, uniswapV2PairInitCodeHash())).toBe(pairAddress);

    const pair = new Contract(pairAddress, uniswapArtifact('UniswapV2Pair').abi, provider);
    const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint, bigint];
    const tokenIsToken0 = (await pair.getFunction('token0')()) === tokenAddress;
    expect(tokenIsToken0 ? r0 : r1).toBe(LIQUIDITY_TOKENS);
    expect(tokenIsToken0 ? r1 : r0).toBe(LIQUIDITY_ETH);
  });

  it('swaps ETH for the token through the router', async () => {
    const router = new Contract(uni.router, uniswapArtifact('UniswapV2Router02').abi, signer);
    const path = [uni.weth, tokenAddress];
    const [, expectedOut] = (await router.getFunction('getAmountsOut')(SWAP_ETH, path)) as bigint[];
    const before = (await token.getFunction('balanceOf')(me)) as bigint;
    const tx = await router.getFunction('swapExactETHForTokens')(0, path, me, deadline(), {
      value: SWAP_ETH,
      gasLimit: SWAP_GAS_LIMIT,
    });
    expect((await tx.wait())?.status).toBe(1);
    const after = (await token.getFunction('balanceOf')(me)) as bigint;
    expect(after - before).toBe(expectedOut);
    expect(expectedOut).toBeGreaterThan(0n);
  });

  it('Multicall3 aggregate3 returns balances and tolerates allowed failures', async () => {
    const mc = new Contract(uni.multicall3, loadArtifact('Multicall3').abi, provider);
    const erc20 = new Interface(loadArtifact('SimpleToken').abi);
    const calls = [
      {
        target: tokenAddress,
        allowFailure: false,
        callData: erc20.encodeFunctionData('balanceOf', [me]),
      },
      {
        target: tokenAddress,
        allowFailure: false,
        callData: erc20.encodeFunctionData('balanceOf', [pairAddress]),
      },
      // Multicall3 has no totalSupply(): this call reverts and is reported, not thrown.
      {
        target: uni.multicall3,
        allowFailure: true,
        callData: erc20.encodeFunctionData('totalSupply'),
      },
    ];
    const results = (await mc.getFunction('aggregate3').staticCall(calls)) as [boolean, string][];
    expect(results).toHaveLength(3);
    const [mine, pairs, failed] = results as [
      [boolean, string],
      [boolean, string],
      [boolean, string],
    ];
    expect(mine[0]).toBe(true);
    expect(BigInt(mine[1])).toBe(await token.getFunction('balanceOf')(me));
    expect(pairs[0]).toBe(true);
    expect(BigInt(pairs[1])).toBe(await token.getFunction('balanceOf')(pairAddress));
    expect(failed[0]).toBe(false);

    const strict = calls.map((c) => ({ ...c, allowFailure: false }));
    await expect(mc.getFunction('aggregate3').staticCall(strict)).rejects.toThrow();

    expect(await mc.getFunction('getEthBalance')(me)).toBe(await provider.getBalance(me));
    expect(await mc.getFunction('getBlockNumber')()).toBe(BigInt(await provider.getBlockNumber()));
  });
});
