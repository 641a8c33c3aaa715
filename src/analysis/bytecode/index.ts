export {
  ARGUMENT_VARIANTS,
  type ArgumentVariant,
  addressFromLabel,
  describeProbeArguments,
  probeCalldata,
  splitTypes,
} from './calldata.ts';
export {
  type DispatchedFunction,
  extractFunctions,
  normalizeCode,
  toExtracted,
} from './selectors.ts';
export { metadataLength, skeletonHash } from './skeleton.ts';
export { identifyTemplate } from './template.ts';
