/**
 * An expected failure: the job cannot run yet because another job has not written what it needs
 * (a first-liquidity pass before the token's static analysis). The worker (workers/queues.ts)
 * moves it back to the delayed set without spending one of its attempts, for up to
 * NOT_YET_LIMIT_MS after the job was created; past that it counts as an ordinary failure (retried,
 * then failed, where operators see it).
 */

/** How long a job may keep waiting for what it needs before waiting counts as failing. */
export const NOT_YET_LIMIT_MS = 15 * 60_000;

export class NotYetError extends Error {
  constructor(
    message: string,
    /** When to look again. */
    readonly retryInMs: number,
  ) {
    super(message);
    this.name = 'NotYetError';
  }
}
