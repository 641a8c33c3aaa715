import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { RISK_LEVELS } from '../src/analysis/types.ts';
import { users } from './schema-accounts.ts';
import { createdAt, updatedAt } from './schema-columns.ts';

export * from './schema-accounts.ts';

/**
 * Durable state. Natural keys everywhere (chain_id + address), so that every write is an
 * idempotent upsert and any job may run twice without harm. Addresses and hashes are stored
 * lower-case hex with the 0x prefix.
 */

const blockNumber = (name: string) => bigint(name, { mode: 'number' });
/** uint256 amounts exceed every JS number: stored exactly as numeric(78,0). */
const uint256 = (name: string) => numeric(name, { precision: 78, scale: 0 });

/**
 * This database's identity: one row, made by migration 0009 and never changed. Every Redis
 * namespace records the id of the database it serves, so that two deployments on one Redis and
 * key prefix refuse to start instead of taking each other's jobs (app/namespace.ts).
 */
export const deployment = pgTable('deployment', {
  id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
  createdAt: createdAt(),
});

/** Where each chain's scanner resumes; one row per chain. */
export const scanCursors = pgTable('scan_cursors', {
  chainId: integer('chain_id').primaryKey(),
  /** The next block to scan. */
  nextBlock: blockNumber('next_block').notNull(),
  /** Hash of block 0: tells a restarted development chain from the one scanned before. */
  genesisHash: text('genesis_hash'),
  updatedAt: updatedAt(),
});

/** A window of recent block hashes per chain, for reorg detection by parentHash. */
export const blockHashes = pgTable(
  'block_hashes',
  {
    chainId: integer('chain_id').notNull(),
    blockNumber: blockNumber('block_number').notNull(),
    blockHash: text('block_hash').notNull(),
    parentHash: text('parent_hash').notNull(),
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.blockNumber] })],
);

/** Block ranges a replay has finished, so that an interrupted replay resumes where it stopped. */
export const replayRanges = pgTable(
  'replay_ranges',
  {
    chainId: integer('chain_id').notNull(),
    fromBlock: blockNumber('from_block').notNull(),
    toBlock: blockNumber('to_block').notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.fromBlock, t.toBlock] })],
);

