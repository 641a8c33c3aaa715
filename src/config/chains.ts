import { z } from 'zod';

/**
 * Chain configuration: the CHAINS_FILE format (docs/configuration.md) and the built-in defaults.
 * Addresses are stored lower-case: the one form used everywhere inside the service.
 */

export const LOCAL_CHAIN_ID = 31337;

/** Default polling interval when the RPC offers no newHeads subscription. */
const DEFAULT_POLL_INTERVAL_MS = 2_000;

/**
 * The canonical Multicall3 (mds1/multicall): the same address on every major EVM chain, deployed
 * with a pre-signed transaction. A chain without it (the dev chain) names its own deployment.
 */
export const CANONICAL_MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((a) => a.toLowerCase());

/** Where a user buys the token: a URL with `{token}` in it; defaults by DEX name (src/dex/dex-hints.ts). */
const buyUrl = z.string().includes('{token}').optional();

/** A DEX of a chain. `factory` is the contract whose events announce its pools: for V4, the PoolManager. */
export interface DexConfig {
  name: string;
  kind: 'v2' | 'v3' | 'v4';
  factory: string;
  router?: string;
  fee_tiers?: number[];
  buy_url?: string;
}

const factoryDexSchema = z.object({
  name: z.string().min(1),
  kind: z.enum(['v2', 'v3']),
  factory: address,
  router: address.optional(),
  /** V3 fee tiers to probe with getPool; defaults to the Uniswap tiers. */
  fee_tiers: z.array(z.number().int().positive()).optional(),
  buy_url: buyUrl,
});

/** A Uniswap V4 deployment: one PoolManager holds every pool (no factory, no router needed). */
const v4DexSchema = z
  .object({
    name: z.string().min(1),
    kind: z.literal('v4'),
    pool_manager: address,
    buy_url: buyUrl,
  })
  .transform(
    (d): DexConfig => ({
      name: d.name,
      kind: 'v4',
      factory: d.pool_manager,
      ...(d.buy_url ? { buy_url: d.buy_url } : {}),
    }),
  );

export const dexSchema = z.union([factoryDexSchema, v4DexSchema]);

/** A contract that holds LP tokens on behalf of others until a date (a liquidity locker). */
export const lockerSchema = z.object({ name: z.string().min(1), address });

/** A well-known token of the chain: another token with its symbol or name is a look-alike. */
export const knownTokenSchema = z.object({
  symbol: z.string().min(1),
  name: z.string().min(1),
  address,
});

export const chainFileEntrySchema = z.object({
  chain_id: z.number().int().positive(),
  name: z.string().min(1),
  rpc_urls: z.array(z.url()).min(1, 'at least one RPC URL is required'),
  ws_url: z.url().optional(),
  confirmations: z.number().int().min(0).default(0),
  start_block: z.number().int().min(0).optional(),
  finality_depth: z.number().int().min(1).optional(),
  poll_interval_ms: z.number().int().min(50).optional(),
  rpc_timeout_ms: z.number().int().min(100).max(120_000).optional(),
  wrapped_native: address,
  stablecoins: z.array(address).default([]),
  dexes: z.array(dexSchema).default([]),
  /** Multicall3 used to batch refresh reads; default the canonical address. */
  multicall3: address.optional(),
  /** Known liquidity lockers; default the built-in list of this chain id, if any. */
  lockers: z.array(lockerSchema).optional(),
  /** Well-known tokens (look-alike check); default the built-in list of this chain id, if any. */
  known_tokens: z.array(knownTokenSchema).optional(),
  /** An Etherscan-compatible API (getsourcecode) that tells verified contracts; none: verified_contract is false. */
  explorer_api_url: z.url().optional(),
  explorer_api_key: z.string().min(1).optional(),
});

export const chainsFileSchema = z.object({ chains: z.array(chainFileEntrySchema).min(1) });

export type LockerConfig = z.infer<typeof lockerSchema>;
export type KnownTokenConfig = z.infer<typeof knownTokenSchema>;

