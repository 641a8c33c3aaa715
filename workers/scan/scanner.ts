import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { HolderRepository } from '../../db/repositories/holders.ts';
import type { BlockRecord, ScanRepository } from '../../db/repositories/scan.ts';
import type { EventPublisher } from '../../infra/events.ts';
import { createLease, type Lease } from '../../infra/lease.ts';
import { type HeadSubscription, subscribeNewHeads } from '../../infra/rpc/index.ts';
import { firstBreak, ReorgTooDeepError } from '../../src/evm/reorg.ts';
import { fromQuantity, sleep, toQuantity } from '../../src/evm/rpc.ts';
import type { RpcBlockHeader } from '../../src/evm/types.ts';
import type { ChainRuntime } from '../chain-runtime.ts';
import type { Producer } from '../queues.ts';

/**
 * The scanner of one chain: follows the head and hands each new block to the detect queue.
 * Only the holder of the chain's Redis lease scans; the others wait and take over when it dies.
 * The cursor advances only after the blocks' jobs are enqueued, so a crash repeats work (which
 * the deterministic job ids absorb) but never skips a block.
 */

const DEFAULT_LEASE_TTL_MS = 15_000;
/** Headers per tick (one batch): catching up, a tick hands on this many blocks. */
const DEFAULT_MAX_BLOCKS_PER_TICK = 200;
/**
 * A tick that hands on at least this many blocks is catching up: its blocks go out in runs of
 * RUN_BLOCKS per detect job. Fewer (a live chain, even Arbitrum's four blocks a second between
 * two ticks) go out one job per block. A tick's runs should outnumber the detect stage's
 * concurrency (16), so that no detect slot idles while the scanner reads the next headers: with
 * 100 blocks in runs of 20 (5 jobs a tick) the 400-block catch-up ran at 60 % of the raw RPC rate.
 */
const RUN_MIN_BLOCKS = 8;
export const RUN_BLOCKS = 10;
/**
 * Polling continues while newHeads is connected, as a safety net, at this multiple of the
 * interval. While connected, a tick takes the head from the last notification instead of asking
 * `eth_blockNumber` (up to a fifth of the per-block calls), unless that notification is older than
 * this many intervals: then the node is asked, in case the subscription went quiet.
 */
const POLL_SLOWDOWN_WITH_HEADS = 5;
/** A notified head is trusted for this many of the chain's gaps between notifications. */
const NOTIFICATION_GAPS_TRUSTED = 3;
/** ...and never longer than this (a subscription that paused once must not be trusted for long). */
const NOTIFIED_HEAD_MAX_TRUST_MS = 60_000;
/** newHeads headers kept for the ticks to come (a tick takes the blocks after its cursor). */
const NOTIFIED_HEADERS_KEPT = 256;

export interface ScannerDeps {
  chain: ChainRuntime;
  scan: ScanRepository;
  producer: Producer;
  redis: Redis;
  events: EventPublisher;
  leaseKey: string;
  holderId: string;
  logger: Logger;
  leaseTtlMs?: number;
  maxBlocksPerTick?: number;
  /** Observes the blocks between the head and the last block handed on, and each reorg. */
  onLag?: (blocks: number) => void;
  onReorg?: (depth: number) => void;
  /**
   * The holders sequencer (db/repositories/holders.ts): its live track starts where scanning
   * starts, and each tick applies what detect jobs left for it (a job that finished before the
   * scanner recorded its block leaves its Transfers waiting for this call).
   */
  holders?: Pick<HolderRepository, 'ensureTrack' | 'advance'>;
}

export type TickResult =
  | { status: 'not-leader' }
  | { status: 'idle'; head: number; next: number }
  | { status: 'scanned'; from: number; to: number; head: number }
  | { status: 'reorg'; ancestor: number; depth: number; removed: string[] };

export interface Scanner {
  start(): void;
  stop(): Promise<void>;
  /** One scanning step (exposed for tests and replays). */
  tick(): Promise<TickResult>;
  isLeader(): boolean;
}

