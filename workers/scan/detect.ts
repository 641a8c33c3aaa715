import type { Logger } from 'pino';
import type { DexRepository } from '../../db/repositories/dex.ts';
import type { HolderRepository } from '../../db/repositories/holders.ts';
import type {
  DetectedToken,
  TokenRepository,
  TokenRow,
  UpsertOutcome,
} from '../../db/repositories/tokens.ts';
import type { EventPublisher } from '../../infra/events.ts';
import { ZERO_ADDRESS } from '../../src/dex/abi.ts';
import {
  baseTokensOf,
  type LoggedPoolCreation,
  type PoolCreation,
  poolCreations,
  poolMints,
  type V4LiquidityAdd,
  v4LiquidityAdds,
  v4PoolsFromLogs,
} from '../../src/dex/pairs.ts';
import { V4_INITIALIZE_TOPIC } from '../../src/dex/v4/index.ts';
import { tokenCreatedData } from '../../src/events/types.ts';
import { mapWindowed, readBlockRange } from '../../src/evm/block-range.ts';
import { coalescingOf } from '../../src/evm/coalesce/index.ts';
import {
  type BlockTraces,
  type Deployment,
  findDeployments,
  transferLogCandidates,
} from '../../src/evm/deployments.ts';
import type { ProbeOutcome } from '../../src/evm/erc20.ts';
import { probeContracts } from '../../src/evm/probe.ts';
import { fromQuantity, type RpcClient, toQuantity } from '../../src/evm/rpc.ts';
import type { RpcBlockHeader, RpcLog, RpcReceipt } from '../../src/evm/types.ts';
import { transfersOf } from '../../src/holders/transfers.ts';
import { type ChainRuntime, chainOf } from '../chain-runtime.ts';
import type { JobData } from '../jobs.ts';
import { routeOutcome } from '../pipeline.ts';
import type { Producer } from '../queues.ts';

/**
 * The detect stage: one block → its contract deployments → ERC-20 probe → tokens (and DEX pairs)
 * recorded, announced and handed to the bytecode stage. Every step is idempotent.
 */

/** Addresses confirmed to predate the block they emitted a Transfer in; kept per chain, bounded. */
const OLD_CONTRACT_CACHE_SIZE = 50_000;
/**
 * Deployments probed in one JSON-RPC batch: their eth_calls at one block fold into one eth_call
 * (src/evm/coalesce/coalesce.ts), their codes ride along, one request each. Bounded so that a batch stays
 * within what providers accept (a contract's probe is PROBE_REQUEST_COUNT + 1 requests unfolded).
 */
const PROBE_BATCH = 32;
/**
 * Gas of each probe call inside the fold: a getter of a token takes a few thousand; a call that
 * uses it all (old code fails with invalid jumps that do) is sent alone with the node's cap.
 */
const PROBE_CALL_GAS = 300_000;
/** Probe batches in flight at once (a run of blocks, or a block with more than one batch). */
const PROBE_BATCHES_IN_FLIGHT = 2;

/**
 * How far back a funded V4 pool's Initialize is looked for when no detect job has recorded it
 * yet (blocks are detected concurrently); a pool is normally funded within a few blocks.
 */
const V4_INITIALIZE_LOOKBACK_BLOCKS = 256;

export interface DetectDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  tokens: TokenRepository;
  producer: Producer;
  events: EventPublisher;
  logger: Logger;
  /** With it, pools created by configured factories are recorded and their known tokens get a DEX pass. */
  dex?: DexRepository;
  /** Called after a token was recorded: invalidates cached copies and list pages (infra/token-cache.ts). */
  onChanged?: (chainId: number, address: string) => Promise<void>;
  /**
   * With it, the block's Transfer logs go to the holders sequencer, after the block's tokens and
   * pools are recorded (so that they are known when the sequencer applies this block).
   */
  holders?: Pick<HolderRepository, 'recordBlocks' | 'advance'>;
}

export type DetectResult =
  | { status: 'orphaned'; blockHash: string }
  | {
      status: 'done';
      deployments: number;
      tokens: string[];
      pairs: string[];
      skipped: number;
      orphaned: number;
      poolsCreated?: number;
    };

export interface DetectedBlock {
  number: number;
  hash: string;
  timestamp: Date;
}

