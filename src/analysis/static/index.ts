export { isFeeCapEntry } from './fee-caps.ts';
export { analyzeBytecode, analyzeStatic, type StaticDeps, type StaticInput } from './static.ts';
