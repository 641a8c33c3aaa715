import { z } from 'zod';
import { ALERT_KINDS } from '../src/alerts.ts';
import { PROOF_STATUSES, RISK_LEVELS } from '../src/analysis/types.ts';

/**
 * The token object's response schemas (docs/api.md, "The complete token object") and the
 * WebSocket event payloads built from the same parts (docs/websocket.md): strict objects, so an
 * extra or a missing field fails the route's response check.
 */

export const address = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .describe('lower-case 0x address');
export const isoTime = z.iso.datetime();
/** A token's risk level (RISK_LEVELS), named so that the web app's generated types call it RiskLevel. */
export const riskLevel = z.enum(RISK_LEVELS).meta({ id: 'RiskLevel' });

const nullableBool = z.boolean().nullable();
const nullableInt = z.number().int().nullable();
const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`));

export const fullTokenData = z
  .strictObject({
    token: z.strictObject({
      name: z.string().nullable(),
      symbol: z.string().nullable(),
      decimals: nullableInt,
      total_supply: z
        .string()
        .regex(/^\d+$/)
        .nullable()
        .describe('integer amount in smallest units'),
    }),
    block_timestamp: nullableInt.describe('creation block time, Unix seconds'),
    creation: z.strictObject({
      block_timestamp: nullableInt,
      tx_hash: hex(32).nullable(),
      creator: address.nullable(),
      creator_is_contract: nullableBool,
      block_number: nullableInt,
      gas_used: nullableInt,
      bytecode_hash: hex(32).nullable(),
      code_len: nullableInt,
      proxy_like: nullableBool,
    }),
    born_block: nullableInt,
  })
  .meta({
    id: 'FullTokenData',
    description: 'null where the node could not tell (a token submitted long after its deployment)',
  });

export const adminFunction = z
  .strictObject({
    name: z.string(),
    selector: z
      .string()
      .regex(/^[0-9a-f]{8}$/)
      .describe('4-byte selector, hex without 0x'),
    access_control: z.enum(['owner-only', 'role', 'none', 'unknown']),
    risk_level: z.number().int().min(1).max(4).describe('1 low, 2 medium, 3 high, 4 critical'),
    description: z.string(),
  })
  .meta({ id: 'AdminFunction' });

const liquidityLock = z.strictObject({
  locked_pct: z.number().nullable(),
  burned_pct: z.number().nullable(),
  lockers: z.array(
    z.strictObject({ name: z.string(), address, pair_address: address, locked_pct: z.number() }),
  ),
});

const securityHintsShape = {
  contract_template: z.string().nullable(),
  security_risk_score: z
    .number()
    .int()
    .min(0)
    .max(100)
    .nullable()
    .describe('score of the latest risk analysis'),
  ownership_renounced: nullableBool,
  verified_contract: z
    .boolean()
    .describe('true only where a configured block explorer reports verified source'),
  has_pause_function: nullableBool,
  has_blacklist_function: nullableBool,
  has_mint_function: nullableBool,
  is_proxy: nullableBool,
  fee_modifiable: nullableBool,
  has_max_tx_limit: nullableBool,
  trading_restricted: nullableBool,
  owner_can_change_balance: nullableBool,
  hidden_owner: nullableBool,
  owner_address: address.nullable(),
  creator_reputation_score: z.number().nullable(),
  liquidity_lock: liquidityLock.nullable(),
  selfdestruct: nullableBool.describe(
    'reachable SELFDESTRUCT in the code (and who can reach it: the factors)',
  ),
  external_call: nullableBool.describe('the owner can set a contract that transfers call'),
  is_open_source: nullableBool.describe(
    'verified source on the configured explorer; null without one',
  ),
};

/** security_hints without the admin function list: what events carry. */
export const securityHintsCore = z
  .strictObject(securityHintsShape)
  .meta({ id: 'SecurityHintsCore' });

export const securityHints = z
  .strictObject({
    ...securityHintsShape,
    admin_functions: z
      .array(adminFunction)
      .optional()
      .describe('with include_admin_functions=true (default)'),
  })
  .meta({
    id: 'SecurityHints',
    description:
      'null: not analysed yet. Every true flag has its evidence in analyses[].risk_factor_details.',
  });

export const tradingSimulation = z
  .strictObject({
    is_buyable: nullableBool,
    is_sellable: nullableBool,
    buy_tax_pct: z.number().nullable(),
    sell_tax_pct: z.number().nullable(),
    transfer_tax_pct: z.number().nullable(),
    max_tx_amount: z.string().nullable(),
    simulated_at: isoTime.nullable(),
    error: z.string().nullable(),
    hook: z
      .strictObject({
        address,
        pool_id: hex(32),
        flags: z.string(),
        permissions: z.array(z.string()),
        problems: z.array(z.string()),
        can_change_swaps: nullableBool,
        findings: z.array(z.string()),
      })
      .nullable()
      .describe(
        "the simulated Uniswap V4 pool's hook: permission bits, problems, owner control, what it did",
      ),
  })
  .meta({ id: 'TradingSimulation' });

/** A V2/V3 pair's address, or a V4 pool's id (V4 pools live in their PoolManager and have no address). */
const poolRef = z
  .union([address, hex(32)])
  .describe('a pool address, or a Uniswap V4 pool id (32 bytes)');

export const dexHints = z
  .strictObject({
    is_tradable: nullableBool,
    has_liquidity: nullableBool,
    has_v3_liquidity: nullableBool,
    has_v4_liquidity: nullableBool,
    total_liquidity_usd: z.number().nullable(),
    token_price_usd: z.number().nullable(),
    buy_url: z.url().nullable(),
    num_trading_pairs: nullableInt,
    main_trading_pair: poolRef.nullable(),
    trading_pairs: z.array(
      z.strictObject({
        dex: z.string(),
        pair_address: poolRef,
        quote_token: address,
        liquidity_usd: z.number().nullable(),
        price_usd: z.number().nullable(),
        pool_id: hex(32).nullable(),
        hook_address: address.nullable(),
      }),
    ),
    recommended_dex: z.string().nullable(),
    volume_24h_usd: z.number().nullable(),
  })
  .meta({ id: 'DexHints' });

const holderTag = z.enum(['pair', 'locker', 'burn', 'token', 'creator', 'owner']).nullable();
const holderRow = z.strictObject({
  address,
  balance: z
    .string()
    .regex(/^-?\d+$/)
    .describe('integer amount in smallest units'),
  percent: z.number().describe('share of the tracked supply, percent'),
  is_contract: nullableBool.describe('null: not asked yet'),
  tag: holderTag,
});

export const holders = z
  .strictObject({
    holder_count: z.number().int(),
    top_holders: z.array(holderRow),
    creator_percent: z.number().nullable(),
    owner_percent: z.number().nullable(),
    contract_percent: z.number(),
    burned_percent: z.number(),
    pools_percent: z.number(),
    top10_outside_pools_percent: z.number(),
    block: nullableInt.describe('the block the balances are at'),
    complete: z.boolean().describe('tracked from the creation block'),
  })
  .meta({ id: 'Holders' });

export const lpHolders = z
  .strictObject({
    pair_address: address,
    dex: z.string(),
    holder_count: z.number().int(),
    locked_percent: z.number(),
    burned_percent: z.number(),
    creator_percent: z.number(),
    other_percent: z.number(),
    top_holders: z.array(holderRow),
  })
  .meta({ id: 'LpHolders' });

export const holderSells = z
  .strictObject({
    tried: z.number().int(),
    failed: z.number().int(),
    average_tax_pct: z.number().nullable(),
    max_tax_pct: z.number().nullable(),
    block: nullableInt,
    failures: z.array(z.strictObject({ address, reason: z.string() })),
    siphoned: z.array(
      z.strictObject({ address, tracked_balance: z.string(), balance: z.string() }),
    ),
  })
  .meta({ id: 'HolderSells' });

export const impersonates = z
  .strictObject({
    symbol: z.string(),
    canonical_address: address,
    matched: z.enum(['symbol', 'name']),
  })
  .meta({ id: 'Impersonates' });

/** Whether a finding was proven by execution (docs/risk-model.md, "Propose, then prove"). */
export const findingProof = z
  .strictObject({
    status: z.enum(PROOF_STATUSES).meta({
      description:
        'proven: an eth_call ran the power as its privileged caller and saw its effect; unconfirmed: it could not be run, or ran without its effect (less weight); observed: the finding is itself an execution (trade, sell, probe); not-executable: a fact no call can show',
    }),
    detail: z.string().meta({
      description: 'The call, its caller and what it showed, or why nothing could be shown',
    }),
    before: z.record(z.string(), z.string()).optional().meta({
      description:
        'Read before the call: total_supply, holder_balance (decimal), holder_transfer (moves/fails)',
    }),
    after: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'The same, read after the call' }),
  })
  .meta({ id: 'FindingProof' });

export const analysis = z
  .strictObject({
    timestamp: isoTime,
    risk_factors: z.array(z.string()),
    actionable_insights: z.array(z.string()),
    alerts: z.array(z.strictObject({ type: z.string(), message: z.string() })),
    risk_score: nullableInt,
    risk_level: riskLevel.nullable(),
    risk_factor_details: z.array(
      z.strictObject({
        code: z.string(),
        points: z.number(),
        severity: z.string(),
        message: z.string(),
        evidence: z.array(
          z
            .object({ kind: z.string(), detail: z.string(), selector: z.string().optional() })
            .strict(),
        ),
        proof: findingProof,
      }),
    ),
  })
  .meta({ id: 'Analysis' });

export const historyItem = z
  .strictObject({
    timestamp: isoTime,
    risk_score: nullableInt,
    price_usd: z.number().nullable(),
    liquidity_usd: z.number().nullable(),
    volume_24h_usd: z.number().nullable(),
    market_cap_usd: z.number().nullable(),
  })
  .meta({ id: 'HistorySnapshot' });

export const monitoringRecommendations = z.strictObject({
  risk_monitoring: z.array(z.string()),
  price_alerts: z.array(z.string()),
});

const completeShape = {
  contract_address: address,
  chain_id: z.number().int(),
  full_token_data: fullTokenData,
  security_hints: securityHints,
  current_risk_level: riskLevel.nullable(),
  current_risk_score: z.number().int().min(0).max(100).nullable(),
  current_liquidity_usd: z.number().nullable(),
  is_actively_traded: z.boolean(),
  dex_hints: dexHints.nullable(),
  monitoring_recommendations: monitoringRecommendations,
  data_quality_score: z.number().min(0).max(1),
  analyses: z
    .array(analysis)
    .optional()
    .describe('with include_analyses=true (default); newest first'),
  token_history: z
    .array(historyItem)
    .optional()
    .describe('with include_history=true; newest first'),
  last_updated: isoTime,
  trading_simulation: tradingSimulation.nullable(),
  is_honeypot: nullableBool,
  holders: holders.nullable(),
  lp_holders: z.array(lpHolders),
  holder_sells: holderSells.nullable(),
  impersonates: impersonates.nullable(),
};

export const completeToken = z.strictObject(completeShape).meta({ id: 'CompleteToken' });

export const tokenSummary = z
  .strictObject({
    contract_address: address,
    chain_id: z.number().int(),
    current_risk_score: completeShape.current_risk_score,
    current_liquidity_usd: z.number().nullable(),
    data_quality_score: completeShape.data_quality_score,
    last_updated: isoTime,
  })
  .meta({ id: 'TokenSummary' });

/** A PRO list item: the summary fields, or contract_address, chain_id and the fields named in `fields`. */
export const proListItem = z
  .strictObject({
    ...Object.fromEntries(
      Object.entries(completeShape).map(([k, v]) => [k, (v as z.ZodType).optional()]),
    ),
  })
  .meta({
    id: 'ProListItem',
    description:
      'Without `fields`: the summary fields (and token_history with include_history=true).',
  });

export const pagination = z.strictObject({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
});

export const proTokenList = z.strictObject({ tokens: z.array(proListItem), pagination });

const tokenRef = z.strictObject({ address, chain_id: z.number().int() });

export const bulkResponse = z.strictObject({
  tokens: z.array(completeToken),
  metadata: z.strictObject({
    total_tokens: z.number().int().describe('tokens returned'),
    requested: z.number().int().describe('distinct tokens asked for'),
    processing_time_ms: z.number().int(),
    cache_hit_rate: z.number().min(0).max(1),
    not_found: z.array(tokenRef),
  }),
});

/** WebSocket event payloads (docs/websocket.md): the HTTP token object's names and shapes. */
const tokenCreatedData = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  full_token_data: fullTokenData,
  detection_source: z.string(),
  detected_at: isoTime,
});
const tokenUpdatedData = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  source: z.enum(['risk', 'dex']),
  changes: z.array(z.string()),
  full_token_data: fullTokenData,
  current_risk_level: completeShape.current_risk_level,
  current_risk_score: completeShape.current_risk_score,
  is_honeypot: nullableBool,
  current_liquidity_usd: z.number().nullable(),
  is_actively_traded: z.boolean(),
  price_usd: z.number().nullable(),
  market_cap_usd: z.number().nullable(),
  volume_24h_usd: z.number().nullable(),
  security_hints: securityHintsCore,
  trading_simulation: tradingSimulation.nullable(),
  dex_hints: dexHints.nullable(),
  holders: holders.nullable(),
  lp_holders: z.array(lpHolders),
  holder_sells: holderSells.nullable(),
  impersonates: impersonates.nullable(),
  previous: z.strictObject({
    current_risk_score: nullableInt,
    current_risk_level: riskLevel.nullable(),
    current_liquidity_usd: z.number().nullable(),
    price_usd: z.number().nullable(),
  }),
  last_updated: isoTime,
});
const alertData = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  type: z.enum(ALERT_KINDS),
  message: z.string(),
  alert_key: z.string().nullable(),
  bucket_at: isoTime.nullable(),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
const tokenRemovedData = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  reason: z.string(),
});

export const eventData = {
  'token.created': tokenCreatedData,
  'token.updated': tokenUpdatedData,
  alert: alertData,
  'token.removed': tokenRemovedData,
} as const;

const streamId = z.string().regex(/^\d+-\d+$/);
/** One WebSocket message: the component `LiveEvent` of the OpenAPI document (web types). */
export const eventMessage = z
  .discriminatedUnion('type', [
    z.strictObject({
      id: streamId,
      type: z.literal('token.created'),
      ts: isoTime,
      data: tokenCreatedData,
    }),
    z.strictObject({
      id: streamId,
      type: z.literal('token.updated'),
      ts: isoTime,
      data: tokenUpdatedData,
    }),
    z.strictObject({ id: streamId, type: z.literal('alert'), ts: isoTime, data: alertData }),
    z.strictObject({
      id: streamId,
      type: z.literal('token.removed'),
      ts: isoTime,
      data: tokenRemovedData,
    }),
  ])
  .meta({ id: 'LiveEvent', description: 'One WebSocket message (docs/websocket.md).' });
