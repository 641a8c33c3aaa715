import { z } from 'zod';
import { type AccessControl, FUNCTION_RISKS, PROOF_STATUSES } from '../analysis/types.ts';
import { isoOrNull } from '../time.ts';
import { holderSellsView, holdersView, impersonatesView } from './holders-view.ts';
import { monitoringRecommendations } from './monitoring.ts';
import { dataQualityScore, type QualityInput } from './quality.ts';
import {
  type AdminFunctionView,
  adminFunctionView,
  dexHintsView,
  fullTokenData,
  isHoneypotOf,
  lastUpdatedOf,
  qualityInputOf,
  type StoredToken,
  securityHintsCore,
  toNumber,
  tradingSimulationView,
} from './view.ts';

/**
 * Token representations of docs/api.md: the general list item and detail view, and the complete
 * token object of the PRO operations, for the API and for `token-monitor analyze` (the records come
 * from Postgres through db/repositories/complete.ts). Pure: rows in, answers out.
 * Addresses are lower-case in every answer; a value not known yet is null, never a missing key.
 */

/** What the general list item reads of a token row: the list selects only these. */
export type ListSource = Pick<
  StoredToken,
  | 'address'
  | 'chainId'
  | 'name'
  | 'symbol'
  | 'currentRiskScore'
  | 'currentRiskLevel'
  | 'currentLiquidityUsd'
  | 'isActivelyTraded'
> & { detectedAt: Date };

/** What the detail view and the complete object read of a token row (db/schema.ts `tokens`). */
export interface TokenRecord extends StoredToken {
  detectedAt: Date;
  txOrigin: string | null;
  creationBlockHash: string | null;
  detectionSource: string | null;
  marketCapUsd: string | null;
  initialLiquidityUsd: string | null;
  volume24hUsd: string | null;
  stage: string;
}

/** One scored analysis as stored (db/schema.ts `analyses`). */
export interface AnalysisRecord {
  createdAt: Date;
  riskFactors: unknown;
  actionableInsights: unknown;
  alerts: unknown;
  riskScore: number | null;
  riskLevel: string | null;
}

/** One history snapshot as stored (db/schema.ts `token_history`). */
export interface HistoryRecord {
  bucketAt: Date;
  riskScore: number | null;
  priceUsd: string | null;
  liquidityUsd: string | null;
  volume24hUsd: string | null;
  marketCapUsd: string | null;
}

export const RISK_FIELDS = ['current_risk_score', 'current_risk_level'] as const;
/** Snapshots kept in an assembled object: the most the single-token detail shows. */
export const DETAIL_HISTORY_LIMIT = 100;
/** Scored analyses in the complete object, newest first. */
export const ANALYSES_LIMIT = 10;

export function toListItem(row: ListSource) {
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

/** How much of the holder parts a general detail shows: FREE none, BASIC the summary, PRO all. */
export type HoldersDepth = 'none' | 'summary' | 'all';

const withoutList = <T extends { top_holders: unknown }>({ top_holders: _list, ...rest }: T) =>
  rest;

/**
 * The holder parts of the general detail (docs/api.md): BASIC sees the shares without the
 * holder list, and the sells' counts and taxes; PRO sees the complete object's parts; FREE none.
 */
export function detailHolders(
  row: Pick<TokenRecord, 'holders' | 'tradingSimulation' | 'securityHints'>,
  depth: HoldersDepth,
) {
  if (depth === 'none')
    return { holders: null, lp_holders: null, holder_sells: null, impersonates: null };
  const { holders, lp_holders } = holdersView(row.holders);
  const sells = holderSellsView(row.tradingSimulation);
  const impersonates = impersonatesView(row.securityHints);
  if (depth === 'all') return { holders, lp_holders, holder_sells: sells, impersonates };
  return {
    holders: holders && withoutList(holders),
    lp_holders: null,
    holder_sells: sells && {
      tried: sells.tried,
      failed: sells.failed,
      average_tax_pct: sells.average_tax_pct,
      max_tax_pct: sells.max_tax_pct,
      block: sells.block,
    },
    impersonates,
  };
}

export function toDetail(row: TokenRecord, depth: HoldersDepth = 'summary') {
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
    ...detailHolders(row, depth),
  };
}

/** FREE callers see tokens with the risk fields null: the keys stay, the values are not theirs. */
export function withoutRisk<T extends Record<string, unknown>>(item: T): T {
  return { ...item, current_risk_score: null, current_risk_level: null };
}

/** Analyses stored before findings were proven by execution carry no proof. */
const NO_PROOF = {
  status: 'unconfirmed' as const,
  detail: 'analysed before findings were proven by execution',
};
const storedProof = z.object({
  status: z.enum(PROOF_STATUSES),
  detail: z.string(),
  before: z.record(z.string(), z.string()).optional(),
  after: z.record(z.string(), z.string()).optional(),
});
const storedFactor = z.object({
  code: z.string(),
  points: z.number(),
  severity: z.string(),
  message: z.string(),
  evidence: z
    .array(z.object({ kind: z.string(), detail: z.string(), selector: z.string().optional() }))
    .catch([]),
  proof: storedProof.catch(NO_PROOF),
});
const storedFactors = z.array(storedFactor).catch([]);
const storedStrings = z.array(z.string()).catch([]);

/** One scored analysis: risk factors as short sentences, their structured evidence beside them. */
export function analysisView(row: AnalysisRecord) {
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

export function historyItem(row: HistoryRecord) {
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
  row: TokenRecord;
  analyses: AnalysisRecord[];
  adminFunctions: unknown;
  /** The creator's reputation row, when the creator is known. */
  creator: { reputationScore: number | null } | undefined;
  history: HistoryRecord[];
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
    ...holdersView(row.holders),
    holder_sells: holderSellsView(row.tradingSimulation),
    impersonates: impersonatesView(row.securityHints),
  };
}

export type CompleteToken = ReturnType<typeof toComplete>;

/** What the token cache holds: the object and the facts its time-dependent score is computed from. */
export interface CompleteRecord {
  token: CompleteToken;
  quality: QualityInput;
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
  'holders',
  'lp_holders',
  'holder_sells',
  'impersonates',
] as const satisfies readonly (keyof CompleteToken)[];
