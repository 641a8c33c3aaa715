export {
  announceToken,
  type BlockDeployment,
  blockDeployments,
  createDetectProcessor,
  createOldContractCache,
  type DetectDeps,
  detectedToken,
  logRefusal,
  type OldContractCache,
  type Probe,
  probeDeployments,
  probeInBatches,
  type RecordedDeployments,
  recordPair,
  recordPoolCreations,
  recordTokens,
} from './detect.ts';
export { createScanner, type Scanner } from './scanner.ts';
