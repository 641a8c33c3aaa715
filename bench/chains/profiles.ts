/**
 * The five chains the `chains` bench loads, with the shape of their blocks in 2026: block time,
 * transactions per block, and how a block's transactions split between plain transfers, swaps and
 * contract creations. Block times and transaction counts are the figures docs/scale.md cites
 * (with their sources); the split is this bench's own choice, meant to resemble a busy block,
 * not a measurement.
 */

export type TxKind =
  /** A native-currency payment to a fresh address or a recurring payee (`LoadScale.payees`). */
  | 'native-transfer'
  /** An ERC-20 transfer of an established token. */
  | 'token-transfer'
  /** swapExactETHForTokens through the Uniswap V2 Router02. */
  | 'v2-swap'
  /** An exact-input swap against a Uniswap V3 pool (through the V3 pool helper). */
  | 'v3-swap'
  /** A token deployed by a transaction of its own (CREATE at the top level). */
  | 'token-deploy'
  /** A token made by a factory: CREATE, CREATE2 or an initialised EIP-1167 clone. */
  | 'factory-token'
  /** A contract that is not a token (a registry, a staking pool). */
  | 'contract-deploy';

export const TX_KINDS: readonly TxKind[] = [
  'native-transfer',
  'token-transfer',
  'v2-swap',
  'v3-swap',
  'token-deploy',
  'factory-token',
  'contract-deploy',
];

/** The kinds that create a token. */
export const TOKEN_KINDS: ReadonlySet<TxKind> = new Set(['token-deploy', 'factory-token']);

export interface ChainProfile {
  /** Short name (the rows' prefix). */
  name: string;
  chainId: number;
  blockTimeMs: number;
  /** Transactions per block on the real chain. */
  txPerBlock: number;
  /** Tokens created per day on the real chain (docs/scale.md says where from). */
  tokensPerDay: number;
  /** Contracts that are not tokens, created per day (the same sources; an order of magnitude). */
  otherContractsPerDay: number;
  /** Shares of the block's remaining transactions (after creations); they sum to 1. */
  mix: { native: number; token: number; v2: number; v3: number };
  /** Every this many seconds, one block carries a burst of factory tokens (a launchpad). */
  burstEverySeconds: number;
  /** Tokens in a burst. */
  burstTokens: number;
}

const DAY_SECONDS = 86_400;

/** The busy chains of the table (docs/scale.md: "The five chains" has the sources). */
export const CHAIN_PROFILES: readonly ChainProfile[] = [
  {
    name: 'ethereum',
    chainId: 1,
    blockTimeMs: 12_000,
    txPerBlock: 200,
    tokensPerDay: 3_000,
    otherContractsPerDay: 10_000,
    mix: { native: 0.35, token: 0.35, v2: 0.15, v3: 0.15 },
    burstEverySeconds: 120,
    burstTokens: 5,
  },
  {
    name: 'bsc',
    chainId: 56,
    blockTimeMs: 750,
    txPerBlock: 130,
    tokensPerDay: 40_000,
    otherContractsPerDay: 40_000,
    mix: { native: 0.25, token: 0.35, v2: 0.3, v3: 0.1 },
    burstEverySeconds: 30,
    burstTokens: 10,
  },
  {
    name: 'polygon',
    chainId: 137,
    blockTimeMs: 2_000,
    txPerBlock: 90,
    tokensPerDay: 2_000,
    otherContractsPerDay: 10_000,
    mix: { native: 0.2, token: 0.5, v2: 0.15, v3: 0.15 },
    burstEverySeconds: 120,
    burstTokens: 5,
  },
  {
    name: 'arbitrum',
    chainId: 42161,
    blockTimeMs: 250,
    txPerBlock: 10,
    tokensPerDay: 2_000,
    otherContractsPerDay: 10_000,
    mix: { native: 0.3, token: 0.3, v2: 0.1, v3: 0.3 },
    burstEverySeconds: 120,
    burstTokens: 5,
  },
  {
    name: 'base',
    chainId: 8453,
    blockTimeMs: 2_000,
    txPerBlock: 230,
    tokensPerDay: 40_000,
    otherContractsPerDay: 60_000,
    mix: { native: 0.25, token: 0.35, v2: 0.2, v3: 0.2 },
    burstEverySeconds: 30,
    burstTokens: 10,
  },
];

export function chainProfile(name: string): ChainProfile {
  const profile = CHAIN_PROFILES.find((p) => p.name === name);
  if (!profile) throw new Error(`no chain profile named ${name}`);
  return profile;
}

/** Expected creations per block at the real chain's rates. */
export function creationsPerBlock(profile: ChainProfile): { tokens: number; others: number } {
  const blocksPerDay = DAY_SECONDS / (profile.blockTimeMs / 1000);
  return {
    tokens: profile.tokensPerDay / blocksPerDay,
    others: profile.otherContractsPerDay / blocksPerDay,
  };
}

export const blocksPerDay = (profile: ChainProfile) => DAY_SECONDS / (profile.blockTimeMs / 1000);
