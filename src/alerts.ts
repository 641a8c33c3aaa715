import { z } from 'zod';
import { riskLevelOf } from './analysis/types.ts';
import type { EventMessage } from './events/types.ts';

/**
 * Pure decisions of the alerts consumer (workers/alerts.ts): which events are alerts, their
 * de-duplication key, the alerts derived from successive `token.updated` payloads of one token,
 * who wants which kind, and the email text. No I/O here.
 *
 * Derived alerts (compareSnapshots), and the event fields that trigger them:
 * - `owner_changed`: `security_hints.owner_address` differs from the previous snapshot's and the
 *   new owner is not null (a renounce, owner → null, is not an alert);
 * - `tax_raised`: `trading_simulation.sell_tax_pct` or `trading_simulation.buy_tax_pct` is at
 *   least TAX_RAISE_MIN_POINTS percentage points above the previous snapshot's;
 * - `mint_after_launch`: `total_supply` (a decimal string) is larger than the previous snapshot's;
 * - `risk_level_changed`: `current_risk_level` differs from the previous snapshot's level, or, with
 *   no snapshot yet, from the level of `previous_risk_score` (when that is a number). A change to
 *   `honeypot` is left to the `honeypot` alert the risk stage publishes alongside.
 * A field absent from a payload leaves the snapshot's value unchanged: the DEX stage's updates carry
 * no risk level, the risk stage's no taxes. Nothing is derived from the first snapshot of a token.
 */