/** A deployment and the block it happened in: what gets probed and recorded. */
export interface BlockDeployment {
  deployment: Deployment;
  block: DetectedBlock;
}

export interface RecordedDeployments {
  tokens: string[];
  pairs: string[];
  skipped: number;
  orphaned: number;
}

export type DeploymentOutcome = { kind: 'skipped' | 'pair' | 'orphaned' | 'token' };

/** Per chain, contracts seen to predate a block they emitted a Transfer in; each set bounded. */
export function createOldContractCache() {
  const oldContracts = new Map<number, Set<string>>();
  return {
    of: (chainId: number): Iterable<string> => oldContracts.get(chainId) ?? [],
    remember(chainId: number, address: string) {
      let set = oldContracts.get(chainId);
      if (!set) {
        set = new Set();
        oldContracts.set(chainId, set);
      }
      if (set.size >= OLD_CONTRACT_CACHE_SIZE) set.clear();
      set.add(address);
    },
  };
}

export type OldContractCache = ReturnType<typeof createOldContractCache>;

/** Without traces: Transfer emitters that had no code before this block were created in it. */
async function fallbackDeployments(
  tokens: TokenRepository,
  oldContracts: OldContractCache,
  chain: ChainRuntime,
  blockNumber: number,
  receipts: Parameters<typeof transferLogCandidates>[0],
  known: Deployment[],
) {
  const exclude = new Set(known.map((d) => d.address));
  for (const a of oldContracts.of(chain.config.chainId)) exclude.add(a);
  const candidates = transferLogCandidates(receipts, exclude);
  if (candidates.length === 0) return [];
  const recorded = await tokens.knownAddresses(
    chain.config.chainId,
    candidates.map((c) => c.address),
  );
  const found: Deployment[] = [];
  for (const candidate of candidates) {
    if (recorded.has(candidate.address)) continue;
    const before =
      blockNumber === 0 ? '0x' : await chain.reader.code(candidate.address, blockNumber - 1);
    if (before !== '0x') {
      oldContracts.remember(chain.config.chainId, candidate.address);
      continue;
    }
    found.push({
      address: candidate.address,
      creator: candidate.likelyCreator,
      creatorIsContract: candidate.likelyCreator ? true : null,
      txOrigin: candidate.txOrigin,
      txHash: candidate.txHash,
      gasUsed: null,
      source: 'transfer-log',
    });
  }
  return found;
}

export type Probe = ProbeOutcome;

export async function recordPair(
  tokens: TokenRepository,
  chain: ChainRuntime,
  d: Deployment,
  probe: Extract<Probe, { kind: 'pair' }>,
  block: DetectedBlock,
): Promise<DeploymentOutcome> {
  const dex = chain.config.dexes.find(
    (x) => x.factory === probe.factory || x.factory === d.creator,
  );
  const written = await tokens.upsertPair({
    chainId: chain.config.chainId,
    address: d.address,
    dex: dex?.name ?? 'unknown',
    factory: probe.factory ?? d.creator,
    token0: probe.token0,
    token1: probe.token1,
    creationBlockNumber: block.number,
    creationTxHash: d.txHash,
    creationBlockHash: block.hash,
  });
  return { kind: written === 'recorded' ? 'pair' : 'orphaned' };
}

/** The row a detected token is recorded as. */
export function detectedToken(
  chainId: number,
  d: Deployment,
  probe: Extract<Probe, { kind: 'token' }>,
  block: DetectedBlock,
): DetectedToken {
  return {
    chainId,
    address: d.address,
    name: probe.name,
    symbol: probe.symbol,
    decimals: probe.decimals,
    totalSupply: probe.totalSupply,
    creationTxHash: d.txHash,
    creator: d.creator,
    creatorIsContract: d.creatorIsContract,
    txOrigin: d.txOrigin,
    creationBlockNumber: block.number,
    creationBlockHash: block.hash,
    creationTimestamp: block.timestamp,
    creationGasUsed: d.gasUsed,
    detectionSource: d.source,
  };
}

