/**
 * Uniswap V4 hooks and the venue a token is simulated on: who controls a hook (control.ts: an
 * upgradeable proxy, or owner-set state read in its swap callbacks), what it did in the simulated
 * trades (effects.ts), the report the simulation carries (report.ts), and the honeypot test over
 * the token's V2 and V4 pools that puts them together (venues.ts).
 */
export { analyzeHookControl, type HookControl, type OwnerSetting } from './control.ts';
export { hookEffects } from './effects.ts';
export {
  type CreatorRun,
  type HookEffects,
  type HookReport,
  hookCanChangeSwaps,
  hookReport,
} from './report.ts';
export {
  simulateVenues,
  type VenuePool,
  type VenueReport,
  type VenueRun,
  type VenuesInput,
} from './venues.ts';
