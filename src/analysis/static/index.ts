export { isFeeCapEntry } from './fee-caps.ts';
export {
  analyzeBytecode,
  analyzeOver,
  analyzeStatic,
  type StaticDeps,
  type StaticInput,
} from './static.ts';
