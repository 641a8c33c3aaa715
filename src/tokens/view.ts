import { z } from 'zod';
import type { AdminFunction, FunctionRisk, RiskLevel } from '../analysis/types.ts';
import { isoOrNull } from '../time.ts';
import { dataQualityScore, type QualityInput } from './quality.ts';

/**
 * The parts of the token object that HTTP answers and WebSocket events share (docs/api.md,
 * docs/websocket.md): one client model serves both. Built from a token's stored facts (the
 * `tokens` row, structurally), with the stages' jsonb results parsed by schema: a value a stage has
 * not written yet is null, never a missing key.
 */

/** What the views read of a token row (db/schema.ts `tokens`). */
export interface StoredToken {
  chainId: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  creationTxHash: string | null;
  creator: string | null;
  creatorIsContract: boolean | null;
  creationBlockNumber: number | null;
  creationTimestamp: Date | null;
  creationGasUsed: number | null;
  bytecodeHash: string | null;
  codeLength: number | null;
  proxyLike: boolean | null;
  skeletonHash: string | null;
  template: string | null;
  currentRiskScore: number | null;
  currentRiskLevel: RiskLevel | null;
  isHoneypot: boolean | null;
  ownerAddress: string | null;
  tradingSimulation: unknown;
  securityHints: unknown;
  currentLiquidityUsd: string | null;
  isActivelyTraded: boolean;
  priceUsd: string | null;
  dexHints: unknown;
  liquidityLock: unknown;
  refreshTier: string | null;
  dexUpdatedAt: Date | null;
  riskUpdatedAt: Date | null;
  updatedAt: Date;
  /** The holders report (src/holders/report.ts StoredHolders), or null before the first. */
  holders: unknown;
}

/** numeric columns arrive as strings: a JSON number, or null. */
export const toNumber = (value: string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);
const unixSeconds = (date: Date | null) =>
  date === null ? null : Math.floor(date.getTime() / 1000);

const flag = z.boolean().nullable().catch(null);
const maybeNumber = z.number().nullable().catch(null);
const maybeText = z.string().nullable().catch(null);

/** security_hints as the risk stage stores it (src/analysis/types.ts SecurityHints), read leniently. */
const storedHints = z
  .object({
    is_proxy: flag,
    is_mintable: flag,
    can_blacklist: flag,
    can_pause: flag,
    fee_modifiable: flag,
    has_max_tx_limit: flag,
    trading_restricted: flag,
    owner_can_change_balance: flag,
    hidden_owner: flag,
    ownership_renounced: flag,
    owner_address: maybeText,
    creator_reputation_score: maybeNumber,
    explorer: z.object({ verified: flag, configured: flag }).partial().nullable().catch(null),
    selfdestruct: flag,
    external_call: flag,
  })
  .partial();

const storedLock = z.object({
  locked_pct: maybeNumber,
  burned_pct: maybeNumber,
  lockers: z
    .array(
      z.object({
        name: z.string(),
        address: z.string(),
        pair_address: z.string(),
        locked_pct: z.number(),
      }),
    )
    .catch([]),
});

/** A V4 pool's hook as the simulate stage stores it (src/analysis/hooks/report.ts). */
const storedHook = z
  .object({
    address: z.string(),
    pool_id: z.string(),
    flags: z.string(),
    permissions: z.array(z.string()).catch([]),
    problems: z.array(z.string()).catch([]),
    control: z
      .object({
        upgradeable: z.boolean(),
        owner_settings: z.array(z.unknown()).catch([]),
      })
      .nullable()
      .catch(null),
    effects: z
      .object({ findings: z.array(z.string()).catch([]) })
      .nullable()
      .catch(null),
  })
  .nullable()
  .catch(null);

const storedSimulation = z
  .object({
    is_buyable: flag,
    is_sellable: flag,
    buy_tax_pct: maybeNumber,
    sell_tax_pct: maybeNumber,
    transfer_tax_pct: maybeNumber,
    max_tx_amount: z
      .union([z.string(), z.number()])
      .nullable()
      .catch(null)
      .transform((v) => (v === null ? null : String(v))),
    simulated_at: maybeText,
    error: maybeText,
    is_honeypot: flag,
    hook: storedHook,
  })
  .partial();