export interface ChainConfig {
  chainId: number;
  name: string;
  rpcUrls: string[];
  /** WebSocket endpoint for newHeads; when absent the scanner polls. */
  wsUrl?: string;
  confirmations: number;
  /** First block to scan when no cursor exists; absent means "start at the head". */
  startBlock?: number;
  /** Blocks after which a block is considered final (reorg window). */
  finalityDepth: number;
  pollIntervalMs: number;
  /** Per-request RPC timeout; the client's default when absent. */
  rpcTimeoutMs?: number;
  wrappedNative: string;
  stablecoins: string[];
  dexes: DexConfig[];
  /**
   * Multicall3 address for batched reads. Absent: reads go out as plain JSON-RPC batches (also the
   * fallback when no code answers at this address).
   */
  multicall3?: string;
  /** Known liquidity lockers (security_hints.liquidity_lock). */
  lockers?: LockerConfig[];
  /**
   * Well-known tokens whose symbol or name a new token must not copy (src/tokens/lookalike.ts).
   * The wrapped native token and the stablecoins count too, their symbols read on chain when not listed.
   */
  knownTokens?: KnownTokenConfig[];
  /** Etherscan-compatible explorer API (security_hints.verified_contract). */
  explorerApiUrl?: string;
  explorerApiKey?: string;
  /** A throw-away development chain (the embedded Anvil): its data may be reset when it restarts. */
  ephemeral: boolean;
}

type BuiltIn = Omit<
  ChainConfig,
  'rpcUrls' | 'wsUrl' | 'startBlock' | 'ephemeral' | 'pollIntervalMs'
> & {
  pollIntervalMs?: number;
};

/** Uniswap V3's fee tiers (hundredths of a basis point): a V3 DEX's default `fee_tiers`. */
export const UNISWAP_V3_FEES = [100, 500, 3000, 10000];
const PANCAKE_V3_FEES = [100, 500, 2500, 10000];

const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());

/**
 * Well-known liquidity lockers. Only addresses confirmed by several independent sources are listed
 * (the lockers' own documentation and explorer labels, and the lock tables of public token
 * scanners); chains without a confirmed address list none, and CHAINS_FILE `lockers` adds more.
 * - UNCX (Unicrypt) "UniswapV2Locker" on Ethereum and its PancakeSwap V2 locker on BSC;
 * - Team Finance's token lock (a proxy) on Ethereum and on BSC;
 * - PinkSale's PinkLock V2 on Ethereum and on BSC.
 */
export const KNOWN_LOCKERS: Readonly<Record<number, readonly LockerConfig[]>> = {
  1: [
    { name: 'unicrypt', address: '0x663a5c229c09b049e36dcc11a9b0d4a8eb9db214' },
    { name: 'team-finance', address: '0xe2fe530c047f2d85298b07d9333c05737f1435fb' },
    { name: 'pinklock', address: '0x71b5759d73262fbb223956913ecf4ecc51057641' },
  ],
  56: [
    { name: 'unicrypt', address: '0xc765bddb93b0d1c1a88282ba0fa6b2d00e3e0c83' },
    { name: 'team-finance', address: '0x0c89c0407775dd89b12918b9c0aa42bf96518820' },
    { name: 'pinklock', address: '0x407993575c91ce7643a4d4ccacc9a98c36ee1bbe' },
  ],
};

const known = (symbol: string, name: string, address: string): KnownTokenConfig => ({
  symbol,
  name,
  address: address.toLowerCase(),
});

/**
 * Well-known tokens of the built-in chains (look-alikes): the wrapped native token, the USD
 * stablecoins and a few majors that phishing tokens copy, at the addresses their issuers publish.
 */
