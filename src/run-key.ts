/**
 * Run keys: every pass of the token pipeline over one token is named by a run key, minted here
 * and only here from the typed trigger that started the pass. The key is part of every stage's
 * job id (workers/jobs.ts) and of the pass's analysis row, so that:
 *
 * - a trigger delivered twice (a block rescanned, a scheduler tick repeated, a job retried) mints
 *   the same key, and BullMQ drops the duplicate job;
 * - a new trigger mints a new key, so a retained job of an earlier pass never swallows it.
 *
 * Keys are opaque once minted: nothing parses one back. A job that needs a value the key was made
 * from (the refresh bucket) carries it as a field of its own.
 *
 * The reason travels with the key through the stages of a pass and decides where the pass ends
 * (workers/pipeline.ts): passes started by the DEX stage or by the refresh cadence stop at risk,
 * so that the DEX stage never triggers itself in a loop.
 */

export const PASS_REASONS = ['pipeline', 'liquidity', 'refresh', 'manual'] as const;
export type PassReason = (typeof PASS_REASONS)[number];

/** The run key of the pass that follows a token's detection (or its first submission). */
export const INITIAL_RUN = 'initial';
/** Re-simulations within one bucket share a run key, so a burst of triggers runs the pass once. */
export const RESIMULATE_BUCKET_MS = 60_000;
/** What a run key may contain (job ids and analysis rows embed it). */
export const RUN_KEY_PATTERN = /^[a-z0-9_.-]{1,40}$/;

/** Why a pass starts. */
export type PassTrigger =
  /** Detected by the scanner or a replay, or submitted for the first time: the full pipeline. */
  | { kind: 'detected' }
  /** `analyze` (API or CLI) of a token already known: the full pipeline again. */
  | { kind: 'reanalysis'; atMs: number }
  /** A pool of a configured factory was created for a known token, in this block. */
  | { kind: 'pool-created'; blockNumber: number }
  /** The refresh cadence: one pass per token and bucket (DEX refresh or re-simulation). */
  | { kind: 'scheduled-refresh'; bucketMs: number }
  /** The DEX stage saw the token's first liquidity: trading can now be simulated. */
  | { kind: 'first-liquidity' }
  /** simulate → risk again on demand (Service.resimulate), bucketed by minute. */
  | { kind: 'resimulation'; reason: Exclude<PassReason, 'pipeline'>; atMs: number };

/** What a stage job carries about its pass. */
export interface Pass {
  reason: PassReason;
  run: string;
  /** Scheduled refreshes only: the bucket whose snapshot the DEX stage writes, even if late. */
  bucketMs?: number;
  /** Pool passes only: the block that created or funded the pool; the DEX stage reads at it or later. */
  atBlock?: number;
}

export function passFor(trigger: PassTrigger): Pass {
  switch (trigger.kind) {
    case 'detected':
      return { reason: 'pipeline', run: INITIAL_RUN };
    case 'reanalysis':
      return { reason: 'manual', run: `manual-${trigger.atMs}` };
    case 'pool-created':
      // The block names the key: a rescan of the block enqueues nothing new, a later pool does.
      return { reason: 'liquidity', run: `p${trigger.blockNumber}`, atBlock: trigger.blockNumber };
    case 'scheduled-refresh':
      return {
        reason: 'refresh',
        run: `r${Math.floor(trigger.bucketMs / 1000)}`,
        bucketMs: trigger.bucketMs,
      };
    case 'first-liquidity':
      // Fixed: a retried DEX job, or a PairCreated seen twice, never simulates twice.
      return { reason: 'liquidity', run: 'liquidity' };
    case 'resimulation':
      return {
        reason: trigger.reason,
        run: `${trigger.reason}-${Math.floor(trigger.atMs / RESIMULATE_BUCKET_MS)}`,
      };
  }
}