/** The chain's scanning lease, renewed in the background while held. */
interface Leadership {
  /** Takes the lease if not held; whether this process holds it now. */
  ensure(): Promise<boolean>;
  holds(): boolean;
  /** Stops renewing and hands the lease back (on shutdown). */
  resign(): Promise<void>;
}

function createLeadership(deps: ScannerDeps, ttl: number, log: Logger): Leadership {
  const lease: Lease = createLease(deps.redis, deps.leaseKey, deps.holderId, ttl);
  let leader = false;
  let renewTimer: NodeJS.Timeout | undefined;

  function renew() {
    lease.renew().then(
      (ok) => {
        if (!ok && leader) {
          leader = false;
          log.warn('scanner lease lost');
        }
      },
      (error: Error) => log.warn({ err: error.message }, 'lease renewal failed'),
    );
  }

  return {
    async ensure() {
      if (leader) return true;
      if (!(await lease.tryAcquire())) return false;
      leader = true;
      log.info({ holder: deps.holderId }, 'scanner lease acquired');
      // A lease lost and taken again must not leave the old renewal running.
      if (renewTimer) clearInterval(renewTimer);
      renewTimer = setInterval(renew, Math.floor(ttl / 3));
      return true;
    },
    holds: () => leader,
    async resign() {
      if (renewTimer) clearInterval(renewTimer);
      if (leader) {
        leader = false;
        await lease.release().catch(() => {});
      }
    },
  };
}

/**
 * A development chain restarted from scratch has another genesis: its old data describes nothing.
 * Checked once per scanner: a genesis never changes under a running node.
 */
function createGenesisCheck(deps: ScannerDeps, log: Logger): () => Promise<string> {
  const { chain, scan } = deps;
  const chainId = chain.config.chainId;
  let genesisHash: string | undefined;
  return async () => {
    if (genesisHash !== undefined) return genesisHash;
    const genesis = await chain.reader.block(0);
    if (!genesis) throw new Error(`chain ${chainId}: block 0 not available`);
    const cursor = await scan.getCursor(chainId);
    if (cursor?.genesisHash && cursor.genesisHash !== genesis.hash) {
      if (!chain.config.ephemeral) {
        throw new Error(
          `chain ${chainId}: the RPC serves another chain ` +
            `(genesis ${genesis.hash}, recorded ${cursor.genesisHash})`,
        );
      }
      log.warn('development chain was restarted: forgetting its previous data');
      await scan.resetChain(chainId);
    }
    genesisHash = genesis.hash;
    return genesisHash;
  };
}

const toRecord = (chainId: number, header: RpcBlockHeader): BlockRecord => ({
  chainId,
  blockNumber: fromQuantity(header.number),
  blockHash: header.hash.toLowerCase(),
  parentHash: header.parentHash.toLowerCase(),
  timestamp: new Date(fromQuantity(header.timestamp) * 1000),
});

/**
 * Blocks `from`…`to`: from the newHeads headers when the subscription announced every one of them
 * and linked by their parent hashes (at the head, a tick's one or few blocks: no call), else in one
 * batch, up to the first the node does not have yet. Notified headers are checked like fetched
 * ones: the first must extend the stored chain (a reorg otherwise), and the detect job reads its
 * block by hash.
 */
async function fetchBlocks(
  chain: ChainRuntime,
  from: number,
  to: number,
  notified: ReadonlyMap<number, BlockRecord>,
): Promise<BlockRecord[]> {
  const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const announced = numbers.map((n) => notified.get(n));
  // Linked among themselves, or read again: a reorg's new branch may be announced by its head
  // only, leaving the old branch's headers below it in the map.
  const linked = announced.every(
    (b, i) => b !== undefined && (i === 0 || b.parentHash === announced[i - 1]!.blockHash),
  );
  if (linked) return announced as BlockRecord[];
  const outcomes = await chain.rpc.batch<RpcBlockHeader | null>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })),
  );
  const blocks: BlockRecord[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    if (!outcome.ok) throw outcome.error;
    const header = outcome.result;
    // Validation: a node behind a load balancer may answer for a block it does not have yet.
    if (!header || fromQuantity(header.number) !== numbers[i]) break;
    blocks.push(toRecord(chain.config.chainId, header));
  }
  return blocks;
}

