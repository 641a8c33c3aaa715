// Deploys Uniswap V2 (WETH9, factory, Router02 from the official npm build artifacts), our
// Multicall3 and, on request, Uniswap V3 core (factory from @uniswap/v3-core's artifacts plus our
// V3PoolHelper, which answers the pool callbacks in place of the periphery) onto a dev chain.
import { Contract, ContractFactory, getAddress, keccak256, type Signer } from 'ethers';
import { type Artifact, loadArtifact, uniswapArtifact } from '../../../contracts/artifacts.ts';

export interface UniswapV2Deployment {
  weth: string;
  factory: string;
  router: string;
  multicall3: string;
}

async function deploy(artifact: Artifact, signer: Signer, args: unknown[] = []): Promise<string> {
  const contract = await new ContractFactory(artifact.abi, artifact.bytecode, signer).deploy(
    ...args,
  );
  await contract.waitForDeployment();
  return getAddress(await contract.getAddress());
}

/**
 * Deploys sequentially (one signer, so nonces stay in order). The npm Router02 has the pair
 * init-code hash of the npm UniswapV2Pair build baked in (0x96e8ac42…8845f, not mainnet's
 * 0x96e8ac42…9c2c), so it computes the right pair addresses for this factory.
 */
export async function deployUniswapV2(signer: Signer): Promise<UniswapV2Deployment> {
  const feeToSetter = await signer.getAddress();
  const weth = await deploy(uniswapArtifact('WETH9'), signer);
  const factory = await deploy(uniswapArtifact('UniswapV2Factory'), signer, [feeToSetter]);
  const router = await deploy(uniswapArtifact('UniswapV2Router02'), signer, [factory, weth]);
  const multicall3 = await deploy(loadArtifact('Multicall3'), signer);
  return { weth, factory, router, multicall3 };
}

/** keccak256 of the UniswapV2Pair creation code: the CREATE2 init-code hash of this factory's pairs. */
export function uniswapV2PairInitCodeHash(): string {
  return keccak256(uniswapArtifact('UniswapV2Pair').bytecode);
}

export interface UniswapV3Deployment {
  factory: string;
  /** Adds liquidity and swaps against bare V3 pools (contracts/src/service/V3PoolHelper.sol). */
  helper: string;
}

/** Uniswap V3 core from the npm artifacts; its factory enables the 100/500/3000/10000 fee tiers. */
export async function deployUniswapV3(signer: Signer): Promise<UniswapV3Deployment> {
  const factory = await deploy(uniswapArtifact('UniswapV3Factory'), signer);
  const helper = await deploy(loadArtifact('V3PoolHelper'), signer);
  return { factory, helper };
}

/** The dev chain's price of its native token, set by the seeded stablecoin pool. */
export const DEV_NATIVE_USD = 3_000n;
const DEV_STABLE_DECIMALS = 6n;
const DEV_STABLE_SUPPLY = 10n ** 12n * 10n ** DEV_STABLE_DECIMALS;
const DEV_POOL_NATIVE = 100n * 10n ** 18n;

/**
 * The dev chain's USDT: a second 6-decimal USD stablecoin, without a pool. It is there to be
 * copied: the demo launcher's look-alike kind takes its name and symbol (src/tokens/lookalike.ts).
 */
export async function deployDevTether(signer: Signer): Promise<string> {
  return deploy(loadArtifact('DevStablecoin'), signer, ['Tether USD', 'USDT', DEV_STABLE_SUPPLY]);
}

/**
 * A 6-decimal USD stablecoin and a WETH/stablecoin V2 pool at `nativeUsd` (100 ETH deep), so that
 * the dev chain prices its tokens in USD the way a real chain does: through wrapped native.
 */
export async function seedStablecoinPool(
  signer: Signer,
  uniswap: UniswapV2Deployment,
  nativeUsd = DEV_NATIVE_USD,
): Promise<string> {
  const stable = await deploy(loadArtifact('DevStablecoin'), signer, [
    'USD Coin (dev)',
    'USDC',
    DEV_STABLE_SUPPLY,
  ]);
  const stableAmount = (DEV_POOL_NATIVE * nativeUsd * 10n ** DEV_STABLE_DECIMALS) / 10n ** 18n;
  const token = new Contract(stable, loadArtifact('DevStablecoin').abi, signer);
  await (await token.getFunction('approve')(uniswap.router, stableAmount)).wait();
  const router = new Contract(uniswap.router, uniswapArtifact('UniswapV2Router02').abi, signer);
  const deadline = Math.floor(Date.now() / 1000) + 3_600;
  const owner = await signer.getAddress();
  await (
    await router.getFunction('addLiquidityETH')(stable, stableAmount, 0, 0, owner, deadline, {
      value: DEV_POOL_NATIVE,
    })
  ).wait();
  return stable;
}
