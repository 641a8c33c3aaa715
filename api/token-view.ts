import { z } from 'zod';
import {
  type AnalysisRow,
  type CreatorRow,
  type HistoryRow,
  type TokenKey,
  type TokenListRow,
  type TokenRepository,
  type TokenRow,
  tokenKey,
} from '../db/repositories/tokens.ts';
import { type AccessControl, FUNCTION_RISKS } from '../src/analysis/types.ts';
import { isoOrNull } from '../src/time.ts';
import { monitoringRecommendations } from '../src/tokens/monitoring.ts';
import { dataQualityScore, type QualityInput } from '../src/tokens/quality.ts';
import {
  type AdminFunctionView,
  adminFunctionView,
  dexHintsView,
  fullTokenData,
  isHoneypotOf,
  lastUpdatedOf,
  qualityInputOf,
  securityHintsCore,
  toNumber,
  tradingSimulationView,
} from '../src/tokens/view.ts';

/**
 * Token representations of docs/api.md: the general list item and detail view, and the complete
 * token object of the PRO operations, assembled here for the API and for `token-monitor analyze`.
 * Addresses are lower-case in every answer; a value not known yet is null, never a missing key.
 */

export const RISK_FIELDS = ['current_risk_score', 'current_risk_level'] as const;
/** Snapshots kept in an assembled object: the most the single-token detail shows. */
export const DETAIL_HISTORY_LIMIT = 100;
/** Scored analyses in the complete object, newest first. */
export const ANALYSES_LIMIT = 10;

export function toListItem(row: TokenListRow) {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    current_risk_score: row.currentRiskScore,
    current_risk_level: row.currentRiskLevel,
    current_liquidity_usd: toNumber(row.currentLiquidityUsd),
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
    price_usd: toNumber(row.priceUsd),
    market_cap_usd: toNumber(row.marketCapUsd),
    initial_liquidity_usd: toNumber(row.initialLiquidityUsd),
    volume_24h_usd: toNumber(row.volume24hUsd),
    analysis_stage: row.stage,
    last_updated: lastUpdatedOf(row),
  };
}

/** FREE callers see tokens with the risk fields null: the keys stay, the values are not theirs. */
export function withoutRisk<T extends Record<string, unknown>>(item: T): T {
  return { ...item, current_risk_score: null, current_risk_level: null };
}

const storedFactor = z.object({
  code: z.string(),
  points: z.number(),
  severity: z.string(),
  message: z.string(),
  evidence: z
    .array(z.object({ kind: z.string(), detail: z.string(), selector: z.string().optional() }))
    .catch([]),
});
const storedFactors = z.array(storedFactor).catch([]);
const storedStrings = z.array(z.string()).catch([]);

/** One scored analysis: risk factors as short sentences, their structured evidence beside them. */
export function analysisView(row: AnalysisRow) {
  const factors = storedFactors.parse(row.riskFactors);
  // An alert is a factor's message: its code is the alert's type.
  const alerts = storedStrings.parse(row.alerts).map((message) => ({
    type: factors.find((f) => f.message === message)?.code ?? 'risk',
    message,
  }));
  return {
    timestamp: row.createdAt.toISOString(),
    risk_factors: factors.map((f) => f.message),
    actionable_insights: storedStrings.parse(row.actionableInsights),
    alerts,
    risk_score: row.riskScore,
    risk_level: row.riskLevel,
    risk_factor_details: factors,
  };
}

export function historyItem(row: HistoryRow) {
  return {
    timestamp: row.bucketAt.toISOString(),
    risk_score: row.riskScore,
    price_usd: toNumber(row.priceUsd),
    liquidity_usd: toNumber(row.liquidityUsd),
    volume_24h_usd: toNumber(row.volume24hUsd),
    market_cap_usd: toNumber(row.marketCapUsd),
  };
}

const storedAdmin = z
  .array(
    z.object({
      name: z.string(),
      selector: z.string(),
      access_control: z.string().transform((a) => a as AccessControl),
      risk_level: z.enum(FUNCTION_RISKS),
      description: z.string(),
    }),
  )
  .catch([]);

export interface CompleteParts {
  row: TokenRow;
  analyses: AnalysisRow[];
  adminFunctions: unknown;
  creator: CreatorRow | undefined;
  history: HistoryRow[];
}

