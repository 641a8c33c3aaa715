/**
 * `monitoring_recommendations` of the complete token object: what a holder should watch, derived
 * from the security flags and the DEX state, and at which price and liquidity to be alerted.
 * Pure: the same token facts always give the same advice (docs/api.md).
 */

/** Alert when the price falls this fraction below the current one… */
export const PRICE_DROP_ALERT = 0.2;
/** …or rises this fraction above it (a pump often precedes a dump). */
export const PRICE_RISE_ALERT = 0.5;
/** Alert when the liquidity falls this fraction below the current level (the service's own pull alert is at 50 %). */
export const LIQUIDITY_DROP_ALERT = 0.3;
/** Below this share of locked or burned liquidity, the liquidity can be pulled at will. */
export const LOCKED_SHARE_SAFE_PCT = 80;
/** A tax at or above this percentage deserves a watch on its changes. */
export const HIGH_TAX_PCT = 10;

export interface MonitoringInput {
  is_honeypot: boolean | null;
  has_mint_function: boolean | null;
  has_pause_function: boolean | null;
  has_blacklist_function: boolean | null;
  is_proxy: boolean | null;
  ownership_renounced: boolean | null;
  hidden_owner: boolean | null;
  fee_modifiable: boolean | null;
  has_max_tx_limit: boolean | null;
  trading_restricted: boolean | null;
  owner_can_change_balance: boolean | null;
  owner_address: string | null;
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
  price_usd: number | null;
  liquidity_usd: number | null;
  /** Locked plus burned share of the liquidity, in percent; null when not measured. */
  liquidity_secured_pct: number | null;
}

export interface MonitoringRecommendations {
  risk_monitoring: string[];
  price_alerts: string[];
}

/** A USD amount with precision that matches its size: $0.000001234, $1.23, $12,345. */
export function formatUsd(value: number): string {
  if (value === 0) return '$0';
  if (Math.abs(value) >= 1000) return `$${Math.round(value).toLocaleString('en-US')}`;
  if (Math.abs(value) >= 1) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(4)}`;
}

function riskMonitoring(t: MonitoringInput): string[] {
  const watch: string[] = [];
  const owner = t.owner_address ? ` (${t.owner_address})` : '';
  if (t.is_honeypot)
    watch.push('Honeypot: bought tokens cannot be sold; do not buy, and warn holders');
  if (t.trading_restricted)
    watch.push(
      'Trading can be switched off or is not open: watch the owner enabling or disabling trading',
    );
  if (t.has_mint_function)
    watch.push(
      `Mint function: watch total supply and Transfer events from the zero address${owner}`,
    );
  if (t.owner_can_change_balance)
    watch.push('An admin can change balances: watch balance changes of your own wallet');
  if (t.has_blacklist_function)
    watch.push('Blacklist function: watch blacklist transactions that could freeze your wallet');
  if (t.has_pause_function)
    watch.push('Pause function: watch Paused events, which stop all transfers');
  if (t.fee_modifiable) {
    const taxes = [t.buy_tax_pct, t.sell_tax_pct].every((x) => x !== null)
      ? ` (now buy ${t.buy_tax_pct}%, sell ${t.sell_tax_pct}%)`
      : '';
    watch.push(`Modifiable tax: watch fee changes by the owner${taxes}`);
  } else if ((t.sell_tax_pct ?? 0) >= HIGH_TAX_PCT || (t.buy_tax_pct ?? 0) >= HIGH_TAX_PCT) {
    watch.push(
      `High tax (buy ${t.buy_tax_pct ?? '?'}%, sell ${t.sell_tax_pct ?? '?'}%): account for it on every trade`,
    );
  }
  if (t.has_max_tx_limit)
    watch.push('Transaction or wallet limit: large sells may revert; watch limit changes');
  if (t.is_proxy)
    watch.push(
      'Upgradeable proxy: watch Upgraded events, the rules can change with a new implementation',
    );
  if (t.hidden_owner)
    watch.push(
      'Hidden owner: privileges survive behind an address owner() does not show; watch its transactions',
    );
  else if (t.ownership_renounced === false && t.owner_address)
    watch.push(
      `Owned contract: watch transactions from the owner ${t.owner_address} and ownership transfers`,
    );
  if (
    t.liquidity_usd !== null &&
    t.liquidity_usd > 0 &&
    t.liquidity_secured_pct !== null &&
    t.liquidity_secured_pct < LOCKED_SHARE_SAFE_PCT
  ) {
    watch.push(
      `Only ${t.liquidity_secured_pct}% of the liquidity is locked or burned: watch liquidity removals`,
    );
  }
  if (t.liquidity_usd === null || t.liquidity_usd === 0)
    watch.push('No liquidity yet: watch for the first pool, then re-check the simulation');
  return watch;
}

function priceAlerts(t: MonitoringInput): string[] {
  const alerts: string[] = [];
  if (t.price_usd !== null && t.price_usd > 0) {
    const pct = (f: number) => `${Math.round(f * 100)}%`;
    alerts.push(
      `Price below ${formatUsd(t.price_usd * (1 - PRICE_DROP_ALERT))} (${pct(PRICE_DROP_ALERT)} under ${formatUsd(t.price_usd)})`,
    );
    alerts.push(
      `Price above ${formatUsd(t.price_usd * (1 + PRICE_RISE_ALERT))} (${pct(PRICE_RISE_ALERT)} over ${formatUsd(t.price_usd)})`,
    );
  }
  if (t.liquidity_usd !== null && t.liquidity_usd > 0) {
    const level = t.liquidity_usd * (1 - LIQUIDITY_DROP_ALERT);
    alerts.push(
      `Liquidity below ${formatUsd(level)} (${Math.round(LIQUIDITY_DROP_ALERT * 100)}% under ${formatUsd(t.liquidity_usd)})`,
    );
  }
  return alerts;
}

export function monitoringRecommendations(input: MonitoringInput): MonitoringRecommendations {
  return { risk_monitoring: riskMonitoring(input), price_alerts: priceAlerts(input) };
}