/** The announcement of a newly recorded token, once per creation (this address, this block). */
export async function announceToken(
  deps: Pick<DetectDeps, 'events'>,
  row: TokenRow,
  blockHash: string,
): Promise<void> {
  await deps.events.publish(
    { type: 'token.created', data: tokenCreatedData(row) },
    { onceKey: `created:${row.chainId}:${row.address}:${blockHash}` },
  );
}

/**
 * Most deployments are no token at all (totalSupply() fails): debug. A contract that answered
 * part of the surface (a staking pool, an NFT) is a near miss worth seeing at info.
 */
export function logRefusal(
  log: Logger,
  d: Deployment,
  probe: Extract<Probe, { kind: 'not-token' }>,
) {
  const level = probe.missing === 'totalSupply()' ? 'debug' : 'info';
  const fields = { address: d.address, missing: probe.missing, reason: probe.reason };
  log[level](fields, 'deployment refused: not a token');
}

/**
 * The ERC-20 probes of these contracts as detection and replay make them: PROBE_BATCH contracts
 * a batch, folded by a coalescing client, PROBE_BATCHES_IN_FLIGHT batches at once.
 */
export async function probeInBatches(
  rpc: RpcClient,
  targets: readonly { address: string; blockTag: string }[],
): Promise<ProbeOutcome[]> {
  const chunks = Array.from({ length: Math.ceil(targets.length / PROBE_BATCH) }, (_, i) =>
    targets.slice(i * PROBE_BATCH, (i + 1) * PROBE_BATCH),
  );
  const folded = coalescingOf(rpc, { callGas: PROBE_CALL_GAS });
  const probes = await mapWindowed(chunks, PROBE_BATCHES_IN_FLIGHT, (chunk) =>
    probeContracts(folded, chunk),
  );
  return probes.flat();
}

type TokenFound = { item: BlockDeployment; probe: Extract<Probe, { kind: 'token' }> };

/**
 * Probes the deployments in batches (`probeInBatches`); pairs are recorded one by one (they are
 * few), tokens returned for `recordTokens`.
 */
export async function probeDeployments(
  deps: Pick<DetectDeps, 'tokens'>,
  chain: ChainRuntime,
  items: readonly BlockDeployment[],
  log: Logger,
  outcome: RecordedDeployments,
): Promise<TokenFound[]> {
  const probes = await probeInBatches(
    chain.rpc,
    items.map((item) => ({
      address: item.deployment.address,
      blockTag: toQuantity(item.block.number),
    })),
  );
  const found: TokenFound[] = [];
  for (const [i, probe] of probes.entries()) {
    const item = items[i]!;
    if (probe.kind === 'token') found.push({ item, probe });
    else if (probe.kind === 'not-token') {
      logRefusal(log, item.deployment, probe);
      outcome.skipped++;
    } else {
      const pair = await recordPair(deps.tokens, chain, item.deployment, probe, item.block);
      if (pair.kind === 'pair') outcome.pairs.push(item.deployment.address);
      else outcome.orphaned++;
    }
  }
  return found;
}

/**
 * Records the tokens in one transaction, then announces the new ones and marks them announced:
 * a crash in between repeats the announcement, which its once-key (this creation, in this
 * block) drops. Returns the deployments recorded (not orphaned), in the order given.
 */
export async function recordTokens(
  deps: Pick<DetectDeps, 'tokens' | 'events' | 'onChanged'>,
  chainId: number,
  found: readonly TokenFound[],
  outcome: RecordedDeployments,
): Promise<BlockDeployment[]> {
  return announceTokens(deps, chainId, await writeTokens(deps, chainId, found, outcome), outcome);
}

/** A token as its block's transaction wrote it: its row, and whether it was announced before. */
type WrittenToken = { item: BlockDeployment } & Extract<UpsertOutcome, { status: 'recorded' }>;

/** recordTokens' transaction: the tokens of blocks not orphaned meanwhile, with their rows. */
async function writeTokens(
  deps: Pick<DetectDeps, 'tokens'>,
  chainId: number,
  found: readonly TokenFound[],
  outcome: RecordedDeployments,
): Promise<WrittenToken[]> {
  const unique = [...new Map(found.map((f) => [f.item.deployment.address, f])).values()];
  const written = await deps.tokens.upsertDetectedMany(
    chainId,
    unique.map((f) => detectedToken(chainId, f.item.deployment, f.probe, f.item.block)),
  );
  return unique.flatMap((f, i) => {
    const w = written[i]!;
    if (w.status === 'orphaned') {
      outcome.orphaned++;
      return [];
    }
    return [{ item: f.item, ...w }];
  });
}

