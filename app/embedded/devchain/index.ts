export { ANVIL_PRIVATE_KEYS, type AnvilHandle, findFreePort, startAnvil } from './anvil.ts';
export { createDemoLauncher, type DemoLauncher, type LaunchedToken } from './demo-launcher.ts';
export { TOKEN_KINDS } from './demo-tokens.ts';
export { V4_VENUES, type V4Launch, type V4Venue } from './demo-v4.ts';
export { type DevChain, startDevChain } from './devchain.ts';
export {
  deployDevTether,
  deployUniswapV2,
  deployUniswapV3,
  seedStablecoinPool,
  type UniswapV2Deployment,
  type UniswapV3Deployment,
} from './uniswap.ts';
export {
  addLiquidityV4,
  CREATE2_DEPLOYER,
  deployHook,
  deployUniswapV4,
  fullRangeLiquidity,
  initializePool,
  mineHookSalt,
  poolKeyOf,
  sqrtPriceX96Of,
  swapV4,
  type UniswapV4Deployment,
} from './uniswap-v4.ts';