const tradingPair = z.object({
  dex: z.string(),
  pair_address: z.string(),
  quote_token: z.string(),
  liquidity_usd: z.number().nullable(),
  price_usd: z.number().nullable(),
  // Stored before V4 pools were read: absent, so null.
  pool_id: z.string().nullable().default(null),
  hook_address: z.string().nullable().default(null),
});
const storedDex = z
  .object({
    is_tradable: flag,
    has_liquidity: flag,
    has_v3_liquidity: flag,
    has_v4_liquidity: flag,
    total_liquidity_usd: maybeNumber,
    token_price_usd: maybeNumber,
    buy_url: maybeText,
    num_trading_pairs: maybeNumber,
    main_trading_pair: maybeText,
    trading_pairs: z.array(tradingPair).catch([]),
    recommended_dex: maybeText,
    volume_24h_usd: maybeNumber,
  })
  .partial();

const parsed = <T extends z.ZodType>(schema: T, value: unknown): z.output<T> | null => {
  if (value === null || value === undefined) return null;
  const result = schema.safeParse(value);
  return result.success ? result.data : null;
};

export function fullTokenData(t: StoredToken) {
  return {
    token: { name: t.name, symbol: t.symbol, decimals: t.decimals, total_supply: t.totalSupply },
    block_timestamp: unixSeconds(t.creationTimestamp),
    creation: {
      block_timestamp: unixSeconds(t.creationTimestamp),
      tx_hash: t.creationTxHash,
      creator: t.creator,
      creator_is_contract: t.creatorIsContract,
      block_number: t.creationBlockNumber,
      gas_used: t.creationGasUsed,
      bytecode_hash: t.bytecodeHash,
      code_len: t.codeLength,
      proxy_like: t.proxyLike,
    },
    born_block: t.creationBlockNumber,
  };
}
export type FullTokenData = ReturnType<typeof fullTokenData>;

export function liquidityLockView(value: unknown) {
  const lock = parsed(storedLock, value);
  return lock
    ? { locked_pct: lock.locked_pct, burned_pct: lock.burned_pct, lockers: lock.lockers }
    : null;
}

/** Catalog risk levels as the integer the API gives (docs/api.md): low 1 … critical 4. */
export const ADMIN_RISK_LEVELS = {
  low: 1,
  medium: 2,
  high: 3,
  critical: 4,
} as const satisfies Record<FunctionRisk, number>;

export function adminFunctionView(
  f: Pick<AdminFunction, 'name' | 'selector' | 'access_control' | 'risk_level' | 'description'>,
) {
  return {
    name: f.name,
    selector: f.selector.replace(/^0x/, ''),
    access_control: f.access_control,
    risk_level: ADMIN_RISK_LEVELS[f.risk_level] ?? null,
    description: f.description,
  };
}
export type AdminFunctionView = ReturnType<typeof adminFunctionView>;

/**
 * security_hints without admin_functions (events carry this; the complete object adds the list).
 * `verified_contract` is true only where a configured block explorer reported verified source.
 */
export function securityHintsCore(t: StoredToken, creatorReputation: number | null = null) {
  const h = parsed(storedHints, t.securityHints) ?? {};
  const isProxy = h.is_proxy ?? t.proxyLike;
  return {
    contract_template: t.template,
    security_risk_score: t.currentRiskScore,
    ownership_renounced: h.ownership_renounced ?? null,
    verified_contract: h.explorer?.verified ?? false,
    has_pause_function: h.can_pause ?? null,
    has_blacklist_function: h.can_blacklist ?? null,
    has_mint_function: h.is_mintable ?? null,
    is_proxy: isProxy ?? null,
    fee_modifiable: h.fee_modifiable ?? null,
    has_max_tx_limit: h.has_max_tx_limit ?? null,
    trading_restricted: h.trading_restricted ?? null,
    owner_can_change_balance: h.owner_can_change_balance ?? null,
    hidden_owner: h.hidden_owner ?? null,
    owner_address: h.owner_address ?? t.ownerAddress,
    creator_reputation_score: h.creator_reputation_score ?? creatorReputation,
    // The DEX stage measures the lock on chain; the risk stage's copy is a snapshot of it.
    liquidity_lock: liquidityLockView(t.liquidityLock),
    selfdestruct: h.selfdestruct ?? null,
    external_call: h.external_call ?? null,
    // Null where no block explorer is configured (verified_contract is false there).
    is_open_source: h.explorer?.configured ? (h.explorer.verified ?? null) : null,
  };
}
export type SecurityHintsCore = ReturnType<typeof securityHintsCore>;