/**
 * Walks back from `firstNew - 1` to the last block whose stored hash the node still serves, within
 * the finality window; answers that ancestor and the node's blocks after it.
 */
async function findCommonAncestor(
  { chain, scan }: ScannerDeps,
  firstNew: number,
): Promise<{ ancestor: number; newBranch: BlockRecord[] }> {
  const chainId = chain.config.chainId;
  const window = chain.config.finalityDepth;
  const newBranch: BlockRecord[] = [];
  for (let k = firstNew - 1; ; k--) {
    if (k < 0 || firstNew - 1 - k >= window) throw new ReorgTooDeepError(chainId, firstNew, window);
    const stored = await scan.getBlockHash(chainId, k);
    if (stored === undefined) throw new ReorgTooDeepError(chainId, firstNew, window);
    const header = await chain.reader.block(k);
    if (!header) {
      throw new Error(`chain ${chainId}: block ${k} not available while resolving a reorg`);
    }
    if (header.hash.toLowerCase() === stored) return { ancestor: k, newBranch };
    newBranch.unshift(toRecord(chainId, header));
  }
}

/** Rolls the chain back to `ancestor`, announcing every token the orphaned blocks produced. */
async function rollBack(
  { chain, scan, events }: ScannerDeps,
  ancestor: number,
  newBranch: BlockRecord[],
): Promise<string[]> {
  const chainId = chain.config.chainId;
  const announce = (address: string) =>
    events.publish({
      type: 'token.removed',
      data: { contract_address: address, chain_id: chainId, reason: 'reorg' },
    });
  // Announced before the rollback commits: a crash in between repeats the reorg on the next tick,
  // and with it the events (at-least-once), rather than losing them.
  const doomed = await scan.tokensAfter(chainId, ancestor);
  for (const address of doomed) await announce(address);
  const removed = await scan.rollback(chainId, ancestor, newBranch);
  // A token written by a late job between the two reads is announced now.
  for (const token of removed) if (!doomed.includes(token.address)) await announce(token.address);
  return removed.map((t) => t.address);
}

/** Where to start scanning: the cursor, else the configured start block, else the safe head. */
async function nextBlockToScan(deps: ScannerDeps, safeHead: number): Promise<number> {
  const cursor = await deps.scan.getCursor(deps.chain.config.chainId);
  return cursor?.nextBlock ?? deps.chain.config.startBlock ?? Math.max(0, safeHead);
}

/**
 * The block after the cursor does not extend the stored chain: walk back to the common ancestor
 * (within the finality window), roll back what the orphaned blocks produced and rewind the
 * cursor, so that the next tick scans the new branch.
 */
async function handleReorg(deps: ScannerDeps, log: Logger, firstNew: number): Promise<TickResult> {
  const { ancestor, newBranch } = await findCommonAncestor(deps, firstNew);
  const removed = await rollBack(deps, ancestor, newBranch);
  const depth = firstNew - 1 - ancestor;
  deps.onReorg?.(depth);
  log.warn(
    { block: firstNew, ancestor, depth, removed: removed.length },
    'reorg: rolled back to the common ancestor',
  );
  return { status: 'reorg', ancestor, depth, removed };
}

/**
 * The detect jobs of the blocks a tick hands on: one per block at the head, where each block's
 * tokens are wanted at once; runs of RUN_BLOCKS blocks when the tick took many (catching up), so
 * that a job reads its blocks' receipts and traces in one pipelined pass and the queue carries a
 * job per run instead of per block.
 */
