export {
  type AnalysisThreads,
  type Analyze,
  createAnalysisThreads,
  defaultAnalysisThreads,
} from './pool.ts';
