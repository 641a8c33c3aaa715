import { z } from 'zod';
import { ALERT_KINDS } from '../src/alerts.ts';
import { PLAN_STATES } from '../src/plans.ts';
import {
  address,
  holderSells,
  holders,
  impersonates,
  isoTime,
  lpHolders,
  riskLevel,
} from './token-schemas.ts';

export * from './token-schemas.ts';

/**
 * Response schemas: the OpenAPI document renders them, and the conformance tests parse every
 * answer with them (strict objects: an extra or missing field fails).
 */

const plan = z.enum(['FREE', 'BASIC', 'PRO']);

export const userSchema = z
  .strictObject({
    id: z.number().int(),
    email: z.string(),
    plan,
    plan_state: z.enum(PLAN_STATES),
    trial_ends_at: isoTime.nullable(),
    plan_ends_at: isoTime
      .nullable()
      .describe('the paid plan ends then (cancelled at the end of its period); null: it renews'),
    payment_failed_at: isoTime.nullable(),
    downgraded_at: isoTime.nullable(),
    features: z.strictObject({
      risk: z.boolean(),
      watchlist: z.boolean(),
      creators: z.boolean(),
      pro_api: z.boolean(),
      api_keys: z.boolean(),
      ws_connections: z.number().int(),
    }),
    created_at: isoTime,
  })
  .meta({
    id: 'User',
    description:
      '`plan` is the effective plan now: an ended trial reads FREE before the scheduled job records it.',
  });

export const signupResponse = z.strictObject({ user: userSchema });

export const signinResponse = z.strictObject({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  user: z.strictObject({
    id: z.number().int(),
    email: z.string(),
    plan,
    trial_ends_at: isoTime.nullable(),
  }),
});

const rateLimit = z.strictObject({
  requests_per_day: z.number().int(),
  requests_per_hour: z.number().int(),
  requests_per_minute: z.number().int(),
});

export const apiKeyCreated = z
  .strictObject({
    api_key: z.string().regex(/^svc_pro_[0-9a-f]+$/),
    api_secret: z.string().regex(/^svc_secret_[0-9a-f]{64}$/),
    plan: z.literal('pro'),
    name: z.string(),
    description: z.string(),
    rate_limit: rateLimit,
    features: z.array(
      z.enum(['complete_data_access', 'historical_data', 'bulk_operations', 'data_export']),
    ),
    status: z.literal('active'),
    created_at: isoTime,
    expires_at: isoTime.nullable(),
  })
  .meta({
    id: 'ApiKeyCreated',
    description: 'Shown once: only SHA-256 hashes of api_key and api_secret are stored.',
  });

export const usageStats = z.strictObject({
  requests_today: z.number().int(),
  requests_this_month: z.number().int(),
  total_requests: z.number().int(),
  last_used: isoTime.nullable(),
});

export const apiKeyListItem = z.strictObject({
  api_key: z
    .string()
    .regex(/^svc_pro_[0-9a-f]{4}…[0-9a-f]{4}$/)
    .describe('masked'),
  name: z.string(),
  plan: z.literal('pro'),
  status: z.literal('active'),
  created_at: isoTime,
  last_used: isoTime.nullable(),
  usage_stats: usageStats,
});

export const apiKeyList = z.strictObject({
  api_keys: z.array(apiKeyListItem),
  total: z.number().int(),
});

export const apiKeyRevoked = z.strictObject({
  message: z.string(),
  api_key: z.string(),
  status: z.literal('revoked'),
});

const listItemShape = {
  contract_address: address,
  chain_id: z.number().int(),
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  current_risk_score: z
    .number()
    .int()
    .nullable()
    .describe('null for FREE callers, and before the risk stage'),
  current_risk_level: riskLevel
    .nullable()
    .describe('null for FREE callers, and before the risk stage'),
  current_liquidity_usd: z.number().nullable(),
  is_actively_traded: z.boolean(),
  detected_at: isoTime,
};

export const tokenListItem = z.strictObject(listItemShape).meta({ id: 'TokenListItem' });

const detailShape = {
  ...listItemShape,
  decimals: z.number().int().nullable(),
  total_supply: z.string().nullable().describe('uint256 as a decimal string'),
  creator: address.nullable(),
  creator_is_contract: z.boolean().nullable(),
  tx_origin: address.nullable(),
  creation_tx_hash: z.string().nullable(),
  creation_block_number: z.number().int().nullable(),
  creation_block_hash: z.string().nullable(),
  creation_timestamp: isoTime.nullable(),
  creation_gas_used: z.number().int().nullable(),
  detection_source: z.string(),
  bytecode_hash: z.string().nullable(),
  code_length: z.number().int().nullable(),
  proxy_like: z.boolean().nullable(),
  price_usd: z.number().nullable(),
  market_cap_usd: z.number().nullable(),
  initial_liquidity_usd: z.number().nullable(),
  volume_24h_usd: z.number().nullable(),
  analysis_stage: z.string(),
  last_updated: isoTime,
  holders: z
    .union([holders, holders.omit({ top_holders: true })])
    .nullable()
    .describe('PRO: with top_holders; BASIC: the shares only; FREE: null'),
  lp_holders: z.array(lpHolders).nullable().describe('PRO only (null for BASIC and FREE)'),
  holder_sells: z
    .union([
      holderSells,
      holderSells.pick({
        tried: true,
        failed: true,
        average_tax_pct: true,
        max_tax_pct: true,
        block: true,
      }),
    ])
    .nullable()
    .describe(
      'PRO: with the failing and siphoned holders; BASIC: the counts and taxes; FREE: null',
    ),
  impersonates: impersonates.nullable().describe('null for FREE callers, and when none'),
};

export const tokenDetail = z.strictObject(detailShape).meta({ id: 'TokenDetail' });

export const tokenList = z.strictObject({
  items: z.array(tokenListItem),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

export const creatorSchema = z
  .strictObject({
    address,
    chain_id: z.number().int(),
    total_tokens: z.number().int(),
    success_rate: z.number().nullable(),
    scam_rate: z.number().nullable(),
    reputation_score: z.number().nullable(),
    first_seen: isoTime,
    last_seen: isoTime,
  })
  .meta({ id: 'Creator' });

export const creatorList = z.strictObject({
  items: z.array(creatorSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export const creatorDetail = z.strictObject({
  ...creatorSchema.shape,
  tokens: z.array(tokenListItem),
});

export const watchlistItem = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  added_at: isoTime,
  token: tokenListItem.nullable(),
});
export const watchlistResponse = z.strictObject({
  items: z.array(watchlistItem),
  total: z.number().int(),
});
export const watchlistRemoved = z.strictObject({
  message: z.string(),
  contract_address: address,
  chain_ids: z.array(z.number().int()),
});

export const refreshResponse = z.strictObject({ status: z.literal('queued') });

export const preferencesResponse = z.strictObject({
  email_alerts: z.boolean(),
  alert_kinds: z
    .array(z.enum(ALERT_KINDS))
    .describe('the alert kinds the caller receives; all of them unless narrowed'),
});
