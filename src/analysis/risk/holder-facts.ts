/** What the holder, look-alike and code-fact factors read (src/analysis/risk/holders.ts). */

/** The holder facts the score reads (src/holders/report.ts and the simulation's holder_sells). */
export interface HolderRiskFacts {
  holders: {
    holder_count: number;
    creator_percent: number | null;
    owner_percent: number | null;
    pools_percent: number;
    top10_outside_pools_percent: number;
    block: number | null;
    complete: boolean;
    creator: string | null;
    owner: string | null;
  } | null;
  lp: {
    pair_address: string;
    creator_percent: number;
    locked_percent: number;
    burned_percent: number;
  }[];
  sells: {
    tried: number;
    failed: number;
    max_tax_pct: number | null;
    block: number | null;
    failures: { address: string; reason: string }[];
    siphoned: { address: string; tracked_balance: string; balance: string }[];
  } | null;
}

export interface LookalikeFact {
  symbol: string;
  canonical_address: string;
  matched: 'symbol' | 'name';
  /** The token's own name and symbol as deployed. */
  name: string | null;
  own_symbol: string | null;
}

export interface CodeFacts {
  /** Reachable SELFDESTRUCT: where, and who can reach it (a caller check before it, if any). */
  selfdestruct: { detail: string } | null;
  /** A contract the owner can set that transfers call, and where that was read. */
  external_call: { detail: string; source: 'static-analysis' | 'bytecode' } | null;
}