export function detectJobs(chainId: number, blocks: readonly BlockRecord[]) {
  const job = (run: readonly BlockRecord[]) => ({
    chainId,
    blockNumber: run[0]!.blockNumber,
    blockHash: run[0]!.blockHash,
    source: 'live' as const,
    ...(run.length > 1 ? { hashes: run.map((b) => b.blockHash) } : {}),
  });
  if (blocks.length < RUN_MIN_BLOCKS) return blocks.map((b) => job([b]));
  const jobs = [];
  for (let i = 0; i < blocks.length; i += RUN_BLOCKS)
    jobs.push(job(blocks.slice(i, i + RUN_BLOCKS)));
  return jobs;
}

/**
 * Enqueues the blocks' detect jobs, then advances the cursor past them (the order that makes a
 * crash repeat work rather than skip it); answers the last block handed on.
 */
async function handOn(deps: ScannerDeps, blocks: BlockRecord[], genesis: string): Promise<number> {
  const chainId = deps.chain.config.chainId;
  await deps.producer.enqueueBulk('detect', detectJobs(chainId, blocks));
  const last = blocks[blocks.length - 1]!.blockNumber;
  await deps.scan.advance(chainId, blocks, last + 1, genesis);
  await deps.scan.pruneBlockHashes(chainId, last - deps.chain.config.finalityDepth * 2);
  return last;
}

function logTickFailure(log: Logger, error: unknown, failures: number): void {
  if (error instanceof ReorgTooDeepError) {
    log.fatal(
      { err: error.message, failures },
      'reorg deeper than the finality window: scanning halted for this chain',
    );
  } else log.error({ err: (error as Error).message, failures }, 'scan tick failed');
}

