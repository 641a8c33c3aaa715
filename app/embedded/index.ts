/**
 * The embedded default (docs/configuration.md): what `token-monitor start` provides when nothing
 * is configured. PGlite and Redis in DATA_DIR under the data directory's lock, the Redis
 * namespace of the instance, the Anvil dev chain with Uniswap and the demo launcher, the secrets
 * generated once for DATA_DIR, the demo account. Tests and benchmarks start their chains with the
 * same Anvil and Uniswap helpers.
 */
export { ANVIL_PRIVATE_KEYS, type AnvilHandle, findFreePort, startAnvil } from './anvil.ts';
export { applyDemoKeyPolicy, DEMO_EMAIL, demoKeyAction, issueDemoKey } from './demo-key.ts';
export { createDemoLauncher, type DemoLauncher, type LaunchedToken } from './demo-launcher.ts';
export { TOKEN_KINDS } from './demo-tokens.ts';
export { V4_VENUES, type V4Launch, type V4Venue } from './demo-v4.ts';
export { type DevChain, startDevChain } from './devchain.ts';
export { type RedisNamespace, redisNamespace } from './instance.ts';
export { persistedSecret } from './secrets.ts';
export {
  findOnPath,
  LOCAL_REDIS_URL,
  type Resolved,
  redisAnswers,
  redisServerArgs,
  resolveDatabase,
  resolveRedis,
  stopChild,
} from './stack.ts';
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
