export {
  type AnalysisThreads,
  type Analyze,
  autoAnalysisThreads,
  createAnalysisThreads,
  DEFAULT_ANALYSIS_THREADS,
} from './pool.ts';
