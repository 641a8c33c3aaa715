export {
  type BehaviourFinding,
  type BehaviourReport,
  findingToAdminFunction,
  type PrivilegedCaller,
  probeAdminBehaviour,
} from './behaviour.ts';
export {
  capSearchRequest,
  decodeCapSearch,
  FEE_LADDER,
  numberOffsets,
  WHOLE_SALE_PCT,
} from './cap-search.ts';
export { decodeRevert } from './codec.ts';
export {
  type HolderCandidate,
  MAX_HOLDER_SELLS,
  simulateHolderSells,
} from './holder-sells.ts';
export {
  amountsFor,
  findPool,
  type Pool,
  type SimulateInput,
  type SimulationReport,
  simulateTrading,
  simulationRequest,
  summarize,
} from './simulation.ts';
export {
  asAmountOutcomes,
  testV4,
  type V4Candidate,
  type V4Outcome,
  type V4Run,
  type V4Test,
} from './v4.ts';
