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
  type RecordedDeployments,
  recordPair,
  recordPoolCreations,
} from './detect.ts';
export { createScanner, type Scanner } from './scanner.ts';
