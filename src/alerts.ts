import { z } from 'zod';
import { riskLevelOf } from './analysis/types.ts';
import type { EventMessage, TokenUpdatedData } from './events/types.ts';

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
 * - `mint_after_launch`: `full_token_data.token.total_supply` is larger than the previous snapshot's;
 * - `risk_level_changed`: `current_risk_level` differs from the previous snapshot's level, or, with
 *   no snapshot yet, from the level of `previous.current_risk_score` (when that is a number). A change to
 *   `honeypot` is left to the `honeypot` alert the risk stage publishes alongside.
 * Only what the update's stage measured moves the snapshot (see snapshotOf). Nothing is derived from
 * the first snapshot of a token.
 */

export const ALERT_KINDS = [
  'honeypot',
  'liquidity_pull',
  'rug',
  'owner_changed',
  'tax_raised',
  'mint_after_launch',
  'risk_level_changed',
  'holder_concentration',
  'impersonation',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const DERIVED_ALERT_KINDS = [
  'owner_changed',
  'tax_raised',
  'mint_after_launch',
  'risk_level_changed',
] as const satisfies readonly AlertKind[];

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
  holder_concentration: 'Supply concentrated in few wallets',
  impersonation: 'Look-alike of a well-known token',
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
  /** The changed values, for the published `alert` event's details. */
  detail: Record<string, string | number | null>;
}

const DECIMAL = /^\d{1,78}$/;

/**
 * The snapshot fields one token.updated payload measured: a `risk` update measured the risk
 * level, the owner and the taxes; every update carries the total supply. Fields another stage
 * measured are left to that stage's updates (an update published before a concurrent write could
 * carry a stale copy of them).
 */
export function snapshotOf(data: TokenUpdatedData): TokenSnapshot {
  const snapshot: TokenSnapshot = {};
  if (data.source === 'risk') {
    if (data.current_risk_level !== null) snapshot.risk_level = data.current_risk_level;
    const owner = data.security_hints.owner_address;
    snapshot.owner_address = owner === null ? null : owner.toLowerCase();
    const sim = data.trading_simulation;
    if (sim?.buy_tax_pct !== null && sim?.buy_tax_pct !== undefined)
      snapshot.buy_tax_pct = sim.buy_tax_pct;
    if (sim?.sell_tax_pct !== null && sim?.sell_tax_pct !== undefined)
      snapshot.sell_tax_pct = sim.sell_tax_pct;
  }
  const supply = data.full_token_data.token.total_supply;
  if (supply !== null && DECIMAL.test(supply)) snapshot.total_supply = supply;
  return snapshot;
}

/**
 * Compares a token.updated payload with the token's previous snapshot: the derived alerts and the
 * next snapshot (the previous one overlaid with the fields present now).
 */
export function compareSnapshots(
  previous: TokenSnapshot | undefined,
  data: TokenUpdatedData,
): { alerts: DerivedAlert[]; next: TokenSnapshot } {
  const current = snapshotOf(data);
  const next: TokenSnapshot = { ...previous, ...current };
  const alerts: DerivedAlert[] = [];

  const previousScore = data.source === 'risk' ? data.previous.current_risk_score : null;
  const before =
    previous?.risk_level ?? (previousScore !== null ? riskLevelOf(previousScore) : undefined);
  if (
    current.risk_level !== undefined &&
    before !== undefined &&
    current.risk_level !== before &&
    current.risk_level !== 'honeypot'
  ) {
    alerts.push({
      kind: 'risk_level_changed',
      message: `risk level changed from ${before} to ${current.risk_level}`,
      detail: { previous_risk_level: before, current_risk_level: current.risk_level },
    });
  }
  if (!previous) return { alerts, next };

  if (
    current.owner_address !== undefined &&
    previous.owner_address !== undefined &&
    current.owner_address !== null &&
    current.owner_address !== previous.owner_address
  ) {
    alerts.push({
      kind: 'owner_changed',
      message: `owner changed from ${previous.owner_address ?? 'none'} to ${current.owner_address}`,
      detail: { previous_owner: previous.owner_address, owner_address: current.owner_address },
    });
  }
  const raised = (['sell', 'buy'] as const).filter((side) => {
    const now = current[`${side}_tax_pct`];
    const then = previous[`${side}_tax_pct`];
    return now !== undefined && then !== undefined && now - then >= TAX_RAISE_MIN_POINTS;
  });
  if (raised.length > 0) {
    const parts = raised.map(
      (side) => `${side} tax ${previous[`${side}_tax_pct`]}% → ${current[`${side}_tax_pct`]}%`,
    );
    alerts.push({
      kind: 'tax_raised',
      message: `tax raised: ${parts.join(', ')}`,
      detail: Object.fromEntries(
        raised.flatMap((side) => [
          [`previous_${side}_tax_pct`, previous[`${side}_tax_pct`] ?? null],
          [`${side}_tax_pct`, current[`${side}_tax_pct`] ?? null],
        ]),
      ),
    });
  }
  if (
    current.total_supply !== undefined &&
    previous.total_supply !== undefined &&
    BigInt(current.total_supply) > BigInt(previous.total_supply)
  ) {
    alerts.push({
      kind: 'mint_after_launch',
      message: `total supply rose from ${previous.total_supply} to ${current.total_supply}`,
      detail: { previous_total_supply: previous.total_supply, total_supply: current.total_supply },
    });
  }
  return { alerts, next };
}

/** The key of an alert derived from the token.updated entry `streamId`: re-processing it yields the same key. */
export function derivedAlertKey(
  kind: AlertKind,
  chainId: number,
  address: string,
  streamId: string,
): string {
  return `${kind}:${chainId}:${address}:${streamId}`;
}

/**
 * The alert an `alert` event carries, or undefined for other events and unknown kinds. Keys:
 * the event's own `alert_key` (derived alerts); a token becomes a honeypot once; a liquidity alert
 * is one per DEX bucket; otherwise stream id + kind.
 */
export function alertOf(event: EventMessage): TokenAlert | undefined {
  if (event.type !== 'alert') return undefined;
  const {
    type: kind,
    chain_id: chainId,
    contract_address: address,
    alert_key: alertKey,
    bucket_at: bucketAt,
    message,
  } = event.data;
  if (!isAlertKind(kind)) return undefined;
  let key: string;
  if (alertKey) key = alertKey;
  else if (kind === 'honeypot') key = `honeypot:${chainId}:${address}`;
  else if ((kind === 'liquidity_pull' || kind === 'rug') && bucketAt)
    key = `${kind}:${chainId}:${address}:${bucketAt}`;
  else key = `${event.id}:${kind}`;
  return {
    kind,
    key,
    chainId,
    address,
    message: message.length > 0 ? message : KIND_TITLES[kind],
    streamId: event.id,
  };
}

/** users.preferences as the alerts read it: `alert_kinds` absent means every kind. */
export const alertPreferencesSchema = z.object({
  alert_kinds: z.array(z.enum(ALERT_KINDS)).optional(),
});

export function alertKindsOf(preferences: unknown): AlertKind[] {
  const parsed = alertPreferencesSchema.safeParse(preferences ?? {});
  return parsed.success && parsed.data.alert_kinds ? parsed.data.alert_kinds : [...ALERT_KINDS];
}

export function wantsAlert(preferences: unknown, kind: AlertKind): boolean {
  return alertKindsOf(preferences).includes(kind);
}

export function alertEmail(
  alert: TokenAlert,
  to: string,
  from: string,
): { from: string; to: string; subject: string; text: string } {
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
