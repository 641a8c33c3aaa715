export {
  createNonceBook,
  LOADED_ANVIL_ARGS,
  type LoadStats,
  mineAndCheck,
  prepareChain,
  type RunningLoad,
  runLoad,
  sendAll,
} from './load.ts';
export {
  type ChainContracts,
  createBlockPlanner,
  GAS,
  type LoadScale,
  type PlannedTx,
  seededRandom,
} from './plan.ts';
export { type ProcessUsage, processUsage, usageWindow } from './process-usage.ts';
export {
  blocksPerDay,
  CHAIN_PROFILES,
  type ChainProfile,
  chainProfile,
  creationsPerBlock,
  TOKEN_KINDS,
  TX_KINDS,
  type TxKind,
} from './profiles.ts';
export { type RpcMeter, startRpcMeter } from './rpc-meter.ts';
export {
  type CpuPriority,
  type ServiceProcesses,
  startServiceProcesses,
} from './service-processes.ts';
