import { BURN_ADDRESSES } from './transfers.ts';

/**
 * The holders report (docs/api.md, `holders` and `lp_holders`): shares of the supply by holder,
 * tagged with what the service knows about each address. Pure: built from the balances the
 * sequencer keeps (db/repositories/holders.ts `holderFacts`).
 */

/** Holders listed in `top_holders`. */
export const TOP_HOLDERS = 10;
/** Rows read beyond the top ten, so that the top ten outside pools and lockers can be summed. */
export const TOP_ROWS_READ = 30;
/** LP holders listed per pair. */
export const TOP_LP_HOLDERS = 5;

export type HolderTag = 'pair' | 'locker' | 'burn' | 'token' | 'creator' | 'owner';

/** What is known about the addresses around a token. */
export interface HolderRoles {
  token: string;
  creator: string | null;
  creatorIsContract: boolean | null;
  owner: string | null;
  /** The token's pools (their LP tokens are the pairs' own). */
  pairs: ReadonlySet<string>;
  /** Liquidity lockers of the chain, by address. */
  lockers: ReadonlyMap<string, string>;
}

/** Balances of one token (or LP token) as the sequencer has them. */
export interface HolderFacts {
  holderCount: number;
  /** Sum of the positive balances: the supply outside the zero address, as the Transfers tell it. */
  supply: bigint;
  /** The largest holders, largest first. */
  top: { holder: string; balance: bigint; isContract: boolean | null }[];
  /** Balances of the role addresses (creator, owner, pairs, lockers, burn addresses, token). */
  balancesOf: ReadonlyMap<string, bigint>;
  /** Sum of the balances of holders known to have code (see `roleContracts`). */
  contractBalance: bigint;
}

/** Addresses known to be contracts without asking the chain: the token, its pools, lockers. */
export function roleContracts(roles: HolderRoles): string[] {
  return [
    roles.token,
    ...roles.pairs,
    ...roles.lockers.keys(),
    ...(roles.creatorIsContract && roles.creator ? [roles.creator] : []),
  ];
}

/** Every address whose balance the report needs by name. */
export function roleAddresses(roles: HolderRoles): string[] {
  return [
    ...new Set([
      roles.token,
      ...roles.pairs,
      ...roles.lockers.keys(),
      ...BURN_ADDRESSES,
      ...(roles.creator ? [roles.creator] : []),
      ...(roles.owner ? [roles.owner] : []),
    ]),
  ];
}

export function tagOf(address: string, roles: HolderRoles): HolderTag | null {
  if (roles.pairs.has(address)) return 'pair';
  if (roles.lockers.has(address)) return 'locker';
  if (BURN_ADDRESSES.has(address)) return 'burn';
  if (address === roles.token) return 'token';
  if (address === roles.creator) return 'creator';
  if (address === roles.owner) return 'owner';
  return null;
}

/** A share in percent, to four decimals (0 of an empty supply). */
export function percentOf(part: bigint, whole: bigint): number {
  if (whole <= 0n || part <= 0n) return 0;
  return Number((part * 1_000_000n) / whole) / 10_000;
}

const sumOf = (balances: ReadonlyMap<string, bigint>, addresses: Iterable<string>) => {
  let sum = 0n;
  for (const a of new Set(addresses)) sum += balances.get(a) ?? 0n;
  return sum;
};

/** Tags that are no free float: pools, lockers, burn addresses and the token's own balance. */
const OUTSIDE_FLOAT: ReadonlySet<HolderTag> = new Set(['pair', 'locker', 'burn', 'token']);

export interface HoldersReport {
  holder_count: number;
  top_holders: {
    address: string;
    balance: string;
    percent: number;
    is_contract: boolean | null;
    tag: HolderTag | null;
  }[];
  creator_percent: number | null;
  owner_percent: number | null;
  contract_percent: number;
  burned_percent: number;
  /** Share in the token's pools. */
  pools_percent: number;
  /** The ten largest holders that are no pool, locker, burn address or the token itself. */
  top10_outside_pools_percent: number;
  /** The block the balances are at. */
  block: number | null;
  /** Whether the balances were tracked from the token's creation block (else some are missing). */
  complete: boolean;
}

export function holdersReport(
  facts: HolderFacts,
  roles: HolderRoles,
  at: { block: number | null; complete: boolean },
): HoldersReport {
  const { supply, balancesOf } = facts;
  const isContract = (address: string, known: boolean | null) =>
    known ?? (roleContracts(roles).includes(address) ? true : null);
  const tops = facts.top.map((t) => ({ ...t, tag: tagOf(t.holder, roles) }));
  const float = tops
    .filter((t) => t.tag === null || !OUTSIDE_FLOAT.has(t.tag))
    .slice(0, TOP_HOLDERS);
  return {
    holder_count: facts.holderCount,
    top_holders: tops.slice(0, TOP_HOLDERS).map((t) => ({
      address: t.holder,
      balance: t.balance.toString(),
      percent: percentOf(t.balance, supply),
      is_contract: isContract(t.holder, t.isContract),
      tag: t.tag,
    })),
    creator_percent: roles.creator ? percentOf(balancesOf.get(roles.creator) ?? 0n, supply) : null,
    owner_percent: roles.owner ? percentOf(balancesOf.get(roles.owner) ?? 0n, supply) : null,
    contract_percent: percentOf(facts.contractBalance, supply),
    burned_percent: percentOf(sumOf(balancesOf, BURN_ADDRESSES), supply),
    pools_percent: percentOf(sumOf(balancesOf, roles.pairs), supply),
    top10_outside_pools_percent: percentOf(
      float.reduce((s, t) => s + t.balance, 0n),
      supply,
    ),
    block: at.block,
    complete: at.complete,
  };
}

export interface LpHoldersReport {
  pair_address: string;
  dex: string;
  holder_count: number;
  locked_percent: number;
  burned_percent: number;
  creator_percent: number;
  other_percent: number;
  top_holders: HoldersReport['top_holders'];
}

/** Who holds a pool's LP tokens: lockers, burn addresses, the token's creator, everyone else. */
export function lpHoldersReport(
  pair: { address: string; dex: string },
  facts: HolderFacts,
  roles: HolderRoles,
): LpHoldersReport {
  const { supply, balancesOf } = facts;
  const locked = sumOf(balancesOf, roles.lockers.keys());
  const burned = sumOf(balancesOf, BURN_ADDRESSES);
  const creator = roles.creator ? (balancesOf.get(roles.creator) ?? 0n) : 0n;
  const lockedPct = percentOf(locked, supply);
  const burnedPct = percentOf(burned, supply);
  const creatorPct = percentOf(creator, supply);
  return {
    pair_address: pair.address,
    dex: pair.dex,
    holder_count: facts.holderCount,
    locked_percent: lockedPct,
    burned_percent: burnedPct,
    creator_percent: creatorPct,
    other_percent:
      supply > 0n
        ? Math.max(0, Math.round((100 - lockedPct - burnedPct - creatorPct) * 1e4) / 1e4)
        : 0,
    top_holders: facts.top.slice(0, TOP_LP_HOLDERS).map((t) => ({
      address: t.holder,
      balance: t.balance.toString(),
      percent: percentOf(t.balance, supply),
      is_contract:
        t.isContract ?? (roles.lockers.has(t.holder) || roles.pairs.has(t.holder) ? true : null),
      tag: tagOf(t.holder, roles),
    })),
  };
}

/** What the token row stores (tokens.holders) and the token object shows. */
export interface StoredHolders {
  holders: HoldersReport;
  lp_holders: LpHoldersReport[];
}
