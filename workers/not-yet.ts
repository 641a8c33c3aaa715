/**
 * An expected failure: the job cannot run yet because another job has not finished what it needs
 * (a first-liquidity pass before the token's first pass is through risk). The worker
 * (workers/queues.ts) moves it back to the delayed set without spending one of its attempts, for
 * up to NOT_YET_LIMIT_MS after the job was created. Past that, `afterLimit` decides: 'fail' counts
 * it as an ordinary failure (retried, then failed, where operators see it); 'skip' completes the
 * job without running it, for work the awaited job makes moot (a long replay's first passes,
 * handed off later, simulate against the pools the chain has by then).
 */

/** How long a job may keep waiting for what it needs before waiting counts as failing. */
export const NOT_YET_LIMIT_MS = 15 * 60_000;

export class NotYetError extends Error {
  constructor(
    message: string,
    /** When to look again. */
    readonly retryInMs: number,
    /** What happens once the job has waited NOT_YET_LIMIT_MS. */
    readonly afterLimit: 'fail' | 'skip' = 'fail',
  ) {
    super(message);
    this.name = 'NotYetError';
  }
}