export const KNOWN_TOKENS: Readonly<Record<number, readonly KnownTokenConfig[]>> = {
  1: [
    known('WETH', 'Wrapped Ether', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
    known('USDC', 'USD Coin', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    known('USDT', 'Tether USD', '0xdAC17F958D2ee523a2206206994597C13D831ec7'),
    known('DAI', 'Dai Stablecoin', '0x6B175474E89094C44Da98b954EedeAC495271d0F'),
    known('WBTC', 'Wrapped BTC', '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599'),
    known('LINK', 'ChainLink Token', '0x514910771AF9Ca656af840dff83E8264EcF986CA'),
    known('UNI', 'Uniswap', '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984'),
  ],
  56: [
    known('WBNB', 'Wrapped BNB', '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c'),
    known('USDC', 'USD Coin', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d'),
    known('USDT', 'Tether USD', '0x55d398326f99059fF775485246999027B3197955'),
    known('BUSD', 'BUSD Token', '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56'),
    known('ETH', 'Ethereum Token', '0x2170Ed0880ac9A755fd29B2688956BD959F933F8'),
    known('CAKE', 'PancakeSwap Token', '0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82'),
  ],
  137: [
    known('WMATIC', 'Wrapped Matic', '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270'),
    known('USDC', 'USD Coin', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
    known('USDC.e', 'USD Coin (PoS)', '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174'),
    known('USDT', '(PoS) Tether USD', '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
    known('WETH', 'Wrapped Ether', '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619'),
  ],
  42161: [
    known('WETH', 'Wrapped Ether', '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1'),
    known('USDC', 'USD Coin', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    known('USDT', 'Tether USD', '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
    known('ARB', 'Arbitrum', '0x912CE59144191C1204E64559FE8253a0e49E6548'),
  ],
  8453: [
    known('WETH', 'Wrapped Ether', '0x4200000000000000000000000000000000000006'),
    known('USDC', 'USD Coin', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  ],
};

/**
 * Main DEXes, wrapped native token and USD stablecoins of the built-in chains. Addresses are the
 * ones the projects publish (Uniswap's, PancakeSwap's and QuickSwap's deployment pages, Circle's
 * and Tether's token lists); V3 pools are priced from slot0, so no V3 router or quoter is needed.
 * Uniswap V4's `factory` is its PoolManager (docs.uniswap.org/contracts/v4/deployments): it
 * announces every pool and holds their state, read with extsload.
 * Stablecoin decimals differ by chain (18 on BSC, 6 elsewhere): they are read on chain, never assumed.
 */
export const BUILT_IN_CHAINS: readonly BuiltIn[] = [
  {
    chainId: 1,
    name: 'Ethereum',
    confirmations: 2,
    finalityDepth: 65,
    pollIntervalMs: 4_000,
    wrappedNative: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    stablecoins: lower([
      '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    ]),
    dexes: [
      {
        name: 'uniswap-v2',
        kind: 'v2',
        factory: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f',
        router: '0x7a250d5630b4cf539739df2c5dacb4c659f2488d',
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: '0x1f98431c8ad98523631ae4a59f267346ea31f984',
        fee_tiers: UNISWAP_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: '0x000000000004444c5dc75cb358380d2e3de08a90' },
    ],
  },
  {
    chainId: 56,
    name: 'BNB Smart Chain',
    confirmations: 3,
    finalityDepth: 15,
    wrappedNative: '0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c',
    stablecoins: lower([
      '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d',
      '0x55d398326f99059fF775485246999027B3197955',
    ]),
    dexes: [
      {
        name: 'pancakeswap-v2',
        kind: 'v2',
        factory: '0xca143ce32fe78f1f7019d7d551a6402fc5350c73',
        router: '0x10ed43c718714eb63d5aa57b78b54704e256024e',
      },
      {
        name: 'pancakeswap-v3',
        kind: 'v3',
        factory: '0x0bfbcf9fa4f9c56b0f40a671ad40e0805a091865',
        fee_tiers: PANCAKE_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: '0x28e2ea090877bf75740558f6bfb36a5ffee9e9df' },
    ],
  },
  {
    chainId: 137,
    name: 'Polygon',
    confirmations: 5,
    finalityDepth: 200,
    wrappedNative: '0x0d500b1d8e8ef31e21c99d1db9a6444d3adf1270',
    stablecoins: lower([
      '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
      '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
    ]),
    dexes: [
      {
        name: 'quickswap-v2',
        kind: 'v2',
        factory: '0x5757371414417b8c6caad45baef941abc7d3ab32',
        router: '0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff',
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: '0x1f98431c8ad98523631ae4a59f267346ea31f984',
        fee_tiers: UNISWAP_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: '0x67366782805870060151383f4bbff9dab53e5cd6' },
    ],
  },
  {
    chainId: 42161,
    name: 'Arbitrum One',
    confirmations: 0,
    finalityDepth: 240,
    pollIntervalMs: 1_000,
    wrappedNative: '0x82af49447d8a07e3bd95bd0d56f35241523fbab1',
    stablecoins: lower([
      '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
      '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
    ]),
    dexes: [
      {
        name: 'uniswap-v2',
        kind: 'v2',
        factory: '0xf1d7cc64fb4452f05c498126312ebe29f30fbcf9',
        router: '0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24',
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: '0x1f98431c8ad98523631ae4a59f267346ea31f984',
        fee_tiers: UNISWAP_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: '0x360e68faccca8ca495c1b759fd9eee466db9fb32' },
    ],
  },
  {
    chainId: 8453,
    name: 'Base',
    confirmations: 0,
    finalityDepth: 64,
    wrappedNative: '0x4200000000000000000000000000000000000006',
    stablecoins: lower(['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913']),
    dexes: [
      {
        name: 'uniswap-v2',
        kind: 'v2',
        factory: '0x8909dc15e40173ff4699343b6eb8132c65e18ec6',
        router: '0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24',
      },
      {
        name: 'uniswap-v3',
        kind: 'v3',
        factory: '0x33128a8fc17869897dce68ed026d694621f6fdfd',
        fee_tiers: UNISWAP_V3_FEES,
      },
      { name: 'uniswap-v4', kind: 'v4', factory: '0x498581ff718922c3f8e6a244956af099b2652b2b' },
    ],
  },
];

/**
 * Announced but hidden chains: never listed, and their ids are refused like unknown ones.
 * Kept here so that the refusal is deliberate rather than accidental.
 */
export const ANNOUNCED_HIDDEN_CHAINS = [
  { key: 'solana', name: 'Solana', chainId: 1_399_811_149 },
] as const;

export function builtInChain(chainId: number): BuiltIn | undefined {
  return BUILT_IN_CHAINS.find((c) => c.chainId === chainId);
}

export function chainFromFileEntry(entry: z.infer<typeof chainFileEntrySchema>): ChainConfig {
  const builtIn = builtInChain(entry.chain_id);
  return {
    chainId: entry.chain_id,
    name: entry.name,
    rpcUrls: entry.rpc_urls,
    wsUrl: entry.ws_url,
    confirmations: entry.confirmations,
    startBlock: entry.start_block,
    finalityDepth: entry.finality_depth ?? builtIn?.finalityDepth ?? 64,
    pollIntervalMs: entry.poll_interval_ms ?? builtIn?.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    rpcTimeoutMs: entry.rpc_timeout_ms,
    wrappedNative: entry.wrapped_native,
    stablecoins: entry.stablecoins,
    dexes: entry.dexes,
    multicall3: entry.multicall3 ?? CANONICAL_MULTICALL3,
    lockers: entry.lockers ?? [...(KNOWN_LOCKERS[entry.chain_id] ?? [])],
    knownTokens: entry.known_tokens ?? [...(KNOWN_TOKENS[entry.chain_id] ?? [])],
    explorerApiUrl: entry.explorer_api_url,
    explorerApiKey: entry.explorer_api_key,
    ephemeral: false,
  };
}

export function chainFromBuiltIn(builtIn: BuiltIn, rpcUrls: string[], wsUrl?: string): ChainConfig {
  return {
    ...builtIn,
    rpcUrls,
    wsUrl,
    pollIntervalMs: builtIn.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    multicall3: builtIn.multicall3 ?? CANONICAL_MULTICALL3,
    lockers: [...(builtIn.lockers ?? KNOWN_LOCKERS[builtIn.chainId] ?? [])],
    knownTokens: [...(builtIn.knownTokens ?? KNOWN_TOKENS[builtIn.chainId] ?? [])],
    ephemeral: false,
  };
}
