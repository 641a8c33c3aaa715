import type { Logger } from 'pino';
import type { ReplayRepository } from '../../db/repositories/replay.ts';
import type { BlockRange } from '../../src/evm/ranges.ts';
import { startPasses } from '../pipeline.ts';
import type { Producer } from '../queues.ts';

/**
 * The replay's hand-off to analysis. Replay jobs record and announce tokens without routing
 * them (workers/replay/detect.ts); this starts the initial pass of every token of the replayed
 * range still at stage `detected`. It reads the database rather than a list kept in memory, so a
 * replay that crashed after detecting and before handing off loses nothing: the next run (even one
 * with nothing left to detect) hands the same tokens off. The initial pass has a deterministic job
 * id, so a token already queued or analysed is not queued twice.
 */

const HANDOFF_PAGE = 500;

export async function handOffToAnalysis(
  deps: { producer: Producer; ranges: ReplayRepository; logger: Logger },
  chainId: number,
  range: BlockRange,
): Promise<number> {
  let handed = 0;
  let after: string | undefined;
  for (;;) {
    const page = await deps.ranges.detectedTokens(chainId, range, { after, limit: HANDOFF_PAGE });
    if (page.length === 0) break;
    await startPasses(
      deps.producer,
      'bytecode',
      page.map((address) => ({ chainId, address })),
      { kind: 'detected' },
    );
    handed += page.length;
    after = page[page.length - 1];
    if (page.length < HANDOFF_PAGE) break;
  }
  if (handed > 0)
    deps.logger.info(
      { chain: chainId, block: range.from, toBlock: range.to, tokens: handed },
      'replay: tokens handed to analysis',
    );
  return handed;
}
