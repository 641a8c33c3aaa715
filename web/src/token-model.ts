/**
 * The token object as the web app reads it (docs/web.md): the documented field names
 * (full_token_data, security_hints with admin_functions, analyses[] with risk_factor_details,
 * token_history, monitoring_recommendations, data_quality_score, last_updated,
 * trading_simulation, is_honeypot, liquidity_lock). Every field may be null or missing: a stage
 * that has not run yet leaves it empty, and the page says so instead of breaking.
 * `normalizeToken` also reads the older names (history, risk_analysis, structured risk_factors).
 */

export type RiskLevel = 'low' | 'medium' | 'high' | 'critical' | 'honeypot';

/** A row of the feed, the token list, a creator's tokens: the list item (risk fields BASIC+). */
export interface TokenListItem {
  contract_address: string;
  chain_id: number;
  name: string | null;
  symbol: string | null;
  current_risk_score?: number | null;
  current_risk_level?: RiskLevel | null;
  current_liquidity_usd: number | null;
  is_actively_traded: boolean | null;
  detected_at: string | null;
  is_honeypot?: boolean | null;
}

export interface TokenPage {
  items: TokenListItem[];
  total: number;
  page: number;
  limit: number;
}

export interface TokenFilters {
  page?: number;
  limit?: number;
  chain_id?: number;
  risk_level?: string;
  is_honeypot?: boolean;
  min_liquidity_usd?: number;
  q?: string;
  sort?: string;
}

export interface AdminFunction {
  name: string | null;
  selector: string | null;
  access_control: string | null;
  risk_level: number | null;
  description: string | null;
}

export interface Evidence {
  kind: string | null;
  detail: string;
  selector: string | null;
}

/** One scored fact behind the risk score: what it is, how many points, and what was observed. */
export interface RiskFactorDetail {
  code: string;
  points: number | null;
  severity: string | null;
  message: string;
  evidence: Evidence[];
}

export interface Analysis {
  timestamp: string | null;
  risk_factors: string[];
  actionable_insights: string[];
  alerts: { type: string; message: string }[];
  risk_factor_details: RiskFactorDetail[];
}

export interface HistoryPoint {
  timestamp: string;
  risk_score: number | null;
  price_usd: number | null;
  liquidity_usd: number | null;
  volume_24h_usd: number | null;
  market_cap_usd: number | null;
}

/** The simulated Uniswap V4 pool's hook (trading_simulation.hook). */
export interface PoolHook {
  address: string;
  pool_id: string;
  flags: string;
  permissions: string[];
  problems: string[];
  /** The owner can change it (upgradeable, or owner-set state read in its swap callbacks); null: not analysed. */
  can_change_swaps: boolean | null;
  /** What it did in the simulated trades. */
  findings: string[];
}

export interface TradingSimulation {
  is_buyable: boolean | null;
  is_sellable: boolean | null;
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
  transfer_tax_pct: number | null;
  max_tx_amount: string | null;
  simulated_at: string | null;
  error: string | null;
  hook: PoolHook | null;
}

/** A pool the token trades in (dex_hints.trading_pairs[]); V4 pools carry their id and hook. */
export interface TradingPair {
  dex: string;
  pair_address: string;
  pool_id: string | null;
  hook_address: string | null;
  liquidity_usd: number | null;
}

export interface LiquidityLock {
  locked_pct: number | null;
  burned_pct: number | null;
  lockers: unknown[];
}

export interface SecurityHints {
  ownership_renounced: boolean | null;
  has_mint_function: boolean | null;
  has_blacklist_function: boolean | null;
  has_pause_function: boolean | null;
  is_proxy: boolean | null;
  fee_modifiable: boolean | null;
  has_max_tx_limit: boolean | null;
  trading_restricted: boolean | null;
  owner_can_change_balance: boolean | null;
  hidden_owner: boolean | null;
  owner_address: string | null;
  creator_reputation_score: number | null;
  admin_functions: AdminFunction[];
}

export interface DexHints {
  is_tradable: boolean | null;
  has_liquidity: boolean | null;
  total_liquidity_usd: number | null;
  token_price_usd: number | null;
  buy_url: string | null;
  num_trading_pairs: number | null;
  main_trading_pair: string | null;
  has_v4_liquidity: boolean | null;
  trading_pairs: TradingPair[];
  recommended_dex: string | null;
  volume_24h_usd: number | null;
}

