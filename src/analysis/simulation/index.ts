export {
  type BehaviourFinding,
  type BehaviourReport,
  findingToAdminFunction,
  type PrivilegedCaller,
  probeAdminBehaviour,
} from './behaviour.ts';
export {
  amountsFor,
  findPool,
  type Pool,
  type SimulationReport,
  simulateTrading,
  simulationRequest,
} from './simulation.ts';
