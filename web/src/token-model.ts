import {
  adminFunctionAccess_controlValues,
  type components,
  findingProofStatusValues,
  type operations,
  riskLevelValues,
} from './api-types.ts';

/**
 * The token object as the web app reads it (docs/web.md): the documented field names
 * (full_token_data, security_hints with admin_functions, analyses[] with risk_factor_details,
 * token_history, monitoring_recommendations, data_quality_score, last_updated,
 * trading_simulation, is_honeypot, liquidity_lock). Every field may be null or missing: a stage
 * that has not run yet leaves it empty, and the page says so instead of breaking.
 * `normalizeToken` also reads the older names (history, risk_analysis, structured risk_factors).
 *
 * The shapes come from the API's generated types (api-types.ts, from its OpenAPI document): a
 * field or a word the server renames or drops fails this file's type check, not a page at run
 * time. `Tolerant` widens them to what a reader of partial answers holds.
 */

type Schemas = components['schemas'];
/** T's fields present and possibly null (those named in Kept stay as declared). */
type Tolerant<T, Kept extends keyof T = never> = {
  [K in keyof T]-?: K extends Kept ? T[K] : Exclude<T[K], undefined> | null;
};

/** A token's risk level: RISK_LEVELS on the server (src/analysis/types.ts), through the document. */
export type RiskLevel = Schemas['RiskLevel'];
export const RISK_LEVELS: readonly RiskLevel[] = riskLevelValues;
export type AccessControl = Schemas['AdminFunction']['access_control'];

/** `value` when it is one of `words`, else null: an unknown word reads as unknown, not as a lie. */
export const oneOf = <T extends string>(words: readonly T[], value: unknown): T | null =>
  words.includes(value as T) ? (value as T) : null;

/**
 * A row of the feed, the token list, a creator's tokens: the list item (risk fields BASIC+). A
 * row built from live events may not know yet whether the token trades, nor when it was seen,
 * and carries the honeypot verdict the events give.
 */
export type TokenListItem = Tolerant<
  Schemas['TokenListItem'],
  Exclude<keyof Schemas['TokenListItem'], 'is_actively_traded' | 'detected_at'>
> & { is_honeypot?: boolean | null };

export type TokenPage = operations['getApiTokens']['responses'][200]['content']['application/json'];

type ListQuery = NonNullable<operations['getApiTokens']['parameters']['query']>;
/** Names the query's parameters (a name the API drops fails the type check). */
type QueryNames<K extends keyof ListQuery> = K;
/** The filters that are numbers in the app (the query carries them as text). */
type NumericFilter = QueryNames<
  'chain_id' | 'page' | 'limit' | 'min_risk_score' | 'max_risk_score' | 'min_liquidity_usd'
>;
/**
 * The list's filters under the query's own names and words (risk levels, sort keys); booleans
 * and numbers as the app holds them, written as text by `request`.
 */
export type TokenFilters = {
  [K in keyof ListQuery]?: ListQuery[K] extends 'true' | 'false' | undefined
    ? boolean
    : K extends NumericFilter
      ? number
      : ListQuery[K];
};

export type AdminFunction = Tolerant<Schemas['AdminFunction']>;

type Factor = Schemas['Analysis']['risk_factor_details'][number];
export type Evidence = Tolerant<Factor['evidence'][number], 'detail'>;

/** Whether an execution showed the finding (proven, observed) or not, with the numbers read. */
export type FindingProof = Schemas['FindingProof'];

/** One scored fact behind the risk score: what it is, how many points, and what was observed. */
export type RiskFactorDetail = Tolerant<Omit<Factor, 'evidence' | 'proof'>, 'code' | 'message'> & {
  evidence: Evidence[];
  /** null in analyses made before proofs existed. */
  proof: FindingProof | null;
};

export type Analysis = Tolerant<
  Pick<Schemas['Analysis'], 'timestamp' | 'risk_factors' | 'actionable_insights' | 'alerts'>,
  'risk_factors' | 'actionable_insights' | 'alerts'