/** The complete token object with every optional part present; `shapeComplete` drops what was not asked for. */
export function toComplete(parts: CompleteParts, nowMs: number) {
  const { row } = parts;
  const core = securityHintsCore(row, parts.creator?.reputationScore ?? null);
  const admin: AdminFunctionView[] = storedAdmin
    .parse(parts.adminFunctions ?? [])
    .map(adminFunctionView);
  const simulation = tradingSimulationView(row.tradingSimulation);
  const dex = dexHintsView(row.dexHints);
  const isHoneypot = isHoneypotOf(row);
  const liquidity = toNumber(row.currentLiquidityUsd);
  const lock = core.liquidity_lock;
  const secured =
    lock && (lock.locked_pct !== null || lock.burned_pct !== null)
      ? (lock.locked_pct ?? 0) + (lock.burned_pct ?? 0)
      : null;
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    full_token_data: fullTokenData(row),
    security_hints: { ...core, admin_functions: admin },
    current_risk_level: row.currentRiskLevel,
    current_risk_score: row.currentRiskScore,
    current_liquidity_usd: liquidity,
    is_actively_traded: row.isActivelyTraded,
    dex_hints: dex,
    monitoring_recommendations: monitoringRecommendations({
      ...core,
      is_honeypot: isHoneypot,
      buy_tax_pct: simulation?.buy_tax_pct ?? null,
      sell_tax_pct: simulation?.sell_tax_pct ?? null,
      price_usd: dex?.token_price_usd ?? toNumber(row.priceUsd),
      liquidity_usd: liquidity,
      liquidity_secured_pct: secured,
    }),
    data_quality_score: dataQualityScore(qualityInputOf(row), nowMs),
    analyses: parts.analyses.map(analysisView),
    token_history: parts.history.map(historyItem),
    last_updated: lastUpdatedOf(row),
    trading_simulation: simulation,
    is_honeypot: isHoneypot,
  };
}

export type CompleteToken = ReturnType<typeof toComplete>;

/** What the token cache holds: the object and the facts its time-dependent score is computed from. */
export interface CompleteRecord {
  token: CompleteToken;
  quality: QualityInput;
}

/** Complete records (history up to DETAIL_HISTORY_LIMIT) of the tokens that exist, straight from Postgres. */
export async function assembleComplete(
  tokens: TokenRepository,
  keys: readonly TokenKey[],
  nowMs = Date.now(),
): Promise<CompleteRecord[]> {
  // Three reads in one parallel step (an unknown key finds no analyses and no history): the rows
  // with their creators (joined), the analyses with the admin functions, the history.
  const [rows, { recent, admin }, histories] = await Promise.all([
    tokens.rowsWithCreators(keys),
    tokens.analysesOf(keys, ANALYSES_LIMIT),
    tokens.histories(keys, DETAIL_HISTORY_LIMIT),
  ]);
  return rows.map(({ row, creator }) => {
    const key = tokenKey({ chainId: row.chainId, address: row.address });
    const token = toComplete(
      {
        row,
        analyses: recent.get(key) ?? [],
        adminFunctions: admin.get(key),
        creator: creator ?? undefined,
        history: histories.get(key) ?? [],
      },
      nowMs,
    );
    return { token, quality: qualityInputOf(row) };
  });
}

export interface IncludeOptions {
  history: boolean;
  analyses: boolean;
  adminFunctions: boolean;
  historyLimit: number;
}

export const INCLUDE_ALL: IncludeOptions = {
  history: true,
  analyses: true,
  adminFunctions: true,
  historyLimit: DETAIL_HISTORY_LIMIT,
};

/**
 * The answer for one set of include flags: a part not asked for is left out (absent, not null:
 * null means "not known yet"). The quality score is computed for `nowMs`, as freshness ages.
 */
export type ShapedComplete = Omit<CompleteToken, 'analyses' | 'token_history' | 'security_hints'> &
  Partial<Pick<CompleteToken, 'analyses' | 'token_history'>> & {
    security_hints: Omit<CompleteToken['security_hints'], 'admin_functions'> &
      Partial<Pick<CompleteToken['security_hints'], 'admin_functions'>>;
  };

export function shapeComplete(
  record: CompleteRecord,
  include: IncludeOptions,
  nowMs: number,
): ShapedComplete {
  const { admin_functions, ...hints } = record.token.security_hints;
  // Spread first, so that the keys keep the contract's order (docs/api.md).
  const shaped: ShapedComplete = {
    ...record.token,
    security_hints: include.adminFunctions ? { ...hints, admin_functions } : hints,
    data_quality_score: dataQualityScore(record.quality, nowMs),
    token_history: record.token.token_history.slice(0, include.historyLimit),
  };
  if (!include.analyses) delete shaped.analyses;
  if (!include.history) delete shaped.token_history;
  return shaped;
}

/** Every top-level field of the complete object: what the PRO list's `fields` may select. */
export const COMPLETE_FIELDS = [
  'contract_address',
  'chain_id',
  'full_token_data',
  'security_hints',
  'current_risk_level',
  'current_risk_score',
  'current_liquidity_usd',
  'is_actively_traded',
  'dex_hints',
  'monitoring_recommendations',
  'data_quality_score',
  'analyses',
  'token_history',
  'last_updated',
  'trading_simulation',
  'is_honeypot',
] as const satisfies readonly (keyof CompleteToken)[];
