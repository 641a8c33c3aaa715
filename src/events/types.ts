import {
  type HolderSellsView,
  type HoldersView,
  holderSellsView,
  holdersView,
  type ImpersonatesView,
  impersonatesView,
} from '../tokens/holders-view.ts';
import type {
  DexHintsView,
  FullTokenData,
  SecurityHintsCore,
  StoredToken,
  TradingSimulationView,
} from '../tokens/view.ts';
import {
  dexHintsView,
  fullTokenData,
  isHoneypotOf,
  lastUpdatedOf,
  securityHintsCore,
  toNumber,
  tradingSimulationView,
} from '../tokens/view.ts';

/**
 * Events (docs/websocket.md): appended by workers to a Redis stream, fanned out by every API
 * instance to its WebSocket clients, read by the alerts consumer. A strict discriminated union on
 * `type`; the payloads use the names of the HTTP token object, so one client model serves both.
 */

export interface TokenCreatedData {
  contract_address: string;
  chain_id: number;
  full_token_data: FullTokenData;
  detection_source: string;
  detected_at: string;
}

/** What a `token.updated` payload compares against: the token's figures before this change. */
export interface PreviousFigures {
  current_risk_score: number | null;
  current_risk_level: string | null;
  current_liquidity_usd: number | null;
  price_usd: number | null;
}

export const UPDATE_SOURCES = ['risk', 'dex'] as const;
export type UpdateSource = (typeof UPDATE_SOURCES)[number];

/**
 * One shape whichever stage saw the change: the token's current state after it. `source` says
 * which stage measured it: the risk stage's figures (score, level, hints, simulation) are fresh
 * in a `risk` update, the DEX figures (price, liquidity, dex_hints) in a `dex` update; the others
 * are the stored values at that moment.
 */
export interface TokenUpdatedData {
  contract_address: string;
  chain_id: number;
  source: UpdateSource;
  /** What moved: risk, taxes (risk stage); price, liquidity, risk (DEX stage). */
  changes: string[];
  full_token_data: FullTokenData;
  current_risk_level: string | null;
  current_risk_score: number | null;
  is_honeypot: boolean | null;
  current_liquidity_usd: number | null;
  is_actively_traded: boolean;
  price_usd: number | null;
  market_cap_usd: number | null;
  volume_24h_usd: number | null;
  security_hints: SecurityHintsCore;
  trading_simulation: TradingSimulationView;
  dex_hints: DexHintsView;
  holders: HoldersView['holders'];
  lp_holders: HoldersView['lp_holders'];
  holder_sells: HolderSellsView;
  impersonates: ImpersonatesView;
  previous: PreviousFigures;
  last_updated: string;
}

export interface TokenRemovedData {
  contract_address: string;
  chain_id: number;
  reason: string;
}

/** An alert, named as the complete object's `analyses[].alerts` are: `type` and `message`. */
export interface AlertData {
  contract_address: string;
  chain_id: number;
  /** The alert kind (src/alerts.ts ALERT_KINDS). */
  type: string;
  message: string;
  /** De-duplication key of derived alerts; null for the others. */
  alert_key: string | null;
  /** The DEX bucket a liquidity alert belongs to; null for the others. */
  bucket_at: string | null;
  /** The figures behind the alert (previous and new values, reasons). */
  details: Record<string, string | number | boolean | null>;
}

export type ServiceEvent =
  | { type: 'token.created'; data: TokenCreatedData }
  | { type: 'token.updated'; data: TokenUpdatedData }
  | { type: 'token.removed'; data: TokenRemovedData }
  | { type: 'alert'; data: AlertData };

export type EventType = ServiceEvent['type'];

/** The message a WebSocket client receives: the event with its stream id and time. */
export type EventMessage = ServiceEvent & { id: string; ts: string };

export const EVENT_TYPES: readonly EventType[] = [
  'token.created',
  'token.updated',
  'alert',
  'token.removed',
];

export function chainIdOf(event: Pick<EventMessage, 'data'>): number {
  return event.data.chain_id;
}

export function tokenCreatedData(
  t: StoredToken & { detectionSource: string; detectedAt: Date },
): TokenCreatedData {
  return {
    contract_address: t.address,
    chain_id: t.chainId,
    full_token_data: fullTokenData(t),
    detection_source: t.detectionSource,
    detected_at: t.detectedAt.toISOString(),
  };
}

/** The token's state after a change, from its row with the stage's new values laid over it. */
export function tokenUpdatedData(
  t: StoredToken & { marketCapUsd: string | null; volume24hUsd: string | null },
  update: { source: UpdateSource; changes: string[]; previous: PreviousFigures },
): TokenUpdatedData {
  return {
    contract_address: t.address,
    chain_id: t.chainId,
    source: update.source,
    changes: update.changes,
    full_token_data: fullTokenData(t),
    current_risk_level: t.currentRiskLevel,
    current_risk_score: t.currentRiskScore,
    is_honeypot: isHoneypotOf(t),
    current_liquidity_usd: toNumber(t.currentLiquidityUsd),
    is_actively_traded: t.isActivelyTraded,
    price_usd: toNumber(t.priceUsd),
    market_cap_usd: toNumber(t.marketCapUsd),
    volume_24h_usd: toNumber(t.volume24hUsd),
    security_hints: securityHintsCore(t),
    trading_simulation: tradingSimulationView(t.tradingSimulation),
    dex_hints: dexHintsView(t.dexHints),
    ...holdersView(t.holders),
    holder_sells: holderSellsView(t.tradingSimulation),
    impersonates: impersonatesView(t.securityHints),
    previous: update.previous,
    last_updated: lastUpdatedOf(t),
  };
}