> & { risk_factor_details: RiskFactorDetail[] };

export type HistoryPoint = Schemas['HistorySnapshot'];
export type TradingSimulation = Schemas['TradingSimulation'];
/** The simulated Uniswap V4 pool's hook (trading_simulation.hook). */
export type PoolHook = NonNullable<TradingSimulation['hook']>;
/** A pool the token trades in (dex_hints.trading_pairs[]); V4 pools carry their id and hook. */
export type TradingPair = Pick<
  Schemas['DexHints']['trading_pairs'][number],
  'dex' | 'pair_address' | 'pool_id' | 'hook_address' | 'liquidity_usd'
>;

type Lock = NonNullable<Schemas['SecurityHints']['liquidity_lock']>;
export type LiquidityLock = Tolerant<Omit<Lock, 'lockers'>> & { lockers: unknown[] };

export type SecurityHints = Tolerant<
  Pick<
    Schemas['SecurityHints'],
    | 'ownership_renounced'
    | 'has_mint_function'
    | 'has_blacklist_function'
    | 'has_pause_function'
    | 'is_proxy'
    | 'fee_modifiable'
    | 'has_max_tx_limit'
    | 'trading_restricted'
    | 'owner_can_change_balance'
    | 'hidden_owner'
    | 'owner_address'
    | 'creator_reputation_score'
  >
> & { admin_functions: AdminFunction[] };

export type DexHints = Tolerant<
  Pick<
    Schemas['DexHints'],
    | 'is_tradable'
    | 'has_liquidity'
    | 'total_liquidity_usd'
    | 'token_price_usd'
    | 'buy_url'
    | 'num_trading_pairs'
    | 'main_trading_pair'
    | 'recommended_dex'
    | 'volume_24h_usd'
    | 'has_v4_liquidity'
  >
> & { trading_pairs: TradingPair[] };

/** The token page's object: the detail view, read under the contract's names. */
export type TokenDetail = Tolerant<
  Pick<
    Schemas['TokenDetail'],
    | 'contract_address'
    | 'chain_id'
    | 'name'
    | 'symbol'
    | 'decimals'
    | 'total_supply'
    | 'creator'
    | 'creation_tx_hash'
    | 'creation_block_number'
    | 'detected_at'
    | 'current_risk_score'
    | 'current_risk_level'
    | 'current_liquidity_usd'
    | 'price_usd'
    | 'last_updated'
  >,
  'contract_address' | 'chain_id'
> &
  Tolerant<Pick<Schemas['CompleteToken'], 'is_honeypot' | 'data_quality_score'>> & {
    /** false: the caller's plan does not show risk (FREE); the page explains rather than shows "unknown". */
    risk_visible: boolean;
    security_hints: SecurityHints | null;
    trading_simulation: TradingSimulation | null;
    liquidity_lock: LiquidityLock | null;
    dex_hints: DexHints | null;
    analyses: Analysis[];
    /** null: not part of the caller's plan (history is PRO's); []: none yet. */
    token_history: HistoryPoint[] | null;
    monitoring_recommendations: Schemas['CompleteToken']['monitoring_recommendations'] | null;
    /** Who holds it (null: not measured yet, or not the caller's plan). */
    holders: Holders | null;
    lp_holders: LpHolders[];
    holder_sells: HolderSells | null;
    impersonates: { symbol: string; canonical_address: string } | null;
  };

export interface HolderRow {
  address: string;
  balance: string;
  percent: number;
  is_contract: boolean | null;
  tag: string | null;
}

export interface Holders {
  holder_count: number;
  top_holders: HolderRow[];
  creator_percent: number | null;
  owner_percent: number | null;
  contract_percent: number | null;
  burned_percent: number | null;
  pools_percent: number | null;
  top10_outside_pools_percent: number | null;
  complete: boolean;
}

export interface LpHolders {
  pair_address: string;
  dex: string | null;
  locked_percent: number;
  burned_percent: number;
  creator_percent: number;
  other_percent: number;
}

