export {
  type BytecodeVerdict,
  bytecodeVerdict,
  type CallOutcome,
  combineVerdicts,
  describeCheck,
  functionLabel,
  probeCalls,
  probeRequests,
  type SimulationVerdict,
  STRANGER,
  simulationVerdict,
} from './access-control.ts';
export { type CodeModel, prepareCode } from './caller-checks.ts';
export { probeCreatorAccess } from './creator-access.ts';
export {
  candidateSlotRequests,
  type GatedFunction,
  type HiddenOwnerResult,
  isDeadAddress,
  MAX_HIDDEN_CANDIDATES,
  ownerRequests,
  ownershipInfo,
  type PrivilegedSlot,
  proveHiddenOwner,
  readOwner,
  type StorageCandidate,
  storageCandidates,
  withRoles,
} from './ownership.ts';
export {
  allAdminFunctions,
  grantsPower,
  hiddenOwnerProof,
  isLive,
  isRealRenounce,
  POWER_OF,
  PROOF_FAMILIES,
  privilegedAddressProof,
  provesPrivilege,
} from './privilege.ts';
export { proxyFromCode, proxySlotRequests, resolveProxy } from './proxy.ts';
export { DEFAULT_ADMIN_ROLE, type RoleReading, readRoles } from './roles.ts';