/** The token page's object: the detail view, read under the contract's names. */
export interface TokenDetail {
  contract_address: string;
  chain_id: number;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
  creator: string | null;
  creation_tx_hash: string | null;
  creation_block_number: number | null;
  detected_at: string | null;
  current_risk_score: number | null;
  current_risk_level: RiskLevel | null;
  /** false: the caller's plan does not show risk (FREE); the page explains rather than shows "unknown". */
  risk_visible: boolean;
  current_liquidity_usd: number | null;
  price_usd: number | null;
  is_honeypot: boolean | null;
  security_hints: SecurityHints | null;
  trading_simulation: TradingSimulation | null;
  liquidity_lock: LiquidityLock | null;
  dex_hints: DexHints | null;
  analyses: Analysis[];
  /** null: not part of the caller's plan (history is PRO's); []: none yet. */
  token_history: HistoryPoint[] | null;
  monitoring_recommendations: { risk_monitoring: string[]; price_alerts: string[] } | null;
  data_quality_score: number | null;
  last_updated: string | null;
}

export type Json = Record<string, unknown>;
// Readers of untyped JSON: each gives the value when it has that type, and null (or []) when not,
// so an answer of an older or newer API shape degrades field by field instead of throwing.
export const asRecord = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const asNumber = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;
const asBoolean = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const asStrings = (v: unknown): string[] =>
  asArray(v).filter((s): s is string => typeof s === 'string');

function normalizeHook(raw: unknown): PoolHook | null {
  const h = asRecord(raw);
  const address = asString(h?.address);
  if (!h || !address) return null;
  return {
    address,
    pool_id: asString(h.pool_id) ?? '',
    flags: asString(h.flags) ?? '',
    permissions: asStrings(h.permissions),
    problems: asStrings(h.problems),
    can_change_swaps: asBoolean(h.can_change_swaps),
    findings: asStrings(h.findings),
  };
}

function normalizePairs(raw: unknown): TradingPair[] {
  return asArray(raw)
    .map(asRecord)
    .filter((p): p is Json => p !== null && typeof p.pair_address === 'string')
    .map((p) => ({
      dex: asString(p.dex) ?? '',
      pair_address: p.pair_address as string,
      pool_id: asString(p.pool_id),
      hook_address: asString(p.hook_address),
      liquidity_usd: asNumber(p.liquidity_usd),
    }));
}

function normalizeAnalysis(raw: unknown): Analysis | null {
  const a = asRecord(raw);
  if (!a) return null;
  // Older answers carried the structured factors in risk_factors itself.
  const structured = asArray(a.risk_factors)
    .map(asRecord)
    .filter((x): x is Json => x !== null);
  const details = (
    Array.isArray(a.risk_factor_details)
      ? asArray(a.risk_factor_details)
          .map(asRecord)
          .filter((x): x is Json => x !== null)
      : structured
  ).map(
    (f): RiskFactorDetail => ({
      code: asString(f.code) ?? '',
      points: asNumber(f.points),
      severity: asString(f.severity),
      message: asString(f.message) ?? asString(f.title) ?? '',
      evidence: asArray(f.evidence)
        .map((e) =>
          typeof e === 'string'
            ? { kind: null, detail: e, selector: null }
            : asRecord(e)
              ? {
                  kind: asString(asRecord(e)!.kind),
                  detail: asString(asRecord(e)!.detail) ?? JSON.stringify(e),
                  selector: asString(asRecord(e)!.selector),
                }
              : null,
        )
        .filter((e): e is Evidence => e !== null),
    }),
  );
  return {
    timestamp: asString(a.timestamp) ?? asString(a.analyzed_at),
    risk_factors: structured.length > 0 ? details.map((d) => d.message) : asStrings(a.risk_factors),
    actionable_insights: asStrings(a.actionable_insights),
    alerts: asArray(a.alerts)
      .map((x) => (typeof x === 'string' ? { type: 'alert', message: x } : asRecord(x)))
      .filter((x): x is Json => x !== null)
      .map((x) => ({
        type: asString(x.type) ?? asString(x.kind) ?? 'alert',
        message: asString(x.message) ?? '',
      })),
    risk_factor_details: details,
  };
}

function normalizeHints(raw: unknown): SecurityHints | null {
  const h = asRecord(raw);
  if (!h) return null;
  return {
    ownership_renounced: asBoolean(h.ownership_renounced),
    has_mint_function: asBoolean(h.has_mint_function ?? h.is_mintable),
    has_blacklist_function: asBoolean(h.has_blacklist_function ?? h.can_blacklist),
    has_pause_function: asBoolean(h.has_pause_function ?? h.can_pause),
    is_proxy: asBoolean(h.is_proxy),
    fee_modifiable: asBoolean(h.fee_modifiable),
    has_max_tx_limit: asBoolean(h.has_max_tx_limit),
    trading_restricted: asBoolean(h.trading_restricted),
    owner_can_change_balance: asBoolean(h.owner_can_change_balance),
    hidden_owner: asBoolean(h.hidden_owner),
    owner_address: asString(h.owner_address),
    creator_reputation_score: asNumber(h.creator_reputation_score),
    admin_functions: asArray(h.admin_functions)
      .map(asRecord)
      .filter((x): x is Json => x !== null)
      .map((f) => ({
        name: asString(f.name),
        selector: asString(f.selector),
        access_control: asString(f.access_control),
        risk_level: asNumber(f.risk_level),
        description: asString(f.description),
      })),
  };
}