export function tradingSimulationView(value: unknown) {
  const sim = parsed(storedSimulation, value);
  if (!sim) return null;
  return {
    is_buyable: sim.is_buyable ?? null,
    is_sellable: sim.is_sellable ?? null,
    buy_tax_pct: sim.buy_tax_pct ?? null,
    sell_tax_pct: sim.sell_tax_pct ?? null,
    transfer_tax_pct: sim.transfer_tax_pct ?? null,
    max_tx_amount: sim.max_tx_amount ?? null,
    simulated_at: sim.simulated_at ?? null,
    error: sim.error ?? null,
    hook: hookView(sim.hook ?? null),
  };
}

/** trading_simulation.hook: the simulated V4 pool's hook, or null (no V4 pool, or no hook). */
function hookView(hook: z.output<typeof storedHook>) {
  if (!hook) return null;
  return {
    address: hook.address,
    pool_id: hook.pool_id,
    flags: hook.flags,
    permissions: hook.permissions,
    problems: hook.problems,
    // hook_can_change_swaps: upgradeable, or owner-set state read in its swap callbacks; null: not analysed.
    can_change_swaps: hook.control
      ? hook.control.upgradeable || hook.control.owner_settings.length > 0
      : null,
    findings: hook.effects?.findings ?? [],
  };
}
export type TradingSimulationView = ReturnType<typeof tradingSimulationView>;

export function dexHintsView(value: unknown) {
  const dex = parsed(storedDex, value);
  if (!dex) return null;
  return {
    is_tradable: dex.is_tradable ?? null,
    has_liquidity: dex.has_liquidity ?? null,
    has_v3_liquidity: dex.has_v3_liquidity ?? null,
    has_v4_liquidity: dex.has_v4_liquidity ?? null,
    total_liquidity_usd: dex.total_liquidity_usd ?? null,
    token_price_usd: dex.token_price_usd ?? null,
    buy_url: dex.buy_url ?? null,
    num_trading_pairs: dex.num_trading_pairs ?? null,
    main_trading_pair: dex.main_trading_pair ?? null,
    trading_pairs: dex.trading_pairs ?? [],
    recommended_dex: dex.recommended_dex ?? null,
    volume_24h_usd: dex.volume_24h_usd ?? null,
  };
}
export type DexHintsView = ReturnType<typeof dexHintsView>;

export function isHoneypotOf(t: StoredToken): boolean | null {
  const simulated = parsed(storedSimulation, t.tradingSimulation)?.is_honeypot ?? null;
  return (
    t.isHoneypot ??
    simulated ??
    (t.currentRiskLevel === null ? null : t.currentRiskLevel === 'honeypot')
  );
}

/** The columns a PRO list summary reads: the list selects only these. */
export type SummarySource = Pick<
  StoredToken,
  | 'chainId'
  | 'address'
  | 'currentRiskScore'
  | 'currentLiquidityUsd'
  | 'creationTxHash'
  | 'creationBlockNumber'
  | 'creationTimestamp'
  | 'skeletonHash'
  | 'tradingSimulation'
  | 'dexUpdatedAt'
  | 'refreshTier'
  | 'updatedAt'
  | 'riskUpdatedAt'
>;

export function qualityInputOf(t: SummarySource): QualityInput {
  const sim = parsed(storedSimulation, t.tradingSimulation);
  return {
    creationTxHash: t.creationTxHash,
    creationBlockNumber: t.creationBlockNumber,
    creationTimestamp: isoOrNull(t.creationTimestamp),
    // The selectors stage writes the skeleton hash with the static analysis.
    codeAnalysed: t.skeletonHash !== null,
    simulated: sim !== null && (sim.error ?? null) === null && sim.simulated_at !== undefined,
    dexUpdatedAt: isoOrNull(t.dexUpdatedAt),
    refreshTier: t.refreshTier,
  };
}

/** The newest write of any stage to the token. */
export function lastUpdatedOf(t: SummarySource): string {
  const times = [t.updatedAt, t.dexUpdatedAt, t.riskUpdatedAt]
    .filter((d): d is Date => d !== null)
    .map((d) => d.getTime());
  return new Date(Math.max(...times)).toISOString();
}

/** The summary token of the PRO list (and the keys every event carries). */
export function tokenSummary(t: SummarySource, nowMs: number) {
  return {
    contract_address: t.address,
    chain_id: t.chainId,
    current_risk_score: t.currentRiskScore,
    current_liquidity_usd: toNumber(t.currentLiquidityUsd),
    data_quality_score: dataQualityScore(qualityInputOf(t), nowMs),
    last_updated: lastUpdatedOf(t),
  };
}