export const tokens = pgTable(
  'tokens',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    name: text('name'),
    symbol: text('symbol'),
    decimals: integer('decimals'),
    totalSupply: uint256('total_supply'),
    // Creation data: null when the node cannot tell (a token submitted long after its deployment).
    creationTxHash: text('creation_tx_hash'),
    creator: text('creator'),
    creatorIsContract: boolean('creator_is_contract'),
    /** The transaction's sender when a factory created the token. */
    txOrigin: text('tx_origin'),
    creationBlockNumber: blockNumber('creation_block_number'),
    creationBlockHash: text('creation_block_hash'),
    creationTimestamp: timestamp('creation_timestamp', { withTimezone: true }),
    creationGasUsed: blockNumber('creation_gas_used'),
    /** How the deployment was found: receipt (top level), trace (factory), transfer-log (fallback), submitted. */
    detectionSource: text('detection_source').notNull(),
    bytecodeHash: text('bytecode_hash'),
    codeLength: integer('code_length'),
    proxyLike: boolean('proxy_like'),
    /** Pipeline progress: detected → bytecode → … (later stages extend it). */
    stage: text('stage').notNull().default('detected'),
    currentRiskScore: integer('current_risk_score'),
    // A TypeScript type only (no check constraint, no migration): rows read back as RiskLevel.
    currentRiskLevel: text('current_risk_level', { enum: RISK_LEVELS }),
    // Analysis results (docs/risk-model.md), copied from the latest analysis for listing and filtering.
    isProxy: boolean('is_proxy'),
    implementationAddress: text('implementation_address'),
    /** keccak of the code with metadata and PUSH constants masked: clones share it. */
    skeletonHash: text('skeleton_hash'),
    template: text('template'),
    isHoneypot: boolean('is_honeypot'),
    ownerAddress: text('owner_address'),
    /** trading_simulation (docs/api.md) and security_hints of the latest analysis. */
    tradingSimulation: jsonb('trading_simulation'),
    securityHints: jsonb('security_hints'),
    riskUpdatedAt: timestamp('risk_updated_at', { withTimezone: true }),
    /** When the token's liquidity was pulled (set by the DEX stage); counts as a scam for its creator. */
    liquidityPulledAt: timestamp('liquidity_pulled_at', { withTimezone: true }),
    currentLiquidityUsd: numeric('current_liquidity_usd', { precision: 30, scale: 2 }),
    isActivelyTraded: boolean('is_actively_traded').notNull().default(false),
    // DEX data (the dex stage and its refresh).
    priceUsd: numeric('price_usd', { precision: 40, scale: 18 }),
    marketCapUsd: numeric('market_cap_usd', { precision: 30, scale: 2 }),
    /** The first liquidity ever observed, written once. */
    initialLiquidityUsd: numeric('initial_liquidity_usd', { precision: 30, scale: 2 }),
    initialLiquidityAt: timestamp('initial_liquidity_at', { withTimezone: true }),
    volume24hUsd: numeric('volume_24h_usd', { precision: 30, scale: 2 }),
    lastTradeAt: timestamp('last_trade_at', { withTimezone: true }),
    dexHints: jsonb('dex_hints'),
    liquidityLock: jsonb('liquidity_lock'),
    /** fast (60 s), slow (idle tokens), none (not refreshed until a pair appears). */
    refreshTier: text('refresh_tier'),
    /** When the scheduler should refresh the token next; null: not scheduled. */
    nextRefreshAt: timestamp('next_refresh_at', { withTimezone: true }),
    dexUpdatedAt: timestamp('dex_updated_at', { withTimezone: true }),
    /** The holders report (src/holders/report.ts), refreshed with the DEX data and by the risk stage. */
    holders: jsonb('holders'),
    detectedAt: timestamp('detected_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set once token.created is on the event stream: delivery is at-least-once, never lost. */
    announcedAt: timestamp('announced_at', { withTimezone: true }),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.address] }),
    // The list's default order (detected_at desc nulls last, address desc), alone and under each
    // equality filter of GET /api/tokens: a page is an index range, never a sort of the table.
    index('tokens_list_idx').on(t.detectedAt.desc().nullsLast(), t.address.desc()),
    index('tokens_chain_list_idx').on(t.chainId, t.detectedAt.desc().nullsLast(), t.address.desc()),
    index('tokens_risk_level_list_idx').on(
      t.currentRiskLevel,
      t.detectedAt.desc().nullsLast(),
      t.address.desc(),
    ),
    index('tokens_liquid_list_idx')
      .on(t.detectedAt.desc().nullsLast(), t.address.desc())
      .where(sql`current_liquidity_usd > 0`),
    // The three filters a dashboard combines most (chain, risk level, some liquidity): one index
    // range for the page and for the capped count, instead of a bitmap of every liquid token.
    index('tokens_liquid_chain_risk_list_idx')
      .on(t.chainId, t.currentRiskLevel, t.detectedAt.desc().nullsLast(), t.address.desc())
      .where(sql`current_liquidity_usd > 0`),
    index('tokens_traded_list_idx')
      .on(t.detectedAt.desc().nullsLast(), t.address.desc())
      .where(sql`is_actively_traded`),
    // q: substring of name or symbol (pg_trgm), prefix or whole address (without the chain).
    index('tokens_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')),
    index('tokens_symbol_trgm_idx').using('gin', t.symbol.op('gin_trgm_ops')),
    index('tokens_address_pattern_idx').on(t.address.op('text_pattern_ops')),
    index('tokens_creator_idx').on(t.chainId, t.creator),
    index('tokens_creation_block_idx').on(t.chainId, t.creationBlockNumber),
    index('tokens_next_refresh_idx').on(t.nextRefreshAt).where(sql`next_refresh_at is not null`),
    index('tokens_risk_score_idx').on(t.currentRiskScore),
    index('tokens_liquidity_idx').on(t.currentLiquidityUsd),
    // Similarity to earlier honeypots: how many honeypots share a skeleton.
    index('tokens_honeypot_skeleton_idx').on(t.skeletonHash).where(sql`is_honeypot`),
  ],
);

/** DEX pairs (their LP tokens are never listed as new tokens). */
export const pairs = pgTable(
  'pairs',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    dex: text('dex').notNull(),
    factory: text('factory'),
    token0: text('token0').notNull(),
    token1: text('token1').notNull(),
    creationBlockNumber: blockNumber('creation_block_number'),
    creationTxHash: text('creation_tx_hash'),
    /** v2 (constant product, reserves), v3 (concentrated, slot0) or v4 (a PoolManager pool: `address` is its pool id, `factory` the manager); null until known. */
    kind: text('kind'),
    /** V3 fee tier; V4 LP fee (0x800000: dynamic, set by the hook). */
    fee: integer('fee'),
    /** V4 only: the pool key's tick spacing and hook address (the zero address: no hook). */
    tickSpacing: integer('tick_spacing'),
    hooks: text('hooks'),
    /** The side priced against (wrapped native or a stablecoin) once the dex stage has looked at the pair. */
    quoteToken: text('quote_token'),
    /** V2 reserves, or V3 balances held by the pool. */
    reserve0: uint256('reserve0'),
    reserve1: uint256('reserve1'),
    sqrtPriceX96: uint256('sqrt_price_x96'),
    /** V3 in-range liquidity (L). */
    liquidity: uint256('liquidity'),
    liquidityUsd: numeric('liquidity_usd', { precision: 30, scale: 2 }),
    priceUsd: numeric('price_usd', { precision: 40, scale: 18 }),
    /** Swap scan cursor: the last block whose Swap events are counted in volume_buckets. */
    volumeCursorBlock: blockNumber('volume_cursor_block'),
    /** Hour start (unix seconds) → quote tokens swapped; only the last 24 h are kept. */
    volumeBuckets: jsonb('volume_buckets'),
    /** Swaps are counted from this time on (epoch 0: since the pool's creation); under 24 h ago, the 24 h volume is partial. */
    volumeFromAt: timestamp('volume_from_at', { withTimezone: true }),
    volume24hUsd: numeric('volume_24h_usd', { precision: 30, scale: 2 }),
    lastSwapBlock: blockNumber('last_swap_block'),
    lastSwapAt: timestamp('last_swap_at', { withTimezone: true }),
    stateBlock: blockNumber('state_block'),
    detectedAt: timestamp('detected_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.address] }),
    index('pairs_token0_idx').on(t.chainId, t.token0),
    index('pairs_token1_idx').on(t.chainId, t.token1),
  ],
);

