import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { subscribeNewHeads, type HeadSubscription } from '../src/evm/heads.ts';
import { firstBreak, ReorgTooDeepError } from '../src/evm/reorg.ts';
import type { EventPublisher } from '../infra/events.ts';
import { sleep, fromQuantity, toQuantity } from '../src/evm/rpc.ts';
import type { RpcBlockHeader } from '../src/evm/types.ts';
import { createLease, type Lease } from '../infra/lease.ts';
import type { BlockRecord, ScanRepository } from '../db/repositories/scan.ts';
import type { ChainRuntime } from './chain-runtime.ts';
import type { Producer } from './queues.ts';

/**
 * The scanner of one chain: follows the head and hands each new block to the detect queue.
 * Only the holder of the chain's Redis lease scans; the others wait and take over when it dies.
 * The cursor advances only after the blocks' jobs are enqueued, so a crash repeats work (which
 * the deterministic job ids absorb) but never skips a block.
 */

const DEFAULT_LEASE_TTL_MS = 15_000;
const DEFAULT_MAX_BLOCKS_PER_TICK = 100;
/** Polling continues while newHeads is connected, as a safety net, at this multiple of the interval. */
const POLL_SLOWDOWN_WITH_HEADS = 5;

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

export function createScanner(deps: ScannerDeps): Scanner {
  const { chain, scan, producer, logger } = deps;
  const chainId = chain.config.chainId;
  const log = logger.child({ chain: chainId, role: 'scanner' });
  const ttl = deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const maxBlocks = deps.maxBlocksPerTick ?? DEFAULT_MAX_BLOCKS_PER_TICK;
  const lease: Lease = createLease(deps.redis, deps.leaseKey, deps.holderId, ttl);
  let leader = false;
  let running = false;
  let loop: Promise<void> | undefined;
  let renewTimer: NodeJS.Timeout | undefined;
  let heads: HeadSubscription | undefined;
  let wake: (() => void) | undefined;
  let genesisHash: string | undefined;

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

  async function ensureLeadership(): Promise<boolean> {
    if (leader) return true;
    if (!(await lease.tryAcquire())) return false;
    leader = true;
    log.info({ holder: deps.holderId }, 'scanner lease acquired');
    renewTimer = setInterval(() => {
      lease.renew().then((ok) => {
        if (!ok && leader) {
          leader = false;
          log.warn('scanner lease lost');
        }
      }, (error: Error) => log.warn({ err: error.message }, 'lease renewal failed'));
    }, Math.floor(ttl / 3));
    return true;
  }

  /**
   * A development chain restarted from scratch has another genesis: its old data describes nothing.
   * Checked once per scanner: a genesis never changes under a running node.
   */
  async function checkGenesis(): Promise<string> {
    if (genesisHash !== undefined) return genesisHash;
    const genesis = await chain.reader.block(0);
    if (!genesis) throw new Error(`chain ${chainId}: block 0 not available`);
    const cursor = await scan.getCursor(chainId);
    if (cursor?.genesisHash && cursor.genesisHash !== genesis.hash) {
      if (!chain.config.ephemeral) {
        throw new Error(`chain ${chainId}: the RPC serves another chain (genesis ${genesis.hash}, recorded ${cursor.genesisHash})`);
      }
      log.warn('development chain was restarted: forgetting its previous data');
      await scan.resetChain(chainId);
    }
    genesisHash = genesis.hash;
    return genesisHash;
  }

  const toRecord = (header: RpcBlockHeader): BlockRecord => ({
    chainId,
    blockNumber: fromQuantity(header.number),
    blockHash: header.hash.toLowerCase(),
    parentHash: header.parentHash.toLowerCase(),
    timestamp: new Date(fromQuantity(header.timestamp) * 1000),
  });

  /**
   * The block after the cursor does not extend the stored chain: walk back to the common ancestor
   * (within the finality window), roll back what the orphaned blocks produced and rewind the
   * cursor, so that the next tick scans the new branch.
   */
  async function handleReorg(firstNew: number): Promise<TickResult> {
    const window = chain.config.finalityDepth;
    const newBranch: BlockRecord[] = [];
    let ancestor = -1;
    for (let k = firstNew - 1; ancestor < 0; k--) {
      if (k < 0 || firstNew - 1 - k >= window) throw new ReorgTooDeepError(chainId, firstNew, window);
      const stored = await scan.getBlockHash(chainId, k);
      if (stored === undefined) throw new ReorgTooDeepError(chainId, firstNew, window);
      const header = await chain.reader.block(k);
      if (!header) throw new Error(`chain ${chainId}: block ${k} not available while resolving a reorg`);
      if (header.hash.toLowerCase() === stored) ancestor = k;
      else newBranch.unshift(toRecord(header));
    }
    const announce = (address: string) => deps.events.publish({ type: 'token.removed', data: { contract_address: address, chain_id: chainId, reason: 'reorg' } });
    // Announced before the rollback commits: a crash in between repeats the reorg on the next tick,
    // and with it the events (at-least-once), rather than losing them.
    const doomed = await scan.tokensAfter(chainId, ancestor);
    for (const address of doomed) await announce(address);
    const removed = await scan.rollback(chainId, ancestor, newBranch);
    // A token written by a late job between the two reads is announced now.
    for (const token of removed) if (!doomed.includes(token.address)) await announce(token.address);
    const depth = firstNew - 1 - ancestor;
    deps.onReorg?.(depth);
    log.warn({ block: firstNew, ancestor, depth, removed: removed.length }, 'reorg: rolled back to the common ancestor');
    return { status: 'reorg', ancestor, depth, removed: removed.map((t) => t.address) };
  }

  async function tick(): Promise<TickResult> {
    if (!(await ensureLeadership())) return { status: 'not-leader' };
    const genesis = await checkGenesis();
    const head = await chain.reader.blockNumber();
    const safeHead = head - chain.config.confirmations;
    const cursor = await scan.getCursor(chainId);
    const next = cursor?.nextBlock ?? chain.config.startBlock ?? Math.max(0, safeHead);
    deps.onLag?.(Math.max(0, head - (next - 1)));
    if (next > safeHead) return { status: 'idle', head, next };
    const to = Math.min(safeHead, next + maxBlocks - 1);

    const numbers = Array.from({ length: to - next + 1 }, (_, i) => next + i);
    const outcomes = await chain.rpc.batch<RpcBlockHeader | null>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })));
    let blocks: BlockRecord[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      if (!outcome.ok) throw outcome.error;
      const header = outcome.result;
      // Validation: a node behind a load balancer may answer for a block it does not have yet.
      if (!header || fromQuantity(header.number) !== numbers[i]) break;
      blocks.push(toRecord(header));
    }
    const previousHash = next > 0 ? await scan.getBlockHash(chainId, next - 1) : undefined;
    const breakAt = firstBreak(blocks, previousHash);
    if (breakAt === 0) return handleReorg(next);
    // A break inside the batch: the node switched branch while answering; the next tick sees it whole.
    if (breakAt > 0) blocks = blocks.slice(0, breakAt);
    if (blocks.length === 0) return { status: 'idle', head, next };
    if (!leader) return { status: 'not-leader' };
    await producer.enqueueBulk('detect', blocks.map((b) => ({ chainId, blockNumber: b.blockNumber, blockHash: b.blockHash, source: 'live' as const })));
    const last = blocks[blocks.length - 1]!.blockNumber;
    await scan.advance(chainId, blocks, last + 1, genesis);
    await scan.pruneBlockHashes(chainId, last - chain.config.finalityDepth * 2);
    deps.onLag?.(Math.max(0, head - last));
    log.debug({ from: next, to: last, head }, 'blocks enqueued');
    return { status: 'scanned', from: next, to: last, head };
  }

  async function run() {
    let failures = 0;
    while (running) {
      try {
        const result = await tick();
        failures = 0;
        if (result.status === 'scanned' && result.to < result.head - chain.config.confirmations) continue; // catching up
        if (result.status === 'reorg') continue; // rescan the new branch at once
        const interval = result.status === 'not-leader' ? Math.floor(ttl / 3)
          : heads?.connected() ? chain.config.pollIntervalMs * POLL_SLOWDOWN_WITH_HEADS : chain.config.pollIntervalMs;
        await waitForWork(interval);
      } catch (error) {
        failures++;
        if (error instanceof ReorgTooDeepError) log.fatal({ err: error.message, failures }, 'reorg deeper than the finality window: scanning halted for this chain');
        else log.error({ err: (error as Error).message, failures }, 'scan tick failed');
        await sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      if (chain.config.wsUrl) heads = subscribeNewHeads(chain.config.wsUrl, () => wake?.(), log);
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      heads?.close();
      await loop;
      if (renewTimer) clearInterval(renewTimer);
      if (leader) {
        leader = false;
        await lease.release().catch(() => {});
      }
    },
    tick,
    isLeader: () => leader,
  };
}