export const ALERT_KINDS = ['honeypot', 'liquidity_pull', 'rug', 'owner_changed', 'tax_raised', 'mint_after_launch', 'risk_level_changed'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const DERIVED_ALERT_KINDS = ['owner_changed', 'tax_raised', 'mint_after_launch', 'risk_level_changed'] as const satisfies readonly AlertKind[];

/** A tax must rise by at least this many percentage points: simulation noise is not an alert. */
export const TAX_RAISE_MIN_POINTS = 1;

const KIND_TITLES: Record<AlertKind, string> = {
  honeypot: 'Honeypot detected',
  liquidity_pull: 'Liquidity pulled',
  rug: 'Liquidity pulled (rug)',
  owner_changed: 'Owner changed',
  tax_raised: 'Tax raised',
  mint_after_launch: 'Tokens minted after launch',
  risk_level_changed: 'Risk level changed',
};

export function isAlertKind(value: unknown): value is AlertKind {
  return typeof value === 'string' && (ALERT_KINDS as readonly string[]).includes(value);
}

/** An alert about one token, before it is fanned out to the users who watch it. */
export interface TokenAlert {
  kind: AlertKind;
  /** Stable across re-deliveries of the same event: (user_id, key) is unique in alert_deliveries. */
  key: string;
  chainId: number;
  address: string;
  message: string;
  streamId: string;
}

/** The fields of a token that the derived alerts compare. */
export interface TokenSnapshot {
  risk_level?: string;
  owner_address?: string | null;
  buy_tax_pct?: number;
  sell_tax_pct?: number;
  total_supply?: string;
}

export interface DerivedAlert {
  kind: (typeof DERIVED_ALERT_KINDS)[number];
  message: string;
  /** The changed values, for the published `alert` event. */
  detail: Record<string, unknown>;
}

const obj = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const DECIMAL = /^\d{1,78}$/;

/** The snapshot fields present in one token.updated payload. */
export function snapshotOf(data: Record<string, unknown>): TokenSnapshot {
  const snapshot: TokenSnapshot = {};
  if (typeof data.current_risk_level === 'string') snapshot.risk_level = data.current_risk_level;
  const hints = obj(data.security_hints);
  if (hints && 'owner_address' in hints && (hints.owner_address === null || typeof hints.owner_address === 'string')) {
    snapshot.owner_address = hints.owner_address === null ? null : hints.owner_address.toLowerCase();
  }
  const sim = obj(data.trading_simulation);
  const buy = finite(sim?.buy_tax_pct);
  const sell = finite(sim?.sell_tax_pct);
  if (buy !== undefined) snapshot.buy_tax_pct = buy;
  if (sell !== undefined) snapshot.sell_tax_pct = sell;
  if (typeof data.total_supply === 'string' && DECIMAL.test(data.total_supply)) snapshot.total_supply = data.total_supply;
  return snapshot;
}

/**
 * Compares a token.updated payload with the token's previous snapshot: the derived alerts and the
 * next snapshot (the previous one overlaid with the fields present now).
 */
export function compareSnapshots(previous: TokenSnapshot | undefined, data: Record<string, unknown>): { alerts: DerivedAlert[]; next: TokenSnapshot } {
  const current = snapshotOf(data);
  const next: TokenSnapshot = { ...previous, ...current };
  const alerts: DerivedAlert[] = [];

  const previousScore = finite(data.previous_risk_score);
  const before = previous?.risk_level ?? (previousScore !== undefined ? riskLevelOf(previousScore) : undefined);
  if (current.risk_level !== undefined && before !== undefined && current.risk_level !== before && current.risk_level !== 'honeypot') {
    alerts.push({ kind: 'risk_level_changed', message: `risk level changed from ${before} to ${current.risk_level}`, detail: { previous_risk_level: before, current_risk_level: current.risk_level } });
  }
  if (!previous) return { alerts, next };

  if (current.owner_address !== undefined && previous.owner_address !== undefined && current.owner_address !== null && current.owner_address !== previous.owner_address) {
    alerts.push({ kind: 'owner_changed', message: `owner changed from ${previous.owner_address ?? 'none'} to ${current.owner_address}`, detail: { previous_owner: previous.owner_address, owner_address: current.owner_address } });
  }
  const raised = (['sell', 'buy'] as const).filter((side) => {
    const now = current[`${side}_tax_pct`];
    const then = previous[`${side}_tax_pct`];
    return now !== undefined && then !== undefined && now - then >= TAX_RAISE_MIN_POINTS;
  });
  if (raised.length > 0) {
    const parts = raised.map((side) => `${side} tax ${previous[`${side}_tax_pct`]}% → ${current[`${side}_tax_pct`]}%`);
    alerts.push({
      kind: 'tax_raised',
      message: `tax raised: ${parts.join(', ')}`,
      detail: Object.fromEntries(raised.flatMap((side) => [[`previous_${side}_tax_pct`, previous[`${side}_tax_pct`]], [`${side}_tax_pct`, current[`${side}_tax_pct`]]])),
    });
  }
  if (current.total_supply !== undefined && previous.total_supply !== undefined && BigInt(current.total_supply) > BigInt(previous.total_supply)) {
    alerts.push({ kind: 'mint_after_launch', message: `total supply rose from ${previous.total_supply} to ${current.total_supply}`, detail: { previous_total_supply: previous.total_supply, total_supply: current.total_supply } });
  }
  return { alerts, next };
}

/** The key of an alert derived from the token.updated entry `streamId`: re-processing it yields the same key. */
export function derivedAlertKey(kind: AlertKind, chainId: number, address: string, streamId: string): string {
  return `${kind}:${chainId}:${address}:${streamId}`;
}

/**
 * The alert an `alert` event carries, or undefined for other events and unknown kinds. Keys:
 * the event's own `alert_key` (derived alerts); a token becomes a honeypot once; a liquidity alert
 * is one per DEX bucket; otherwise stream id + kind.
 */
export function alertOf(event: EventMessage): TokenAlert | undefined {
  if (event.type !== 'alert') return undefined;
  const data = event.data as Record<string, unknown>;
  const kind = data.kind;
  const chainId = data.chain_id;
  const address = data.contract_address;
  if (!isAlertKind(kind) || typeof chainId !== 'number' || typeof address !== 'string') return undefined;
  let key: string;
  if (typeof data.alert_key === 'string' && data.alert_key.length > 0) key = data.alert_key;
  else if (kind === 'honeypot') key = `honeypot:${chainId}:${address}`;
  else if ((kind === 'liquidity_pull' || kind === 'rug') && typeof data.bucket_at === 'string') key = `${kind}:${chainId}:${address}:${data.bucket_at}`;
  else key = `${event.id}:${kind}`;
  const message = typeof data.message === 'string' && data.message.length > 0 ? data.message : KIND_TITLES[kind];
  return { kind, key, chainId, address, message, streamId: event.id };
}

/** users.preferences as the alerts read it: `alert_kinds` absent means every kind. */
export const alertPreferencesSchema = z.object({ alert_kinds: z.array(z.enum(ALERT_KINDS)).optional() });

export function alertKindsOf(preferences: unknown): AlertKind[] {
  const parsed = alertPreferencesSchema.safeParse(preferences ?? {});
  return parsed.success && parsed.data.alert_kinds ? parsed.data.alert_kinds : [...ALERT_KINDS];
}

export function wantsAlert(preferences: unknown, kind: AlertKind): boolean {
  return alertKindsOf(preferences).includes(kind);
}

export function alertEmail(alert: TokenAlert, to: string, from: string): { from: string; to: string; subject: string; text: string } {
  const title = KIND_TITLES[alert.kind];
  return {
    from,
    to,
    subject: `[token-monitor] ${title}: ${alert.address} (chain ${alert.chainId})`,
    text: [
      `${title} on a token you watch.`,
      '',
      `Token: ${alert.address}`,
      `Chain: ${alert.chainId}`,
      `Alert: ${alert.kind}`,
      `Details: ${alert.message}`,
      '',
      'You receive this because email alerts are on in your preferences (PUT /api/preferences).',
    ].join('\n'),
  };
}
