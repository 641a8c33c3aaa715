/**
 * The embedded default (docs/configuration.md): what `token-monitor start` provides when nothing
 * is configured. PGlite and Redis in DATA_DIR under the data directory's lock, the Redis
 * namespace of the instance, the Anvil dev chain with Uniswap and the demo launcher, the secrets
 * generated once for DATA_DIR, the demo account. Tests and benchmarks start their chains with the
 * same Anvil and Uniswap helpers.
 */

export { applyDemoKeyPolicy, DEMO_EMAIL, demoKeyAction, issueDemoKey } from './demo-key.ts';
export {
  ANVIL_PRIVATE_KEYS,
  type AnvilHandle,
  addLiquidityV4,
  CREATE2_DEPLOYER,
  createDemoLauncher,
  type DemoLauncher,
  type DevChain,
  deployDevTether,
  deployHook,
  deployUniswapV2,
  deployUniswapV3,
  deployUniswapV4,
  findFreePort,
  fullRangeLiquidity,
  initializePool,
  type LaunchedToken,
  mineHookSalt,
  poolKeyOf,
  seedStablecoinPool,
  sqrtPriceX96Of,
  startAnvil,
  startDevChain,
  swapV4,
  TOKEN_KINDS,
  type UniswapV2Deployment,
  type UniswapV3Deployment,
  type UniswapV4Deployment,
  V4_VENUES,
  type V4Launch,
  type V4Venue,
} from './devchain/index.ts';
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
