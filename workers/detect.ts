import type { Logger } from 'pino';
import { findDeployments, transferLogCandidates, type Deployment } from '../src/evm/deployments.ts';
import type { ChainReader } from '../src/evm/chain-reader.ts';
import { probeContract } from '../src/evm/probe.ts';
import type { RpcClient } from '../src/evm/rpc.ts';
import { toQuantity } from '../src/evm/rpc.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import type { TokenSummary } from '../src/events/types.ts';
import type { EventPublisher } from '../infra/events.ts';
import type { TokenRepository, TokenRow } from '../db/repositories/tokens.ts';
import type { JobData } from './catalog.ts';
import type { Producer } from './queues.ts';

/**
 * The detect stage: one block → its contract deployments → ERC-20 probe → tokens (and DEX pairs)
 * recorded, announced and handed to the bytecode stage. Every step is idempotent.
 */

/** Addresses confirmed to predate the block they emitted a Transfer in; kept per chain, bounded. */
const OLD_CONTRACT_CACHE_SIZE = 50_000;
const PROBE_CONCURRENCY = 8;

export interface ChainRuntime {
  config: ChainConfig;
  rpc: RpcClient;
  reader: ChainReader;
}

export interface DetectDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  tokens: TokenRepository;
  producer: Producer;
  events: EventPublisher;
  logger: Logger;
  /** Called after a token was recorded: invalidates cached copies and list pages (infra/token-cache.ts). */
  onChanged?: (chainId: number, address: string) => Promise<void>;
}

export type DetectResult =
  | { status: 'orphaned'; blockHash: string }
  | { status: 'done'; deployments: number; tokens: string[]; pairs: string[]; skipped: number };

export function toSummary(row: TokenRow): TokenSummary {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    total_supply: row.totalSupply,
    creator: row.creator,
    creation_tx_hash: row.creationTxHash,
    creation_block_number: row.creationBlockNumber,
    detection_source: row.detectionSource,
    detected_at: row.detectedAt.toISOString(),
  };
}

export function createDetectProcessor(deps: DetectDeps) {
  const oldContracts = new Map<number, Set<string>>();
  const rememberOld = (chainId: number, address: string) => {
    let set = oldContracts.get(chainId);
    if (!set) oldContracts.set(chainId, (set = new Set()));
    if (set.size >= OLD_CONTRACT_CACHE_SIZE) set.clear();
    set.add(address);
  };

  /** Without traces: Transfer emitters that had no code before this block were created in it. */
  async function fallbackDeployments(chain: ChainRuntime, blockNumber: number, receipts: Parameters<typeof transferLogCandidates>[0], known: Deployment[]) {
    const exclude = new Set(known.map((d) => d.address));
    for (const a of oldContracts.get(chain.config.chainId) ?? []) exclude.add(a);
    const candidates = transferLogCandidates(receipts, exclude);
    if (candidates.length === 0) return [];
    const recorded = await deps.tokens.knownAddresses(chain.config.chainId, candidates.map((c) => c.address));
    const found: Deployment[] = [];
    for (const candidate of candidates) {
      if (recorded.has(candidate.address)) continue;
      const before = blockNumber === 0 ? '0x' : await chain.reader.code(candidate.address, blockNumber - 1);
      if (before !== '0x') {
        rememberOld(chain.config.chainId, candidate.address);
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

  async function recordDeployment(chain: ChainRuntime, d: Deployment, block: { number: number; hash: string; timestamp: Date }) {
    const chainId = chain.config.chainId;
    const probe = await probeContract(chain.rpc, d.address, toQuantity(block.number));
    if (probe.kind === 'not-token') return { kind: 'skipped' as const };
    if (probe.kind === 'pair') {
      const dex = chain.config.dexes.find((x) => x.factory === probe.factory || x.factory === d.creator);
      await deps.tokens.upsertPair({
        chainId, address: d.address, dex: dex?.name ?? 'unknown', factory: probe.factory ?? d.creator,
        token0: probe.token0, token1: probe.token1, creationBlockNumber: block.number, creationTxHash: d.txHash,
      });
      return { kind: 'pair' as const };
    }
    const { row, announced } = await deps.tokens.upsertDetected({
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
    });
    await deps.onChanged?.(chainId, d.address);
    // Announce before marking: a crash in between repeats the event (at-least-once), never loses it.
    if (!announced) {
      await deps.events.publish({ type: 'token.created', data: toSummary(row) });
      await deps.tokens.markAnnounced(chainId, d.address);
    }
    await deps.producer.enqueue('bytecode', { chainId, address: d.address });
    return { kind: 'token' as const };
  }

  return async function processDetect(data: JobData<'detect'>): Promise<DetectResult> {
    const chain = deps.chains.get(data.chainId);
    if (!chain) throw new Error(`chain ${data.chainId} is not configured in this worker`);
    const log = deps.logger.child({ chain: data.chainId, block: data.blockNumber });

    const header = await chain.reader.blockByHash(data.blockHash);
    // The block left the canonical chain: the scanner enqueues its replacement under another id.
    if (!header) return { status: 'orphaned', blockHash: data.blockHash };
    const block = { number: data.blockNumber, hash: data.blockHash, timestamp: new Date(Number.parseInt(header.timestamp, 16) * 1000) };

    const [receipts, traces] = await Promise.all([chain.reader.receipts(header), chain.reader.traces(header)]);
    let deployments = findDeployments(receipts, traces);
    if (traces.kind === 'none') deployments = [...deployments, ...(await fallbackDeployments(chain, data.blockNumber, receipts, deployments))];

    const outcome = { tokens: [] as string[], pairs: [] as string[], skipped: 0 };
    for (let i = 0; i < deployments.length; i += PROBE_CONCURRENCY) {
      const slice = deployments.slice(i, i + PROBE_CONCURRENCY);
      const results = await Promise.all(slice.map((d) => recordDeployment(chain, d, block)));
      results.forEach((r, j) => {
        const address = slice[j]!.address;
        if (r.kind === 'token') outcome.tokens.push(address);
        else if (r.kind === 'pair') outcome.pairs.push(address);
        else outcome.skipped++;
      });
    }
    if (deployments.length > 0) log.info({ deployments: deployments.length, tokens: outcome.tokens.length, pairs: outcome.pairs.length }, 'block deployments');
    return { status: 'done', deployments: deployments.length, ...outcome };
  };
}