/** One row per analysis run; `input_hash` makes a re-run of the same input an upsert, not a duplicate. */
export const analyses = pgTable(
  'analyses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    inputHash: text('input_hash').notNull(),
    riskScore: integer('risk_score'),
    riskLevel: text('risk_level'),
    riskFactors: jsonb('risk_factors').notNull().default(sql`'[]'::jsonb`),
    actionableInsights: jsonb('actionable_insights').notNull().default(sql`'[]'::jsonb`),
    alerts: jsonb('alerts').notNull().default(sql`'[]'::jsonb`),
    details: jsonb('details').notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('analyses_input_idx').on(t.chainId, t.address, t.inputHash),
    index('analyses_token_idx').on(t.chainId, t.address, t.createdAt.desc()),
  ],
);

/** Snapshots written by each refresh; one per token per bucket. */
export const tokenHistory = pgTable(
  'token_history',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    bucketAt: timestamp('bucket_at', { withTimezone: true }).notNull(),
    riskScore: integer('risk_score'),
    priceUsd: numeric('price_usd', { precision: 40, scale: 18 }),
    liquidityUsd: numeric('liquidity_usd', { precision: 30, scale: 2 }),
    volume24hUsd: numeric('volume_24h_usd', { precision: 30, scale: 2 }),
    marketCapUsd: numeric('market_cap_usd', { precision: 30, scale: 2 }),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.address, t.bucketAt] })],
);

/*
 * History retention (docs/scale.md): token_history keeps the 60 s snapshots for 24 h, then they
 * live on as 5 min rollups for 7 days and 1 h rollups after that. All three tables are
 * partitioned by range of bucket_at (declared in the migration: drizzle cannot express it), so
 * expiry is a partition drop. The maintenance job (workers/history-maintenance.ts) creates the
 * partitions ahead, rolls each finished day up and drops what has expired.
 */
const historyColumns = () => ({
  chainId: integer('chain_id').notNull(),
  address: text('address').notNull(),
  bucketAt: timestamp('bucket_at', { withTimezone: true }).notNull(),
  riskScore: integer('risk_score'),
  priceUsd: numeric('price_usd', { precision: 40, scale: 18 }),
  liquidityUsd: numeric('liquidity_usd', { precision: 30, scale: 2 }),
  volume24hUsd: numeric('volume_24h_usd', { precision: 30, scale: 2 }),
  marketCapUsd: numeric('market_cap_usd', { precision: 30, scale: 2 }),
});

/** 5 min rollups: the last snapshot of each 5 minutes, kept 7 days. */
export const tokenHistory5m = pgTable('token_history_5m', historyColumns(), (t) => [
  primaryKey({ columns: [t.chainId, t.address, t.bucketAt] }),
]);

/** 1 h rollups: the last snapshot of each hour, kept HISTORY_HOURLY_RETENTION_DAYS. */
export const tokenHistory1h = pgTable('token_history_1h', historyColumns(), (t) => [
  primaryKey({ columns: [t.chainId, t.address, t.bucketAt] }),
]);

/** The maintenance job's watermark: every whole UTC day before `rolledUpUntil` has been rolled up. */
export const historyMaintenance = pgTable('history_maintenance', {
  name: text('name').primaryKey(),
  rolledUpUntil: timestamp('rolled_up_until', { withTimezone: true }).notNull(),
  updatedAt: updatedAt(),
});

export const creators = pgTable(
  'creators',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    totalTokens: integer('total_tokens').notNull().default(0),
    successCount: integer('success_count').notNull().default(0),
    scamCount: integer('scam_count').notNull().default(0),
    reputationScore: integer('reputation_score'),
    firstSeen: timestamp('first_seen', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.address] }),
    index('creators_last_seen_idx').on(t.lastSeen.desc()),
  ],
);