export interface HolderSells {
  tried: number;
  failed: number;
  average_tax_pct: number | null;
  max_tax_pct: number | null;
  failures: { address: string; reason: string }[];
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

const asFigures = (v: unknown): Record<string, string> | undefined => {
  const r = asRecord(v);
  if (!r) return undefined;
  return Object.fromEntries(
    Object.entries(r).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
};

function proofOf(raw: unknown): FindingProof | null {
  const p = asRecord(raw);
  const status = oneOf(findingProofStatusValues, p?.status);
  if (!p || !status) return null;
  return {
    status,
    detail: asString(p.detail) ?? '',
    before: asFigures(p.before),
    after: asFigures(p.after),
  };
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
      proof: proofOf(f.proof),
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
        access_control: oneOf(adminFunctionAccess_controlValues, f.access_control),
        risk_level: asNumber(f.risk_level),
        description: asString(f.description),
      })),
  };
}

function normalizeHolderRow(raw: unknown): HolderRow | null {
  const r = asRecord(raw);
  const address = asString(r?.address);
  if (!r || !address) return null;
  return {
    address,
    balance: asString(r.balance) ?? '',
    percent: asNumber(r.percent) ?? 0,
    is_contract: asBoolean(r.is_contract),
    tag: asString(r.tag),
  };
}

function normalizeHolders(raw: unknown): Holders | null {
  const h = asRecord(raw);
  const count = asNumber(h?.holder_count);
  if (!h || count === null) return null;
  return {
    holder_count: count,
    top_holders: asArray(h.top_holders)
      .map(normalizeHolderRow)
      .filter((x): x is HolderRow => x !== null),
    creator_percent: asNumber(h.creator_percent),
    owner_percent: asNumber(h.owner_percent),
    contract_percent: asNumber(h.contract_percent),
    burned_percent: asNumber(h.burned_percent),
    pools_percent: asNumber(h.pools_percent),
    top10_outside_pools_percent: asNumber(h.top10_outside_pools_percent),
    complete: asBoolean(h.complete) ?? false,
  };
}

function normalizeLpHolders(raw: unknown): LpHolders[] {
  return asArray(raw)
    .map(asRecord)
    .filter((x): x is Json => x !== null && typeof x.pair_address === 'string')
    .map((l) => ({
      pair_address: l.pair_address as string,
      dex: asString(l.dex),
      locked_percent: asNumber(l.locked_percent) ?? 0,
      burned_percent: asNumber(l.burned_percent) ?? 0,
      creator_percent: asNumber(l.creator_percent) ?? 0,
      other_percent: asNumber(l.other_percent) ?? 0,
    }));
}

function normalizeSells(raw: unknown): HolderSells | null {
  const s = asRecord(raw);
  const tried = asNumber(s?.tried);
  if (!s || tried === null) return null;
  return {
    tried,
    failed: asNumber(s.failed) ?? 0,
    average_tax_pct: asNumber(s.average_tax_pct),
    max_tax_pct: asNumber(s.max_tax_pct),
    failures: asArray(s.failures)
      .map(asRecord)
      .filter((x): x is Json => x !== null && typeof x.address === 'string')
      .map((f) => ({ address: f.address as string, reason: asString(f.reason) ?? '' })),
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
    current_risk_level: oneOf(RISK_LEVELS, t.current_risk_level),
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
          trading_pairs: normalizePairs(dex.trading_pairs),
          has_v4_liquidity: asBoolean(dex.has_v4_liquidity),
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
    holders: normalizeHolders(t.holders),
    lp_holders: normalizeLpHolders(t.lp_holders),
    holder_sells: normalizeSells(t.holder_sells),
    impersonates: (() => {
      const i = asRecord(t.impersonates);
      const symbol = asString(i?.symbol);
      const canonical = asString(i?.canonical_address);
      return symbol && canonical ? { symbol, canonical_address: canonical } : null;
    })(),
  };
}
