import type { HolderRepository } from '../db/repositories/holders.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import {
  type HolderRoles,
  holdersReport,
  lpHoldersReport,
  roleAddresses,
  roleContracts,
  type StoredHolders,
  TOP_LP_HOLDERS,
  TOP_ROWS_READ,
} from '../src/holders/report.ts';

/**
 * A token's holders report from the balances the sequencer keeps (no RPC): built by the DEX
 * stage on each refresh and by the risk stage, stored on the token row (tokens.holders).
 */

/** The token facts the report needs (a tokens row, structurally). */
export interface HoldersSubject {
  chainId: number;
  address: string;
  creator: string | null;
  creatorIsContract: boolean | null;
  txOrigin: string | null;
  ownerAddress: string | null;
  creationBlockNumber: number | null;
}

/** Who the token's roles are; a factory-made token's creator is the sender behind the factory. */
export function holderRoles(
  chain: Pick<ChainConfig, 'lockers'>,
  token: HoldersSubject,
  pairs: readonly { address: string }[],
): HolderRoles {
  const viaFactory = token.creatorIsContract === true && token.txOrigin !== null;
  return {
    token: token.address,
    creator: viaFactory ? token.txOrigin : token.creator,
    creatorIsContract: viaFactory ? false : token.creatorIsContract,
    owner: token.ownerAddress,
    pairs: new Set(pairs.map((p) => p.address)),
    lockers: new Map((chain.lockers ?? []).map((l) => [l.address, l.name])),
  };
}

/** A pool of the token; only V2 pools have an LP token (a V3 position is an NFT). */
export interface HoldersPool {
  address: string;
  dex: string;
  kind?: string | null;
}

type Track = { startBlock: number; blockNumber: number } | null;

/**
 * The block the balances are at (the live track's, else the replay's) and whether a token's were
 * tracked from its creation block: created at or after the live track's start, or, without a live
 * track, at or after the replay track's. (A token a replay records while the live track runs may
 * have missed Transfers the live track applied before it was known: not complete.)
 */
export function coverage(
  tracks: { live: Track; replay: Track },
  creationBlock: number | null,
): { block: number | null; complete: boolean } {
  const { live, replay } = tracks;
  const start = live ? live.startBlock : replay?.startBlock;
  return {
    block: live?.blockNumber ?? replay?.blockNumber ?? null,
    complete: creationBlock !== null && start !== undefined && creationBlock >= start,
  };
}

export async function buildHoldersReport(
  holders: Pick<HolderRepository, 'facts' | 'tracks'>,
  chain: Pick<ChainConfig, 'lockers'>,
  token: HoldersSubject,
  pools: readonly HoldersPool[],
): Promise<StoredHolders> {
  const roles = holderRoles(chain, token, pools);
  const named = { addresses: roleAddresses(roles), contracts: roleContracts(roles) };
  const pairs = pools.filter((p) => p.kind !== 'v3');
  const [tracks, facts, lpFacts] = await Promise.all([
    holders.tracks(token.chainId),
    holders.facts(token.chainId, token.address, named, TOP_ROWS_READ),
    Promise.all(pairs.map((p) => holders.facts(token.chainId, p.address, named, TOP_LP_HOLDERS))),
  ]);
  return {
    holders: holdersReport(facts, roles, coverage(tracks, token.creationBlockNumber)),
    lp_holders: pairs.map((p, i) => lpHoldersReport(p, lpFacts[i]!, roles)),
  };
}

/** Builds the report and stores it on the token row. */
export async function refreshHoldersReport(
  holders: Pick<HolderRepository, 'facts' | 'tracks' | 'saveReport'>,
  chain: Pick<ChainConfig, 'lockers'>,
  token: HoldersSubject,
  pools: readonly HoldersPool[],
): Promise<StoredHolders> {
  const report = await buildHoldersReport(holders, chain, token, pools);
  await holders.saveReport(token.chainId, token.address, report);
  return report;
}
