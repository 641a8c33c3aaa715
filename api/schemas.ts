import { z } from 'zod';
import { ALERT_KINDS } from '../src/alerts.ts';

/**
 * Response schemas: the OpenAPI document renders them, and the conformance tests parse every
 * answer with them (strict objects: an extra or missing field fails).
 */

const address = z.string().regex(/^0x[0-9a-f]{40}$/).describe('lower-case 0x address');
const isoTime = z.iso.datetime();
const plan = z.enum(['FREE', 'BASIC', 'PRO']);

export const userSchema = z.strictObject({
  id: z.number().int(),
  email: z.string(),
  plan,
  plan_state: z.enum(['active', 'trialing', 'trial_expired', 'payment_failed', 'downgraded']),
  trial_ends_at: isoTime.nullable(),
  payment_failed_at: isoTime.nullable(),
  downgraded_at: isoTime.nullable(),
  features: z.strictObject({
    risk: z.boolean(), watchlist: z.boolean(), creators: z.boolean(), pro_api: z.boolean(), api_keys: z.boolean(), ws_connections: z.number().int(),
  }),
  created_at: isoTime,
}).meta({ id: 'User', description: '`plan` is the effective plan now: an ended trial reads FREE before the scheduled job records it.' });

export const signupResponse = z.strictObject({ user: userSchema });

export const signinResponse = z.strictObject({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  user: z.strictObject({ id: z.number().int(), email: z.string(), plan, trial_ends_at: isoTime.nullable() }),
});

const rateLimit = z.strictObject({ requests_per_day: z.number().int(), requests_per_hour: z.number().int(), requests_per_minute: z.number().int() });

export const apiKeyCreated = z.strictObject({
  api_key: z.string().regex(/^svc_pro_[0-9a-f]{40}$/),
  api_secret: z.string().regex(/^svc_secret_[0-9a-f]{64}$/),
  plan: z.literal('PRO'),
  name: z.string(),
  description: z.string().nullable(),
  rate_limit: rateLimit,
  features: z.array(z.string()),
  status: z.literal('active'),
  created_at: isoTime,
  expires_at: isoTime.nullable(),
}).meta({ id: 'ApiKeyCreated', description: 'Shown once: only SHA-256 hashes of api_key and api_secret are stored.' });

export const usageStats = z.strictObject({
  requests_today: z.number().int(),
  requests_this_month: z.number().int(),
  total_requests: z.number().int(),
  last_used: isoTime.nullable(),
});

export const apiKeyListItem = z.strictObject({
  api_key: z.string().regex(/^svc_pro_[0-9a-f]{4}…[0-9a-f]{4}$/).describe('masked'),
  name: z.string(),
  plan: z.string(),
  status: z.literal('active'),
  created_at: isoTime,
  last_used: isoTime.nullable(),
  usage_stats: usageStats,
});

export const apiKeyList = z.strictObject({ api_keys: z.array(apiKeyListItem), total: z.number().int() });

export const apiKeyRevoked = z.strictObject({ message: z.string(), api_key: z.string(), status: z.literal('revoked') });

const listItemShape = {
  contract_address: address,
  chain_id: z.number().int(),
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  current_risk_score: z.number().int().nullable().optional().describe('absent for FREE callers'),
  current_risk_level: z.string().nullable().optional().describe('absent for FREE callers'),
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
  updated_at: isoTime,
};

export const tokenDetail = z.strictObject(detailShape).meta({ id: 'TokenDetail' });

export const tokenList = z.strictObject({ items: z.array(tokenListItem), total: z.number().int(), page: z.number().int(), limit: z.number().int() });

const nullableBool = z.boolean().nullable();

export const securityHints = z.strictObject({
  is_proxy: nullableBool, is_mintable: nullableBool, can_blacklist: nullableBool, can_pause: nullableBool,
  fee_modifiable: nullableBool, has_max_tx_limit: nullableBool, trading_restricted: nullableBool,
  owner_can_change_balance: nullableBool, hidden_owner: nullableBool, ownership_renounced: nullableBool,
  owner_address: address.nullable(),
  creator_reputation_score: z.number().nullable(),
  liquidity_lock: z.strictObject({ locked_pct: z.number().nullable(), burned_pct: z.number().nullable(), lockers: z.array(z.string()) }).nullable(),
}).meta({ id: 'SecurityHints', description: 'null: not analysed yet. Every true flag has its evidence in risk_analysis.risk_factors.' });