function normalizeLock(raw: unknown): LiquidityLock | null {
  const l = asRecord(raw);
  return l
    ? {
        locked_pct: asNumber(l.locked_pct),
        burned_pct: asNumber(l.burned_pct),
        lockers: asArray(l.lockers),
      }
    : null;
}

export function normalizeToken(raw: unknown): TokenDetail {
  const t = asRecord(raw) ?? {};
  const full = asRecord(t.full_token_data);
  const token = asRecord(full?.token);
  const creation = asRecord(full?.creation);
  const hints = asRecord(t.security_hints);
  const sim = asRecord(t.trading_simulation);
  const dex = asRecord(t.dex_hints);
  const analyses = (
    Array.isArray(t.analyses) ? t.analyses : t.risk_analysis ? [t.risk_analysis] : []
  )
    .map(normalizeAnalysis)
    .filter((a): a is Analysis => a !== null);
  const historyRaw = t.token_history ?? t.history;
  const recs = asRecord(t.monitoring_recommendations);
  return {
    contract_address: asString(t.contract_address) ?? '',
    chain_id: asNumber(t.chain_id) ?? 0,
    name: asString(token?.name) ?? asString(t.name),
    symbol: asString(token?.symbol) ?? asString(t.symbol),
    decimals: asNumber(token?.decimals) ?? asNumber(t.decimals),
    total_supply: asString(token?.total_supply) ?? asString(t.total_supply),
    creator: asString(creation?.creator) ?? asString(t.creator),
    creation_tx_hash: asString(creation?.tx_hash) ?? asString(t.creation_tx_hash),
    creation_block_number:
      asNumber(creation?.block_number) ??
      asNumber(full?.born_block) ??
      asNumber(t.creation_block_number),
    detected_at: asString(t.detected_at),
    current_risk_score: asNumber(t.current_risk_score),
    current_risk_level: asString(t.current_risk_level) as RiskLevel | null,
    risk_visible: 'current_risk_score' in t,
    current_liquidity_usd: asNumber(t.current_liquidity_usd),
    price_usd: asNumber(dex?.token_price_usd) ?? asNumber(t.price_usd),
    is_honeypot: asBoolean(t.is_honeypot),
    security_hints: normalizeHints(hints),
    trading_simulation: sim
      ? {
          is_buyable: asBoolean(sim.is_buyable),
          is_sellable: asBoolean(sim.is_sellable),
          buy_tax_pct: asNumber(sim.buy_tax_pct),
          sell_tax_pct: asNumber(sim.sell_tax_pct),
          transfer_tax_pct: asNumber(sim.transfer_tax_pct),
          max_tx_amount: sim.max_tx_amount == null ? null : String(sim.max_tx_amount),
          simulated_at: asString(sim.simulated_at),
          error: asString(sim.error),
          hook: normalizeHook(sim.hook),
        }
      : null,
    liquidity_lock: normalizeLock(t.liquidity_lock ?? hints?.liquidity_lock),
    dex_hints: dex
      ? {
          is_tradable: asBoolean(dex.is_tradable),
          has_liquidity: asBoolean(dex.has_liquidity),
          total_liquidity_usd: asNumber(dex.total_liquidity_usd),
          token_price_usd: asNumber(dex.token_price_usd),
          buy_url: asString(dex.buy_url),
          num_trading_pairs: asNumber(dex.num_trading_pairs),
          main_trading_pair: asString(dex.main_trading_pair),
          has_v4_liquidity: asBoolean(dex.has_v4_liquidity),
          trading_pairs: normalizePairs(dex.trading_pairs),
          recommended_dex: asString(dex.recommended_dex),
          volume_24h_usd: asNumber(dex.volume_24h_usd),
        }
      : null,
    analyses,
    token_history: Array.isArray(historyRaw)
      ? historyRaw
          .map(asRecord)
          .filter((h): h is Json => h !== null && typeof h.timestamp === 'string')
          .map((h) => ({
            timestamp: h.timestamp as string,
            risk_score: asNumber(h.risk_score),
            price_usd: asNumber(h.price_usd),
            liquidity_usd: asNumber(h.liquidity_usd),
            volume_24h_usd: asNumber(h.volume_24h_usd),
            market_cap_usd: asNumber(h.market_cap_usd),
          }))
      : null,
    monitoring_recommendations: recs
      ? {
          risk_monitoring: asStrings(recs.risk_monitoring),
          price_alerts: asStrings(recs.price_alerts),
        }
      : null,
    data_quality_score: asNumber(t.data_quality_score),
    last_updated: asString(t.last_updated) ?? asString(t.updated_at),
  };
}
