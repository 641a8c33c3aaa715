import type {
  AnalysisKey,
  AnalysisRepository,
  PassStart,
  PassTokenColumns,
  PassWrite,
} from '../db/repositories/analyses.ts';
import type { TokenRow } from '../db/repositories/tokens.ts';
import type { Stage } from '../src/stages.ts';

/**
 * What the simulate and risk stages of one job hand each other in process (workers/pipeline.ts
 * `chainStages`): what the job read when simulate started (the token, the pass's row) and the
 * simulation not written yet. The risk stage writes it with its own part in one transaction
 * (`recordPass`), and reads nothing again that the job holds. A stage whose next stage does not
 * run in this job writes what it holds before it routes (`handsOnInProcess` in the map): a retry
 * must find it. (The selectors stage writes its part at once: a first-liquidity pass that starts
 * meanwhile reuses the newest static analysis.)
 *
 * A crash before the write loses nothing: the job's retry runs its stages again, and what the pass
 * compares with (the token's previous simulation, its score) is still the stored one.
 */
export interface PassState {
  /** Read by the first stage that needed it; undefined until then. */
  start?: PassStart;
  /** Not written yet: merged details and token columns, and the furthest stage run. */
  pending: { details: Record<string, unknown>; token: PassTokenColumns; stage: Stage | null };
}

export const newPassState = (): PassState => ({
  pending: { details: {}, token: {}, stage: null },
});

/** Adds a stage's part to what the job will write. */
export function addPart(
  state: PassState,
  stage: Stage,
  details: Record<string, unknown>,
  token: PassTokenColumns,
): void {
  state.pending = {
    details: { ...state.pending.details, ...details },
    token: { ...state.pending.token, ...token },
    stage,
  };
}

/** The job's start, read once (one round trip). */
export async function startOf(
  analyses: AnalysisRepository,
  key: AnalysisKey,
  state: PassState,
): Promise<PassStart> {
  state.start ??= await analyses.passStart(key);
  return state.start;
}

/** The token as the job's writes so far will leave it (what a read after them would answer). */
export function tokenView(state: PassState): TokenRow | undefined {
  const token = state.start?.token;
  return token && { ...token, ...state.pending.token, updatedAt: new Date() };
}

/** Writes what the job holds (with `extra`, the last stage's part) and clears it. */
export async function flush(
  analyses: AnalysisRepository,
  key: AnalysisKey,
  state: PassState,
  extra: Partial<PassWrite> = {},
): Promise<void> {
  const { details, token, stage } = state.pending;
  const last = extra.stage ?? stage;
  if (!last) return;
  await analyses.recordPass(key, {
    ...extra,
    details: { ...details, ...extra.details },
    token: { ...token, ...extra.token },
    stage: last,
  });
  // What was written is what a read would now answer.
  if (state.start?.token) state.start.token = { ...state.start.token, ...token, ...extra.token };
  state.pending = { details: {}, token: {}, stage: null };
}
