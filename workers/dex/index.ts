export { checkDexFactories } from './factories.ts';
export { createDexProcessor } from './processor.ts';
export { type DexScheduler, startDexScheduler } from './scheduler.ts';
