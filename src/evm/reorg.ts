/** Reorg detection by parentHash: pure helpers for the scanner. */

export interface HeaderLink {
  blockNumber: number;
  blockHash: string;
  parentHash: string;
}

/**
 * The index of the first block that does not extend its predecessor (the stored hash of the block
 * before the batch, then each previous block of the batch), or -1 when the batch is one chain.
 * Without a stored predecessor the first block cannot be checked and is accepted.
 */
export function firstBreak(
  blocks: readonly HeaderLink[],
  previousHash: string | undefined,
): number {
  let expected = previousHash;
  for (const [i, block] of blocks.entries()) {
    if (expected !== undefined && block.parentHash !== expected) return i;
    expected = block.blockHash;
  }
  return -1;
}

export class ReorgTooDeepError extends Error {
  constructor(
    readonly chainId: number,
    readonly fromBlock: number,
    readonly window: number,
  ) {
    super(
      `chain ${chainId}: reorg at block ${fromBlock} goes deeper than the ${window}-block window; manual intervention required`,
    );
    this.name = 'ReorgTooDeepError';
  }
}