/** Only SHA-256 hashes of the key and the secret are kept; the plain values are shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    secretHash: text('secret_hash').notNull(),
    /** The masked form shown in listings (svc_pro_1a2b…9f0e): not a secret. */
    maskedKey: text('masked_key').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    plan: text('plan').notNull(),
    status: text('status').notNull().default('active'),
    requestsPerMinute: integer('requests_per_minute').notNull().default(10),
    requestsPerHour: integer('requests_per_hour').notNull().default(100),
    requestsPerDay: integer('requests_per_day').notNull().default(1000),
    lastUsed: timestamp('last_used', { withTimezone: true }),
    totalRequests: bigint('total_requests', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_idx').on(t.keyHash),
    uniqueIndex('api_keys_secret_hash_idx').on(t.secretHash),
    index('api_keys_user_idx').on(t.userId, t.createdAt.desc()),
    // One active key per user, enforced by the database even when two generate calls race.
    uniqueIndex('api_keys_one_active_idx').on(t.userId).where(sql`status = 'active'`),
  ],
);

export const watchlist = pgTable(
  'watchlist',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.chainId, t.address] })],
);

/**
 * One row per alert per user (docs/websocket.md, alerts): the unique (user_id, alert_key) makes delivery
 * idempotent — a re-delivered stream entry or a second consumer inserts nothing. `emailedAt` is
 * set once the email went out; `emailClaimedAt` is a short lease so that two consumers retrying
 * the same pending email do not both send it.
 */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    alertKey: text('alert_key').notNull(),
    kind: text('kind').notNull(),
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    /** The stream entry that produced it. */
    streamId: text('stream_id').notNull(),
    message: text('message').notNull(),
    /** Whether an email is owed (the user had email alerts on when the alert was recorded). */
    emailWanted: boolean('email_wanted').notNull().default(false),
    emailClaimedAt: timestamp('email_claimed_at', { withTimezone: true }),
    emailedAt: timestamp('emailed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('alert_deliveries_user_key_idx').on(t.userId, t.alertKey),
    index('alert_deliveries_pending_email_idx')
      .on(t.alertKey)
      .where(sql`email_wanted and emailed_at is null`),
  ],
);

/*
 * Holders (docs/architecture.md, "Holders"): balances from the Transfer logs of the blocks the
 * detect stage reads, applied in block order by one sequencer per chain.
 */

/** One row per holder per token (and per LP token); a row whose balance reaches zero is deleted. */
export const holderBalances = pgTable(
  'holder_balances',
  {
    chainId: integer('chain_id').notNull(),
    token: text('token').notNull(),
    holder: text('holder').notNull(),
    /** Signed: a token emitting Transfers its balances do not back can drive a holder below zero. */
    balance: numeric('balance', { precision: 78, scale: 0 }).notNull(),
    /** Whether the holder has code, once the simulate stage asked (null: not asked). */
    isContract: boolean('is_contract'),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.token, t.holder] }),
    index('holder_balances_top_idx').on(t.chainId, t.token, t.balance.desc()),
  ],
);

/**
 * The balance changes of recent blocks, per block, kept for the reorg window only: a rollback
 * subtracts them exactly.
 */
export const holderChanges = pgTable(
  'holder_changes',
  {
    chainId: integer('chain_id').notNull(),
    blockNumber: blockNumber('block_number').notNull(),
    token: text('token').notNull(),
    holder: text('holder').notNull(),
    delta: numeric('delta', { precision: 78, scale: 0 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.blockNumber, t.token, t.holder] })],
);

/**
 * A block's Transfer logs waiting for the sequencer (every emitter's: a token recorded by the
 * detect job of an earlier block is known by the time this block is applied). Deleted when applied.
 */
export const holderPending = pgTable(
  'holder_pending',
  {
    chainId: integer('chain_id').notNull(),
    blockNumber: blockNumber('block_number').notNull(),
    blockHash: text('block_hash').notNull(),
    parentHash: text('parent_hash').notNull(),
    /** [token, from, to, value] per Transfer log, in log order. */
    transfers: jsonb('transfers').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.blockNumber, t.blockHash] })],
);

/**
 * The sequencer's cursor per chain and track: `live` (the scanner's blocks) and `replay` (final
 * blocks of `token-monitor replay`). Balances include every block from start_block to block_number.
 */
export const holderTracks = pgTable(
  'holder_tracks',
  {
    chainId: integer('chain_id').notNull(),
    track: text('track').notNull(),
    startBlock: blockNumber('start_block').notNull(),
    blockNumber: blockNumber('block_number').notNull(),
    /** Hash of block_number (live track): the next block applied must be its child. */
    blockHash: text('block_hash'),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.track] })],
);
