/**
 * How far a token got: the `stage` column, in this order. It only moves forward (a re-run never
 * rewinds it; db/repositories/tokens.ts keeps the furthest). The pipeline's map
 * (workers/pipeline.ts) decides which stage runs next; this order only ranks where a token stands.
 */
export const STAGE_ORDER = [
  'detected',
  'bytecode',
  'selectors',
  'simulate',
  'risk',
  'dex',
] as const;
export type Stage = (typeof STAGE_ORDER)[number];

/**
 * Whether a token at `stage` got at least as far as `target`. A stage this order does not name
 * (a row written by a newer version) has not reached anything.
 */
export function hasReached(stage: string, target: Stage): boolean {
  const at = (STAGE_ORDER as readonly string[]).indexOf(stage);
  return at >= 0 && at >= STAGE_ORDER.indexOf(target);
}
