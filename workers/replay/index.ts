export { createReplayProcessor } from './detect.ts';
export {
  DEFAULT_BATCH_BLOCKS,
  type ReplayDeps,
  type ReplayProgress,
  replayRange,
} from './replay.ts';