/** recordTokens' announcements, once the transaction is committed. */
async function announceTokens(
  deps: Pick<DetectDeps, 'tokens' | 'events' | 'onChanged'>,
  chainId: number,
  recorded: readonly WrittenToken[],
  outcome: RecordedDeployments,
): Promise<BlockDeployment[]> {
  // All at once, not a window at a time: the commands go out back to back on one connection, so a
  // block's announcements cost two round trips whatever it holds (the caches first, so that a
  // client reading the token or a list on its announcement never gets a cached answer without
  // it). A window of 16 made a 50-token block wait for eight, each behind the analysis' traffic.
  await Promise.all(recorded.map((r) => deps.onChanged?.(chainId, r.item.deployment.address)));
  await Promise.all(
    recorded.flatMap((r) => (r.announced ? [] : [announceToken(deps, r.row, r.item.block.hash)])),
  );
  await deps.tokens.markAnnounced(
    chainId,
    recorded.filter((r) => !r.announced).map((r) => r.item.deployment.address),
  );
  outcome.tokens.push(...recorded.map((r) => r.item.deployment.address));
  return recorded.map((r) => r.item);
}

/** The contracts created in one block: from receipts and traces, or Transfer logs without traces. */
export async function blockDeployments(
  deps: Pick<DetectDeps, 'tokens'>,
  oldContracts: OldContractCache,
  chain: ChainRuntime,
  block: { number: number; receipts: RpcReceipt[]; traces: BlockTraces },
): Promise<Deployment[]> {
  const deployments = findDeployments(block.receipts, block.traces);
  if (block.traces.kind !== 'none') return deployments;
  const fallback = await fallbackDeployments(
    deps.tokens,
    oldContracts,
    chain,
    block.number,
    block.receipts,
    deployments,
  );
  return [...deployments, ...fallback];
}

/**
 * PairCreated / PoolCreated from the configured factories and Initialize from the configured V4
 * PoolManagers: the pool is recorded (unless its block was orphaned meanwhile), and each of its
 * tokens already known gets a `dex` pass (a pool created long after the token's deployment is
 * how most tokens get their liquidity). So does each token of a recorded pool still without
 * liquidity that is funded in this block. Runs after the block's deployments are recorded, so a
 * token deployed and paired in the same block is known by then.
 */
export async function recordPoolCreations(
  dex: DexRepository,
  chain: ChainRuntime,
  receipts: Parameters<typeof poolCreations>[0],
  block: { number: number; hash: string },
) {
  const chainId = chain.config.chainId;
  const created = poolCreations(receipts, chain.config.dexes);
  const funded = v4LiquidityAdds(receipts, chain.config.dexes);
  const minted = chain.config.dexes.some((d) => d.kind !== 'v4') ? poolMints(receipts) : [];
  if (created.length === 0 && funded.length === 0 && minted.length === 0)
    return { created: 0, pooledTokens: [] };
  const recorded: PoolCreation[] = [];
  const record = async (pool: PoolCreation, at: { number: number; hash: string }) => {
    const { txHash, ...row } = pool;
    const written = await dex.recordPoolCreated({
      chainId,
      ...row,
      creationBlockNumber: at.number,
      creationTxHash: txHash,
      creationBlockHash: at.hash,
    });
    if (written === 'recorded') recorded.push(pool);
  };
  for (const pool of created) await record(pool, block);
  // Blocks are detected concurrently: the block that funds a V4 pool may be processed before the
  // one that initialized it. Such a pool is read back from its Initialize log, so its first
  // liquidity is never missed.
  const unknown = await unrecordedV4Pools(dex, chainId, funded, created);
  for (const pool of await initializeLogs(chain, unknown, block.number))
    await record(pool, { number: pool.blockNumber, hash: pool.blockHash });
  // Native currency (V4 pools hold it as the zero address) is a quote like wrapped native.
  const quotes = new Set([ZERO_ADDRESS, chain.config.wrappedNative, ...chain.config.stablecoins]);
  // A pool's first liquidity after its creation (a V4 ModifyLiquidity, a V2 or V3 Mint) gives its
  // tokens a pass too; pools funded at their last refresh are left to the refresh cadence.
  // A pool created in this block is funded in it too, as a rule (the router's first addLiquidity):
  // its tokens are candidates already, so it is not looked up again.
  const createdHere = new Set(created.map((p) => p.address));
  const fundedLater = [...funded.map((f) => f.poolId), ...minted].filter(
    (a) => !createdHere.has(a),
  );
  const fundedTokens = (await dex.unfundedPoolTokens(chainId, fundedLater)).filter(
    (t) => !quotes.has(t),
  );
  const candidates = [...new Set([...baseTokensOf(recorded, quotes), ...fundedTokens])];
  const known = await dex.knownTokens(chainId, candidates);
  return { created: recorded.length, pooledTokens: [...known] };
}

