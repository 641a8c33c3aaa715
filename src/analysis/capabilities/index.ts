export { analyzeCapabilities } from './capabilities.ts';
export { applyLowersOnly } from './fee-direction.ts';
export type { FeeSlot } from './fee-slots.ts';
export { closedRequirement } from './state.ts';
export type { Capability, CapabilityReport } from './types.ts';
export { applyCapabilities, CLAIMS, type Judged } from './verdicts.ts';
