/** Uniswap V4 hooks: who controls them (control.ts), what they did in a simulation (effects.ts), the report (report.ts). */
export { analyzeHookControl, type HookControl, type OwnerSetting } from './control.ts';
export { type CreatorRun, type HookEffects, hookEffects } from './effects.ts';
export { type HookReport, hookCanChangeSwaps, hookReport } from './report.ts';