/** The funded V4 pools that neither this block nor an earlier detect job has recorded. */
async function unrecordedV4Pools(
  dex: DexRepository,
  chainId: number,
  funded: V4LiquidityAdd[],
  created: PoolCreation[],
): Promise<V4LiquidityAdd[]> {
  const here = new Set(created.map((p) => p.address));
  const rest = funded.filter((f) => !here.has(f.poolId));
  if (rest.length === 0) return [];
  const known = await dex.recordedPools(
    chainId,
    rest.map((f) => f.poolId),
  );
  return rest.filter((f) => !known.has(f.poolId));
}

/** The Initialize logs of these pools within the last V4_INITIALIZE_LOOKBACK_BLOCKS blocks. */
async function initializeLogs(
  chain: ChainRuntime,
  pools: V4LiquidityAdd[],
  blockNumber: number,
): Promise<LoggedPoolCreation[]> {
  const found: LoggedPoolCreation[] = [];
  for (const poolManager of new Set(pools.map((p) => p.poolManager))) {
    const ofManager = pools.filter((p) => p.poolManager === poolManager);
    const logs = await chain.rpc.request<RpcLog[]>('eth_getLogs', [
      {
        address: poolManager,
        topics: [V4_INITIALIZE_TOPIC, ofManager.map((p) => p.poolId)],
        fromBlock: toQuantity(Math.max(0, blockNumber - V4_INITIALIZE_LOOKBACK_BLOCKS)),
        toBlock: toQuantity(blockNumber),
      },
    ]);
    found.push(...v4PoolsFromLogs(logs, chain.config.dexes));
  }
  return found;
}

/** A block as detection reads it: header, receipts and traces. */
interface ReadBlock {
  header: RpcBlockHeader;
  number: number;
  hash: string;
  receipts: RpcReceipt[];
  traces: BlockTraces;
}

type DoneResult = Extract<DetectResult, { status: 'done' }>;

/**
 * Detection over blocks already read, in block order: every block's deployments probed and
 * recorded (new tokens routed on at once), then each block's pool creations, then its Transfers
 * to the holders sequencer, which is advanced once at the end.
 */
