// Deploys Uniswap V2 (WETH9, factory, Router02 from the official npm build artifacts), our
// Multicall3 and, on request, Uniswap V3 core (factory from @uniswap/v3-core's artifacts plus our
// V3PoolHelper, which answers the pool callbacks in place of the periphery) onto a dev chain.
import { ContractFactory, getAddress, keccak256, type Signer } from 'ethers';
import { loadArtifact, uniswapArtifact, type Artifact } from '../../contracts/artifacts.ts';

export interface UniswapV2Deployment {
  weth: string;
  factory: string;
  router: string;
  multicall3: string;
}

async function deploy(artifact: Artifact, signer: Signer, args: unknown[] = []): Promise<string> {
  const contract = await new ContractFactory(artifact.abi, artifact.bytecode, signer).deploy(...args);
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
  /** Adds liquidity and swaps against bare V3 pools (contracts/src/V3PoolHelper.sol). */
  helper: string;
}

/** Uniswap V3 core from the npm artifacts; its factory enables the 100/500/3000/10000 fee tiers. */
export async function deployUniswapV3(signer: Signer): Promise<UniswapV3Deployment> {
  const factory = await deploy(uniswapArtifact('UniswapV3Factory'), signer);
  const helper = await deploy(loadArtifact('V3PoolHelper'), signer);
  return { factory, helper };
}
