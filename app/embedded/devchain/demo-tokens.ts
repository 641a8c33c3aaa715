// The demo launcher's token mix: which kinds it deploys and how often, which artifact each is
// read through, and the random draws (kind, name, amounts) that make a launch look realistic.
import { parseEther } from 'ethers';
import type { ContractName } from '../../../contracts/artifacts.ts';

/** Every kind of deployment the launcher makes, with its relative frequency. */
export const TOKEN_KIND_WEIGHTS = {
  simple: 30,
  mintable: 8,
  blacklist: 6,
  tax: 8,
  honeypot: 6,
  pausable: 5,
  'max-tx': 5,
  'fake-renounce': 4,
  bytes32: 3,
  proxy: 5,
  'factory-create': 5,
  'factory-create2': 4,
  clone: 4,
  'not-a-token': 3,
  // A copy of the dev chain's USDT (name and symbol) at another address: a look-alike.
  'look-alike': 3,
  // Traps the buyers of its first blocks; later buyers trade freely (real holders' sells tell).
  'early-trap': 3,
} as const satisfies Record<string, number>;

export type TokenKind = keyof typeof TOKEN_KIND_WEIGHTS;
export const TOKEN_KINDS = Object.keys(TOKEN_KIND_WEIGHTS) as TokenKind[];

// Kinds whose transfer rules need to know the pair (set before liquidity is added).
export const PAIR_AWARE_KINDS: ReadonlySet<TokenKind> = new Set([
  'tax',
  'honeypot',
  'max-tx',
  'early-trap',
]);

/** What a look-alike copies: the dev chain's USDT (scripts/dev/uniswap.ts seedStablecoins). */
export const LOOKALIKE_IDENTITY = { name: 'Tether USD', symbol: 'USDT' } as const;

const NAME_HEADS = [
  'Moon',
  'Safe',
  'Baby',
  'Turbo',
  'Based',
  'Giga',
  'Pepe',
  'Shiba',
  'Floki',
  'Degen',
  'Rocket',
  'Quantum',
  'Hyper',
  'Golden',
  'Lucky',
  'Alpha',
  'Frog',
  'Solar',
];
const NAME_TAILS = [
  'Inu',
  'Coin',
  'Token',
  'AI',
  'Cat',
  'Swap',
  'Finance',
  'Protocol',
  'DAO',
  'Chain',
  'X',
  'Dog',
  'Wif Hat',
  'Bull',
  'Cash',
];
const SUPPLIES = [
  '1000000',
  '21000000',
  '100000000',
  '420690000000',
  '1000000000',
  '1000000000000',
];

export interface TokenIdentity {
  name: string;
  symbol: string;
  supply: bigint;
}

/** The launcher's random draws, all from one source of randomness in [0, 1). */
export interface RandomMix {
  uniform(min: number, max: number): number;
  chance(p: number): boolean;
  /** An ETH amount in [min, max), to 4 decimals. */
  ethAmount(min: number, max: number): bigint;
  /** A kind drawn by TOKEN_KIND_WEIGHTS. */
  kind(): TokenKind;
  identity(): TokenIdentity;
}

export function createRandomMix(random: () => number): RandomMix {
  const uniform = (min: number, max: number) => min + random() * (max - min);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;

  function kind(): TokenKind {
    const total = TOKEN_KINDS.reduce((sum, k) => sum + TOKEN_KIND_WEIGHTS[k], 0);
    let r = random() * total;
    for (const k of TOKEN_KINDS) {
      r -= TOKEN_KIND_WEIGHTS[k];
      if (r < 0) return k;
    }
    return 'simple';
  }

  function identity(): TokenIdentity {
    const head = pick(NAME_HEADS);
    const tail = pick(NAME_TAILS);
    const name = `${head} ${tail}`; // < 32 bytes, so it also fits a bytes32 name
    const initials = (head.slice(0, 2) + tail.replace(/\s/g, '').slice(0, 2)).toUpperCase();
    const symbol = chance(0.5) ? initials : `${initials}${Math.floor(random() * 100)}`;
    return { name, symbol, supply: parseEther(pick(SUPPLIES)) };
  }

  return {
    uniform,
    chance,
    ethAmount: (min, max) => parseEther(uniform(min, max).toFixed(4)),
    kind,
    identity,
  };
}

/** The artifact whose ABI a launched token of `kind` answers to. */
export function kindArtifact(kind: TokenKind): ContractName {
  switch (kind) {
    case 'simple':
    case 'factory-create':
    case 'factory-create2':
    case 'look-alike':
      return 'SimpleToken';
    case 'early-trap':
      return 'EarlyTrapToken';
    case 'mintable':
      return 'MintableToken';
    case 'blacklist':
      return 'BlacklistToken';
    case 'tax':
      return 'TaxToken';
    case 'honeypot':
      return 'HoneypotToken';
    case 'pausable':
      return 'PausableToken';
    case 'max-tx':
      return 'MaxTxToken';
    case 'fake-renounce':
      return 'FakeRenounceToken';
    case 'bytes32':
      return 'Bytes32Token';
    case 'proxy':
    case 'clone':
      return 'UpgradeableToken';
    case 'not-a-token':
      return 'NotAToken';
  }
}