async function detectBlocks(
  deps: DetectDeps,
  oldContracts: OldContractCache,
  chain: ChainRuntime,
  data: JobData<'detect'>,
  blocks: readonly ReadBlock[],
  log: Logger,
  /** When the job started reading its blocks (performance.now()), for the phases' timings. */
  startedAt: number,
): Promise<DoneResult> {
  const readAt = performance.now();
  const items: BlockDeployment[] = [];
  for (const b of blocks) {
    const block = {
      number: b.number,
      hash: b.hash,
      timestamp: new Date(fromQuantity(b.header.timestamp) * 1000),
    };
    for (const deployment of await blockDeployments(deps, oldContracts, chain, b))
      items.push({ deployment, block });
  }
  // A block's tokens are recorded in one transaction and announced together, then routed on:
  // a block of 50 factory tokens costs a few round trips, not five per token.
  const outcome: RecordedDeployments = { tokens: [], pairs: [], skipped: 0, orphaned: 0 };
  const found = await probeDeployments(deps, chain, items, log, outcome);
  const probedAt = performance.now();
  const written = await writeTokens(deps, data.chainId, found, outcome);
  const writtenAt = performance.now();
  const recorded = await announceTokens(deps, data.chainId, written, outcome);
  const announcedAt = performance.now();
  await routeOutcome(deps.producer, 'detect', data, {
    tokens: recorded.map((r) => r.deployment.address),
    bornAt: Object.fromEntries(
      recorded.map((r) => [r.deployment.address, Math.floor(r.block.timestamp.getTime() / 1000)]),
    ),
    pooledTokens: [],
  });
  if (items.length > 0)
    log.info(
      {
        blocks: blocks.length,
        deployments: items.length,
        tokens: outcome.tokens.length,
        pairs: outcome.pairs.length,
        // Where a block's detection spent its time (an operator's first question when the
        // block → token.created latency grows): reading, probing, recording (one transaction),
        // announcing, routing.
        ms: {
          read: Math.round(readAt - startedAt),
          probe: Math.round(probedAt - readAt),
          record: Math.round(writtenAt - probedAt),
          announce: Math.round(announcedAt - writtenAt),
          route: Math.round(performance.now() - announcedAt),
        },
      },
      'block deployments',
    );
  let poolsCreated = 0;
  for (const b of blocks) {
    const pools = deps.dex
      ? await recordPoolCreations(deps.dex, chain, b.receipts, b)
      : { created: 0, pooledTokens: [] };
    poolsCreated += pools.created;
    await routeOutcome(
      deps.producer,
      'detect',
      { ...data, blockNumber: b.number, blockHash: b.hash },
      { tokens: [], pooledTokens: pools.pooledTokens },
    );
  }
  if (deps.holders && blocks.length > 0) {
    await deps.holders.recordBlocks(
      data.chainId,
      blocks.map((b) => ({
        block: { number: b.number, hash: b.hash, parentHash: b.header.parentHash.toLowerCase() },
        transfers: transfersOf(b.receipts),
      })),
    );
    await deps.holders.advance(data.chainId, { finalityDepth: chain.config.finalityDepth });
  }
  return { status: 'done', deployments: items.length, ...outcome, poolsCreated };
}

/**
 * A run of blocks (a catch-up job): headers in one batch, receipts and traces through a window
 * (src/evm/block-range.ts), so that the round trips overlap. A block whose hash is no longer the
 * one the scanner handed on was replaced by a reorg: it is left out (the scanner rolls it back
 * and scans its replacement), as a single block's job answers `orphaned`.
 */
async function readRun(chain: ChainRuntime, data: JobData<'detect'>, hashes: readonly string[]) {
  const range = { from: data.blockNumber, to: data.blockNumber + hashes.length - 1 };
  const fetched = await readBlockRange(chain.rpc, chain.reader, range);
  const current = fetched.filter((b, i) => b.hash === hashes[i]);
  return { blocks: current, orphaned: fetched.length - current.length };
}

export function createDetectProcessor(deps: DetectDeps) {
  const oldContracts = createOldContractCache();

  return async function processDetect(data: JobData<'detect'>): Promise<DetectResult> {
    const chain = chainOf(deps.chains, data.chainId);
    const log = deps.logger.child({ chain: data.chainId, block: data.blockNumber });

    const startedAt = performance.now();
    if (data.hashes) {
      const { blocks, orphaned } = await readRun(chain, data, data.hashes);
      const result = await detectBlocks(deps, oldContracts, chain, data, blocks, log, startedAt);
      return { ...result, orphaned: result.orphaned + orphaned };
    }

    const header = await chain.reader.blockByHash(data.blockHash);
    if (!header) {
      // Not served by this node: either it has not got the block yet (a node behind a balancer,
      // or behind the one whose newHeads announced it), and the job is retried; or the block left
      // the canonical chain, and the scanner enqueues its replacement under another id.
      if ((await chain.reader.block(data.blockNumber)) === null)
        throw new Error(`block ${data.blockNumber} is not served yet by this node`);
      return { status: 'orphaned', blockHash: data.blockHash };
    }
    const [receipts, traces] = await Promise.all([
      chain.reader.receipts(header),
      chain.reader.traces(header),
    ]);
    const block = { header, number: data.blockNumber, hash: data.blockHash, receipts, traces };
    return detectBlocks(deps, oldContracts, chain, data, [block], log, startedAt);
  };
}