export function createScanner(deps: ScannerDeps): Scanner {
  const { chain, scan, logger } = deps;
  const chainId = chain.config.chainId;
  const log = logger.child({ chain: chainId, role: 'scanner' });
  const ttl = deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const maxBlocks = deps.maxBlocksPerTick ?? DEFAULT_MAX_BLOCKS_PER_TICK;
  const leadership = createLeadership(deps, ttl, log);
  const checkGenesis = createGenesisCheck(deps, log);
  let running = false;
  let holdersTracked = false;
  let loop: Promise<void> | undefined;
  let heads: HeadSubscription | undefined;
  let wake: (() => void) | undefined;
  /** The head newHeads announced last, when, and the time since the notification before it. */
  let notified: { head: number; atMs: number; gapMs: number } | null = null;
  /** The headers newHeads announced, by number (the latest announcement of each number). */
  const notifiedHeaders = new Map<number, BlockRecord>();
  /** The last tick asked for blocks the node did not serve yet (announced before it had them). */
  let shortOfHead = false;

  /**
   * The head from newHeads while it is connected and recent; null: ask the node. Recent is within
   * the slowed poll, or three of the chain's own gaps between notifications where its blocks are
   * slower than that (Ethereum's 12 s against a 2 s poll): a quiet subscription is noticed after
   * a few missing blocks, and a slow chain is not asked eth_blockNumber at every safety-net tick.
   */
  function notifiedHead(): number | null {
    if (!heads?.connected() || notified === null) return null;
    const window = Math.max(
      chain.config.pollIntervalMs * POLL_SLOWDOWN_WITH_HEADS,
      Math.min(NOTIFICATION_GAPS_TRUSTED * notified.gapMs, NOTIFIED_HEAD_MAX_TRUST_MS),
    );
    return Date.now() - notified.atMs < window ? notified.head : null;
  }

  const waitForWork = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  /** Applies waiting holder blocks; a failure is logged, not a failed tick (detect jobs retry it). */
  async function applyHolders(): Promise<void> {
    if (!deps.holders || !holdersTracked) return;
    try {
      const result = await deps.holders.advance(chainId, {
        finalityDepth: chain.config.finalityDepth,
      });
      if (result.status === 'advanced' && result.skipped)
        log.warn({ skipped: result.skipped, block: result.block }, 'holders: blocks given up');
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'holders: applying blocks failed');
    }
  }

  async function tick(): Promise<TickResult> {
    if (!(await leadership.ensure())) return { status: 'not-leader' };
    const genesis = await checkGenesis();
    shortOfHead = false;
    const head = notifiedHead() ?? (await chain.reader.blockNumber());
    const safeHead = head - chain.config.confirmations;
    const next = await nextBlockToScan(deps, safeHead);
    deps.onLag?.(Math.max(0, head - (next - 1)));
    if (deps.holders && !holdersTracked) {
      const previous = next > 0 ? ((await scan.getBlockHash(chainId, next - 1)) ?? null) : null;
      await deps.holders.ensureTrack(chainId, 'live', next, previous);
      holdersTracked = true;
    }
    const to = Math.min(safeHead, next + maxBlocks - 1);
    // Catching up, the detect jobs apply their own blocks' holders (HolderRepository.advance):
    // applying them here too would hold the hand-off of the next blocks behind Postgres work
    // (on 130-transaction blocks it held the scanner to the raw RPC rate of the whole detection).
    // At the head, a tick applies what jobs that finished before their block was recorded left:
    // after handing its blocks on, never before (after a burst of 500 tokens, applying their
    // blocks' Transfers first held the next block's detection back by half a second).
    const atHead = to >= safeHead;
    if (next > safeHead) {
      await applyHolders();
      return { status: 'idle', head, next };
    }
    for (const n of notifiedHeaders.keys()) if (n < next) notifiedHeaders.delete(n);
    let blocks = await fetchBlocks(chain, next, to, notifiedHeaders);
    // A node behind a load balancer (or the notification's own node) may not serve the announced
    // block yet: look again after the plain interval, not the slowed one.
    shortOfHead = blocks.length < to - next + 1;
    const previousHash = next > 0 ? await scan.getBlockHash(chainId, next - 1) : undefined;
    const breakAt = firstBreak(blocks, previousHash);
    if (breakAt === 0) return handleReorg(deps, log, next);
    // A break inside the batch: the node switched branch while answering; the next tick sees it
    // whole.
    if (breakAt > 0) blocks = blocks.slice(0, breakAt);
    if (blocks.length === 0) return { status: 'idle', head, next };
    if (!leadership.holds()) return { status: 'not-leader' };
    const last = await handOn(deps, blocks, genesis);
    if (atHead) await applyHolders();
    deps.onLag?.(Math.max(0, head - last));
    log.debug({ from: next, to: last, head }, 'blocks enqueued');
    return { status: 'scanned', from: next, to: last, head };
  }

  /** How long to wait after a tick with nothing more to do at once. */
  function pause(result: TickResult): number {
    if (result.status === 'not-leader') return Math.floor(ttl / 3);
    const poll = chain.config.pollIntervalMs;
    return heads?.connected() && !shortOfHead ? poll * POLL_SLOWDOWN_WITH_HEADS : poll;
  }

  async function run() {
    let failures = 0;
    while (running) {
      try {
        const result = await tick();
        failures = 0;
        const catchingUp =
          result.status === 'scanned' && result.to < result.head - chain.config.confirmations;
        // A reorg rescans the new branch at once.
        if (catchingUp || result.status === 'reorg') continue;
        await waitForWork(pause(result));
      } catch (error) {
        failures++;
        logTickFailure(log, error, failures);
        await sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      if (chain.config.wsUrl)
        heads = subscribeNewHeads(
          chain.config.wsUrl,
          (head, header) => {
            // The latest, not the highest: after a reorg to a shorter branch the head goes down.
            const now = Date.now();
            notified = { head, atMs: now, gapMs: notified ? now - notified.atMs : 0 };
            if (header) {
              // A block announced again (a reorg) replaces the first announcement; the map is
              // bounded for a scanner that is far behind the head and takes nothing from it.
              notifiedHeaders.delete(head);
              notifiedHeaders.set(head, toRecord(chainId, header));
              if (notifiedHeaders.size > NOTIFIED_HEADERS_KEPT)
                notifiedHeaders.delete(notifiedHeaders.keys().next().value!);
            }
            wake?.();
          },
          log,
        );
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      heads?.close();
      await loop;
      await leadership.resign();
    },
    tick,
    isLeader: () => leadership.holds(),
  };
}
