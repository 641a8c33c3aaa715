import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import type { Logger } from 'pino';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../../src/config/chains.ts';
import { ANVIL_PRIVATE_KEYS, startAnvil } from './anvil.ts';
import { createDemoLauncher, type DemoLauncher } from './demo-launcher.ts';
import {
  deployDevTether,
  deployUniswapV2,
  seedStablecoinPool,
  type UniswapV2Deployment,
} from './uniswap.ts';
import { deployUniswapV4 } from './uniswap-v4.ts';

/**
 * The embedded development chain: a fresh Anvil with Uniswap V2 and V4 and a demo launcher that
 * keeps deploying a realistic mix of tokens. It lives and dies with the process (ephemeral).
 */

const DEPLOYER_KEY_INDEX = 0;
const LAUNCHER_KEY_INDEX = 1;

export interface DevChain {
  chain: ChainConfig;
  uniswap: UniswapV2Deployment;
  launcher: DemoLauncher;
  stop(): Promise<void>;
}

export async function startDevChain(options: {
  blockTimeSeconds: number;
  demoIntervalMs: number;
  logger: Logger;
  launch?: boolean;
}): Promise<DevChain> {
  const anvil = await startAnvil({ blockTime: options.blockTimeSeconds, chainId: LOCAL_CHAIN_ID });
  try {
    const provider = new JsonRpcProvider(anvil.rpcUrl, LOCAL_CHAIN_ID, {
      staticNetwork: true,
      pollingInterval: 250,
    });
    const deployer = new Wallet(ANVIL_PRIVATE_KEYS[DEPLOYER_KEY_INDEX], provider);
    const uniswap = await deployUniswapV2(deployer);
    // A USD stablecoin with a WETH pool: token prices and liquidity come out in USD, as on a real chain.
    const stablecoin = (await seedStablecoinPool(deployer, uniswap)).toLowerCase();
    const tether = (await deployDevTether(deployer)).toLowerCase();
    const v4 = await deployUniswapV4(new NonceManager(deployer));
    provider.destroy();
    const launcher = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[LAUNCHER_KEY_INDEX],
      uniswap,
      v4,
      intervalMs: options.demoIntervalMs,
      logger: options.logger.child({ role: 'demo-launcher' }),
    });
    if (options.launch !== false) launcher.start();
    const chain: ChainConfig = {
      chainId: LOCAL_CHAIN_ID,
      name: 'Local (Anvil)',
      rpcUrls: [anvil.rpcUrl],
      wsUrl: anvil.wsUrl,
      confirmations: 0,
      startBlock: 0,
      finalityDepth: 64,
      pollIntervalMs: 500,
      wrappedNative: uniswap.weth.toLowerCase(),
      stablecoins: [stablecoin, tether],
      // The look-alike check's list: what the demo launcher's look-alike kind copies.
      knownTokens: [
        { symbol: 'WETH', name: 'Wrapped Ether', address: uniswap.weth.toLowerCase() },
        { symbol: 'USDC', name: 'USD Coin (dev)', address: stablecoin },
        { symbol: 'USDT', name: 'Tether USD', address: tether },
      ],
      dexes: [
        {
          name: 'uniswap-v2',
          kind: 'v2',
          factory: uniswap.factory.toLowerCase(),
          router: uniswap.router.toLowerCase(),
        },
        { name: 'uniswap-v4', kind: 'v4', factory: v4.poolManager },
      ],
      multicall3: uniswap.multicall3.toLowerCase(),
      lockers: [],
      ephemeral: true,
    };
    options.logger.info({ rpc: anvil.rpcUrl, ...uniswap, ...v4 }, 'development chain ready');
    return {
      chain,
      uniswap,
      launcher,
      async stop() {
        await launcher.stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
