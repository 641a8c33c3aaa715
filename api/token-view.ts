import type { AnalysisRow, CreatorRow, HistoryRow, TokenListRow, TokenRow } from '../db/repositories/tokens.ts';

/**
 * Token representations (docs/api.md): the list item, the general detail view, and the complete
 * token object of the PRO operations. Addresses are lower-case in every answer.
 *
 * The stages keep their latest results on the token row (trading_simulation, security_hints,
 * dex_hints, liquidity_lock, is_honeypot) and the reasons in the newest `analyses` row
 * (risk_factors, actionable_insights, alerts). What a stage has not filled yet is null.
 */

const numericToNumber = (value: string | null | undefined) => (value === null || value === undefined ? null : Number(value));
const isoOrNull = (value: Date | null) => value?.toISOString() ?? null;

export const RISK_FIELDS = ['current_risk_score', 'current_risk_level'] as const;

export function toListItem(row: TokenListRow) {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    current_risk_score: row.currentRiskScore,
    current_risk_level: row.currentRiskLevel,
    current_liquidity_usd: numericToNumber(row.currentLiquidityUsd),
    is_actively_traded: row.isActivelyTraded,
    detected_at: row.detectedAt.toISOString(),
  };
}

export function toDetail(row: TokenRow) {
  return {
    ...toListItem(row),
    decimals: row.decimals,
    total_supply: row.totalSupply,
    creator: row.creator,
    creator_is_contract: row.creatorIsContract,
    tx_origin: row.txOrigin,
    creation_tx_hash: row.creationTxHash,
    creation_block_number: row.creationBlockNumber,
    creation_block_hash: row.creationBlockHash,
    creation_timestamp: isoOrNull(row.creationTimestamp),
    creation_gas_used: row.creationGasUsed,
    detection_source: row.detectionSource,
    bytecode_hash: row.bytecodeHash,
    code_length: row.codeLength,
    proxy_like: row.proxyLike,
    price_usd: numericToNumber(row.priceUsd),
    market_cap_usd: numericToNumber(row.marketCapUsd),
    initial_liquidity_usd: numericToNumber(row.initialLiquidityUsd),
    volume_24h_usd: numericToNumber(row.volume24hUsd),
    analysis_stage: row.stage,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** FREE callers see tokens without risk fields. */
export function withoutRisk<T extends Record<string, unknown>>(item: T): Omit<T, (typeof RISK_FIELDS)[number]> {
  const { current_risk_score: _s, current_risk_level: _l, ...rest } = item;
  return rest;
}

type Json = Record<string, unknown>;
const jsonObjectOrNull = (value: unknown): Json | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const bool = (value: unknown) => (typeof value === 'boolean' ? value : null);
const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'string' && value !== '' && Number.isFinite(Number(value)) ? Number(value) : null);
const text = (value: unknown) => (typeof value === 'string' ? value : null);

export function tradingSimulation(details: Json | null) {
  const sim = jsonObjectOrNull(details?.trading_simulation);
  if (!sim) return null;
  return {
    is_buyable: bool(sim.is_buyable),
    is_sellable: bool(sim.is_sellable),
    buy_tax_pct: number(sim.buy_tax_pct),
    sell_tax_pct: number(sim.sell_tax_pct),
    transfer_tax_pct: number(sim.transfer_tax_pct),
    max_tx_amount: sim.max_tx_amount === null || sim.max_tx_amount === undefined ? null : String(sim.max_tx_amount),
    simulated_at: text(sim.simulated_at),
    error: text(sim.error),
  };
}

export const SECURITY_FLAGS = [
  'is_proxy', 'is_mintable', 'can_blacklist', 'can_pause', 'fee_modifiable', 'has_max_tx_limit', 'trading_restricted',
  'owner_can_change_balance', 'hidden_owner', 'ownership_renounced',
] as const;

export function securityHints(row: TokenRow, details: Json | null, creator: CreatorRow | undefined) {
  const hints = jsonObjectOrNull(details?.security_hints);
  const flags = Object.fromEntries(SECURITY_FLAGS.map((f) => [f, bool(hints?.[f])])) as Record<(typeof SECURITY_FLAGS)[number], boolean | null>;
  // Before the selectors stage, the bytecode stage's proxy hint is the best knowledge there is.
  if (flags.is_proxy === null && row.proxyLike !== null) flags.is_proxy = row.proxyLike;
  // The DEX stage measures the lock on chain; the risk stage's copy is a snapshot of it.
  const lock = jsonObjectOrNull(row.liquidityLock) ?? jsonObjectOrNull(hints?.liquidity_lock);
  return {
    ...flags,
    owner_address: text(hints?.owner_address) ?? row.ownerAddress,
    creator_reputation_score: number(hints?.creator_reputation_score) ?? creator?.reputationScore ?? null,
    liquidity_lock: lock
      ? { locked_pct: number(lock.locked_pct), burned_pct: number(lock.burned_pct), lockers: Array.isArray(lock.lockers) ? lock.lockers.filter((l) => typeof l === 'string' || jsonObjectOrNull(l) !== null) : [] }
      : null,
  };
}

export const DEX_FIELDS = [
  'is_tradable', 'has_liquidity', 'has_v3_liquidity', 'total_liquidity_usd', 'token_price_usd', 'buy_url', 'num_trading_pairs',
  'main_trading_pair', 'trading_pairs', 'recommended_dex', 'volume_24h_usd',
] as const;

export function dexHints(details: Json | null) {
  const dex = jsonObjectOrNull(details?.dex_hints);
  if (!dex) return null;
  return Object.fromEntries(DEX_FIELDS.map((f) => [f, dex[f] ?? null])) as Record<(typeof DEX_FIELDS)[number], unknown>;
}

export function riskAnalysis(analysis: AnalysisRow | undefined) {
  if (!analysis) return null;
  return {
    risk_score: analysis.riskScore,
    risk_level: analysis.riskLevel,
    risk_factors: analysis.riskFactors,
    actionable_insights: analysis.actionableInsights,
    alerts: analysis.alerts,
    analyzed_at: analysis.createdAt.toISOString(),
  };
}

export function historyItem(row: HistoryRow) {
  return {
    timestamp: row.bucketAt.toISOString(),
    risk_score: row.riskScore,
    price_usd: numericToNumber(row.priceUsd),
    liquidity_usd: numericToNumber(row.liquidityUsd),
    volume_24h_usd: numericToNumber(row.volume24hUsd),
    market_cap_usd: numericToNumber(row.marketCapUsd),
  };
}

/** The complete token object, with every optional part present; callers drop what was not asked for. */
export function toComplete(row: TokenRow, analysis: AnalysisRow | undefined, creator: CreatorRow | undefined, history: HistoryRow[]) {
  const stored = jsonObjectOrNull(analysis?.details);
  const details: Json = {
    trading_simulation: row.tradingSimulation ?? stored?.trading_simulation,
    security_hints: row.securityHints ?? stored?.security_hints,
    dex_hints: row.dexHints ?? stored?.dex_hints,
  };
  const simulation = tradingSimulation(details);
  const simHoneypot = bool(jsonObjectOrNull(details.trading_simulation)?.is_honeypot);
  return {
    ...toDetail(row),
    is_honeypot: row.isHoneypot ?? simHoneypot ?? (row.currentRiskLevel === null ? null : row.currentRiskLevel === 'honeypot'),
    security_hints: securityHints(row, details, creator),
    trading_simulation: simulation,
    risk_analysis: riskAnalysis(analysis),
    dex_hints: dexHints(details),
    history: history.map(historyItem),
  };
}

export type CompleteToken = ReturnType<typeof toComplete>;

export interface IncludeOptions {
  history: boolean;
  analysis: boolean;
  dex: boolean;
  historyLimit: number;
}

/** Drops the parts that were not asked for (absent, not null: null means "not known yet"). */
export function shapeComplete(token: CompleteToken, include: IncludeOptions): Partial<CompleteToken> {
  const { history, risk_analysis, dex_hints, ...base } = token;
  return {
    ...base,
    ...(include.analysis ? { risk_analysis } : {}),
    ...(include.dex ? { dex_hints } : {}),
    ...(include.history ? { history: history.slice(0, include.historyLimit) } : {}),
  };
}

/** The fields of a PRO list item, any of which `fields=` may select. */
export const PRO_LIST_FIELDS = [
  'contract_address', 'chain_id', 'name', 'symbol', 'current_risk_score', 'current_risk_level', 'current_liquidity_usd',
  'is_actively_traded', 'detected_at', 'decimals', 'total_supply', 'creator', 'creator_is_contract', 'tx_origin',
  'creation_tx_hash', 'creation_block_number', 'creation_block_hash', 'creation_timestamp', 'creation_gas_used',
  'detection_source', 'bytecode_hash', 'code_length', 'proxy_like', 'analysis_stage', 'updated_at',
  'is_honeypot', 'security_hints', 'trading_simulation',
] as const;
