import {
  Contract,
  ContractFactory,
  encodeBytes32String,
  type InterfaceAbi,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  Wallet,
} from 'ethers';
import {
  ANVIL_PRIVATE_KEYS,
  type AnvilHandle,
  deployUniswapV2,
  deployUniswapV4,
  startAnvil,
  type UniswapV2Deployment,
  type UniswapV4Deployment,
} from '../../app/embedded/index.ts';
import { type ContractName, loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { fromQuantity } from '../../src/evm/rpc.ts';

/** A fresh Anvil with Uniswap V2 and a funded signer, for one test file. */

const RECEIPT_POLL_MS = 10;
const RECEIPT_TIMEOUT_MS = 30_000;

export interface MinedReceipt {
  hash: string;
  blockNumber: number;
  contractAddress: string | null;
  logs: { address: string; topics: string[]; data: string }[];
}

/**
 * Waits for a transaction by polling its receipt by hash. ethers' tx.wait() can miss a
 * transaction that an automining Anvil mines before the wait subscribes to new blocks (no later
 * block ever comes) and hang; a reverted transaction throws here.
 */
export async function waitMined(
  provider: JsonRpcProvider,
  tx: { hash: string } | Promise<{ hash: string }>,
  timeoutMs = RECEIPT_TIMEOUT_MS,
): Promise<MinedReceipt> {
  const { hash } = await tx;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const raw = (await provider.send('eth_getTransactionReceipt', [hash])) as {
      status: string;
      blockNumber: string;
      contractAddress: string | null;
      logs: MinedReceipt['logs'];
    } | null;
    if (raw) {
      if (raw.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return {
        hash,
        blockNumber: fromQuantity(raw.blockNumber),
        contractAddress: raw.contractAddress,
        logs: raw.logs,
      };
    }
    await new Promise((r) => setTimeout(r, RECEIPT_POLL_MS));
  }
  throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`);
}

export interface TestChain {
  anvil: AnvilHandle;
  provider: JsonRpcProvider;
  signer: NonceManager;
  account: string;
  uniswap: UniswapV2Deployment;
  /** Uniswap V4 core (with `v4: true`): the real PoolManager and v4-core's routers. */
  v4?: UniswapV4Deployment;
  deploy(
    name: ContractName,
    args?: unknown[],
  ): Promise<{ address: string; txHash: string; blockNumber: number; contract: Contract }>;
  contract(name: ContractName, address: string): Contract;
  chainConfig(overrides?: Partial<ChainConfig>): ChainConfig;
  stop(): Promise<void>;
}

export async function startTestChain(
  options: { blockTime?: number; extraArgs?: string[]; v4?: boolean } = {},
): Promise<TestChain> {
  const anvil = await startAnvil({
    chainId: LOCAL_CHAIN_ID,
    blockTime: options.blockTime,
    extraArgs: options.extraArgs,
  });
  // No read cache: a stale block number or nonce from the 250 ms default cache makes tests flaky.
  const provider = new JsonRpcProvider(anvil.rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    pollingInterval: 100,
    cacheTimeout: -1,
  });
  const wallet = new Wallet(ANVIL_PRIVATE_KEYS[0], provider);
  const signer = new NonceManager(wallet);
  const uniswap = await deployUniswapV2(signer);
  const v4 = options.v4 ? await deployUniswapV4(signer) : undefined;
  return {
    anvil,
    provider,
    signer,
    account: wallet.address.toLowerCase(),
    uniswap,
    v4,
    async deploy(name, args = []) {
      const artifact = loadArtifact(name);
      const contract = await new ContractFactory(
        artifact.abi as InterfaceAbi,
        artifact.bytecode,
        signer,
      ).deploy(...args);
      const receipt = await waitMined(provider, contract.deploymentTransaction()!);
      return {
        address: (await contract.getAddress()).toLowerCase(),
        txHash: receipt.hash,
        blockNumber: receipt.blockNumber,
        contract: contract as Contract,
      };
    },
    contract(name, address) {
      return new Contract(address, loadArtifact(name).abi as InterfaceAbi, signer);
    },
    chainConfig(overrides = {}) {
      return {
        chainId: LOCAL_CHAIN_ID,
        name: 'Test Anvil',
        rpcUrls: [anvil.rpcUrl],
        confirmations: 0,
        startBlock: 0,
        finalityDepth: 64,
        pollIntervalMs: 100,
        wrappedNative: uniswap.weth.toLowerCase(),
        stablecoins: [],
        dexes: [
          {
            name: 'uniswap-v2',
            kind: 'v2',
            factory: uniswap.factory.toLowerCase(),
            router: uniswap.router.toLowerCase(),
          },
          ...(v4 ? [{ name: 'uniswap-v4', kind: 'v4' as const, factory: v4.poolManager }] : []),
        ],
        ephemeral: false,
        ...overrides,
      };
    },
    async stop() {
      provider.destroy();
      await anvil.stop();
    },
  };
}

/** Adds token/WETH liquidity through the real Router02; returns the pair address. */
export async function addLiquidity(
  chain: TestChain,
  token: string,
  tokenAmount: bigint,
  ethAmount = parseEther('1'),
): Promise<string> {
  const erc20 = chain.contract('SimpleToken', token);
  await waitMined(chain.provider, erc20.getFunction('approve')(chain.uniswap.router, tokenAmount));
  const router = new Contract(
    chain.uniswap.router,
    uniswapArtifact('UniswapV2Router02').abi as InterfaceAbi,
    chain.signer,
  );
  const deadline = Math.floor(Date.now() / 1000) + 3600;
  await waitMined(
    chain.provider,
    router.getFunction('addLiquidityETH')(token, tokenAmount, 0, 0, chain.account, deadline, {
      value: ethAmount,
    }),
  );
  const factory = new Contract(
    chain.uniswap.factory,
    uniswapArtifact('UniswapV2Factory').abi as InterfaceAbi,
    chain.signer,
  );
  return (
    (await factory.getFunction('getPair')(token, chain.uniswap.weth)) as string
  ).toLowerCase();
}

export { encodeBytes32String, parseEther };