export const tradingSimulation = z.strictObject({
  is_buyable: nullableBool, is_sellable: nullableBool,
  buy_tax_pct: z.number().nullable(), sell_tax_pct: z.number().nullable(), transfer_tax_pct: z.number().nullable(),
  max_tx_amount: z.string().nullable(), simulated_at: isoTime.nullable(), error: z.string().nullable(),
}).meta({ id: 'TradingSimulation' });

export const riskAnalysis = z.strictObject({
  risk_score: z.number().int().nullable(),
  risk_level: z.string().nullable(),
  risk_factors: z.unknown(),
  actionable_insights: z.unknown(),
  alerts: z.unknown(),
  analyzed_at: isoTime,
}).meta({ id: 'RiskAnalysis' });

export const historyItem = z.strictObject({
  timestamp: isoTime,
  risk_score: z.number().int().nullable(),
  price_usd: z.number().nullable(),
  liquidity_usd: z.number().nullable(),
  volume_24h_usd: z.number().nullable(),
  market_cap_usd: z.number().nullable(),
});

export const dexHints = z.record(z.string(), z.unknown()).meta({ id: 'DexHints', description: 'is_tradable, has_liquidity, has_v3_liquidity, total_liquidity_usd, token_price_usd, buy_url, num_trading_pairs, main_trading_pair, trading_pairs, recommended_dex, volume_24h_usd' });

export const completeToken = z.strictObject({
  ...detailShape,
  is_honeypot: nullableBool,
  security_hints: securityHints,
  trading_simulation: tradingSimulation.nullable(),
  risk_analysis: riskAnalysis.nullable().optional().describe('with include_analysis=true (default)'),
  dex_hints: dexHints.nullable().optional().describe('with include_dex=true (default)'),
  history: z.array(historyItem).optional().describe('with include_history=true; most recent first'),
}).meta({ id: 'CompleteToken' });

export const proTokenList = z.strictObject({
  items: z.array(z.record(z.string(), z.unknown()).describe('CompleteToken fields without history, risk_analysis and dex_hints, narrowed by `fields`')),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

const tokenRef = z.strictObject({ address: z.string(), chain_id: z.number().int() });

export const bulkResponse = z.strictObject({
  tokens: z.array(completeToken),
  metadata: z.strictObject({
    total_tokens: z.number().int().describe('tokens returned'),
    requested: z.number().int().describe('distinct tokens asked for'),
    processing_time_ms: z.number(),
    cache_hit_rate: z.number().min(0).max(1),
    not_found: z.array(tokenRef),
  }),
});

export const creatorSchema = z.strictObject({
  address,
  chain_id: z.number().int(),
  total_tokens: z.number().int(),
  success_rate: z.number().nullable(),
  scam_rate: z.number().nullable(),
  reputation_score: z.number().nullable(),
  first_seen: isoTime,
  last_seen: isoTime,
}).meta({ id: 'Creator' });

export const creatorList = z.strictObject({ items: z.array(creatorSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export const creatorDetail = z.strictObject({ ...creatorSchema.shape, tokens: z.array(tokenListItem) });

export const watchlistItem = z.strictObject({
  contract_address: address,
  chain_id: z.number().int(),
  added_at: isoTime,
  token: tokenListItem.nullable(),
});
export const watchlistResponse = z.strictObject({ items: z.array(watchlistItem), total: z.number().int() });
export const watchlistRemoved = z.strictObject({ message: z.string(), contract_address: address, chain_ids: z.array(z.number().int()) });

export const refreshResponse = z.strictObject({ status: z.literal('queued') });

export const preferencesResponse = z.strictObject({
  email_alerts: z.boolean(),
  alert_kinds: z.array(z.enum(ALERT_KINDS)).describe('the alert kinds the caller receives; all of them unless narrowed'),
});
