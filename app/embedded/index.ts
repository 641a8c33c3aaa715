/**
 * The embedded default (docs/configuration.md): what `token-monitor start` provides when nothing
 * is configured. PGlite and Redis in DATA_DIR, the Anvil dev chain with Uniswap and the demo
 * launcher, the secrets generated once for DATA_DIR, the demo account. Tests and benchmarks
 * start their chains with the same Anvil and Uniswap helpers.
 */
export {
  ANVIL_MNEMONIC,
  ANVIL_PRIVATE_KEYS,
  type AnvilHandle,
  type AnvilOptions,
  anvilBinaryPath,
  findFreePort,
  startAnvil,
} from './anvil.ts';
export {
  applyDemoKeyPolicy,
  DEMO_EMAIL,
  type DemoKeyAction,
  demoKeyAction,
  issueDemoKey,
  revokeDemoKeys,
} from './demo-key.ts';
export {
  createDemoLauncher,
  type DemoLauncher,
  type LaunchedToken,
  TOKEN_KINDS,
  type TokenKind,
} from './demo-launcher.ts';
export { type DevChain, startDevChain } from './devchain.ts';
export {
  DEFAULT_REDIS_PREFIX,
  instanceId,
  type RedisNamespace,
  redisNamespace,
} from './instance.ts';
export { DataDirInUse, type DataDirLock, type LockHolder, lockDataDir } from './lock.ts';
export { persistedSecret } from './secrets.ts';
export {
  EMBEDDED_PG_MAX_CONNECTIONS,
  findOnPath,
  LOCAL_REDIS_URL,
  REDIS_HELP,
  type Resolved,
  redisAnswers,
  redisServerArgs,
  resolveDatabase,
  resolveRedis,
  stopChild,
} from './stack.ts';
export {
  DEV_NATIVE_USD,
  deployUniswapV2,
  deployUniswapV3,
  seedStablecoinPool,
  type UniswapV2Deployment,
  type UniswapV3Deployment,
  uniswapV2PairInitCodeHash,
} from './uniswap.ts';
