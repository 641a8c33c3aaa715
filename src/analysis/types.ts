/**
 * The analysis contract shared by the selectors → simulate → risk stages (docs/risk-model.md).
 * Every boolean flag the API shows is backed by evidence: which function, which observation.
 * Addresses are lower-case 0x hex; selectors are 8 lower-case hex characters without 0x.
 */

export type AccessControl = 'owner-only' | 'role' | 'none' | 'unknown';
/**
 * An admin function's risk, in the catalog's words (`critical` is one of them, not a token level);
 * the API gives it as an integer (src/tokens/view.ts ADMIN_RISK_LEVELS).
 */
export const FUNCTION_RISKS = ['low', 'medium', 'high', 'critical'] as const;
export type FunctionRisk = (typeof FUNCTION_RISKS)[number];

export type AdminFamily =
  | 'mint'
  | 'burn-from'
  | 'blacklist'
  | 'whitelist'
  | 'pause'
  | 'fee'
  | 'fee-siphon'
  | 'max-tx'
  | 'trading-switch'
  | 'fee-exclusion'
  | 'router-pair'
  | 'withdraw'
  | 'upgrade'
  | 'ownership-transfer'
  | 'renounce'
  | 'balance-change'
  | 'other';

/** One entry of the curated catalog of admin and risky functions. */
export interface CatalogEntry {
  name: string;
  /** Canonical signature, e.g. "mint(address,uint256)". */
  signature: string;
  /** keccak256(signature)[0..4] as 8 hex characters, no 0x. */
  selector: string;
  family: AdminFamily;
  risk_level: FunctionRisk;
  description: string;
}

/** A function found in the dispatcher (evmole). */
export interface ExtractedFunction {
  selector: string;
  /** evmole's argument types, e.g. "address,uint256" ('' when none or unknown). */
  arguments: string;
  state_mutability: 'pure' | 'view' | 'nonpayable' | 'payable' | 'unknown';
}

export interface Evidence {
  kind:
    | 'function'
    | 'bytecode'
    | 'storage'
    | 'simulation'
    | 'call'
    | 'history'
    | 'liquidity'
    | 'creator'
    | 'holders';
  /** Human-readable: "mint(address,uint256) (0x40c10f19) is callable by the owner only". */
  detail: string;
  selector?: string;
}

export interface AdminFunction extends CatalogEntry {
  access_control: AccessControl;
  /** Why this access_control: caller-vs-stored-address comparison in code, a stranger's call reverting, … */
  evidence: Evidence[];
  /** For a power over holders (mint, leak, limit): what running it showed (static/proofs.ts). */
  proof?: Proof;
}

/**
 * Whether a finding was proven by execution (docs/risk-model.md, "Propose, then prove"):
 * `proven`, an eth_call ran the power as its privileged caller and saw its effect (the numbers in
 * `before`/`after`); `unconfirmed`, the power could not be run or ran without its effect (less
 * weight); `observed`, the finding is itself an execution (trade simulation, behaviour probe, a
 * holder's sell); `not-executable`, a fact no call can show (a proxy, a template, holders,
 * liquidity, the creator's history).
 */
export const PROOF_STATUSES = ['proven', 'unconfirmed', 'observed', 'not-executable'] as const;
export type ProofStatus = (typeof PROOF_STATUSES)[number];
export interface Proof {
  status: ProofStatus;
  /** The call, its caller and what it showed, or why nothing could be shown. */
  detail: string;
  /** Numbers read before and after the call (decimal strings or words): total_supply, holder_balance, holder_transfer. */
  before?: Record<string, string>;
  after?: Record<string, string>;
}

export type ProxyKind =
  | 'eip1167'
  | 'eip1967'
  | 'eip1967-beacon'
  | 'eip1822'
  | 'oz-transparent'
  | 'custom-getter';

export interface ProxyInfo {
  is_proxy: boolean;
  kind: ProxyKind | null;
  implementation: string | null;
  /** The admin able to upgrade, when the proxy stores one. */
  admin: string | null;
  evidence: Evidence[];
}

export interface OwnershipInfo {
  owner: string | null;
  /** `default-admin-role`: no owner getter; the holder of AccessControl's DEFAULT_ADMIN_ROLE. */
  owner_source: 'owner()' | 'getOwner()' | 'admin-slot' | 'default-admin-role' | null;
  /**
   * Owner is the zero address or a dead address; or, without an owner getter, every
   * AccessControl role ever granted was given up (roles_renounced).
   */
  renounced: boolean;
  /**
   * AccessControl: every role the token's RoleGranted events name was given up (hasRole answers
   * false for each): role-gated functions are dead. Absent when no grant was logged.
   */
  roles_renounced?: boolean;
  /** A privileged address still held in storage after a renounce (fake renounce), or a hidden admin. */
  hidden_owner: string | null;
  /** Selectors the hidden owner's eth_call succeeded on (risk.ts weighs whether they carry power). */
  hidden_owner_selectors?: string[];
  fake_renounce: boolean;
  evidence: Evidence[];
}

export interface SimulationAmount {
  amount_in_wei: string;
  buy_ok: boolean;
  sell_ok: boolean;
  transfer_ok: boolean;
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
  transfer_tax_pct: number | null;
  gas_buy: number | null;
  gas_sell: number | null;
  gas_transfer: number | null;
  error: string | null;
}

/** `trading_simulation` (docs/api.md), plus the per-amount detail behind it. */
export interface TradingSimulation {
  is_buyable: boolean | null;
  is_sellable: boolean | null;
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
  transfer_tax_pct: number | null;
  /** The largest amount (token units, decimal string) that could be bought, when a limit was hit. */
  max_tx_amount: string | null;
  simulated_at: string;
  /** Why the simulation could not run (no liquidity, no router, …), or null. */
  error: string | null;
  is_honeypot: boolean;
  amounts: SimulationAmount[];
}

/**
 * A token's risk level (`current_risk_level`, the `risk_level` filter): the score's band
 * (riskLevelOf), declared once here; the API's schemas, the OpenAPI document and the web app's
 * generated types (web/src/api-types.ts) all come from this list.
 */
export const RISK_LEVELS = ['low', 'medium', 'high', 'honeypot'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export interface RiskFactor {
  code: string;
  /** Points added to the score (may be negative for reassuring facts). */
  points: number;
  severity: 'info' | 'low' | 'medium' | 'high' | 'critical';
  message: string;
  evidence: Evidence[];
  /** Whether the finding was proven by execution, with the numbers (always set by assessRisk). */
  proof?: Proof;
}

export interface RiskAssessment {
  score: number;
  level: RiskLevel;
  risk_factors: RiskFactor[];
  actionable_insights: string[];
  alerts: string[];
}

/**
 * A state-changing function outside the catalog that only privileged callers can use: a candidate
 * disguised admin function (its name says nothing), for behaviour probes to tell what it does.
 */
export interface PrivilegedFunction extends ExtractedFunction {
  access_control: AccessControl;
  evidence: Evidence[];
}

/** What the selectors stage stores (analyses.details.static) for the later stages. */
export interface StaticAnalysis {
  functions: ExtractedFunction[];
  admin_functions: AdminFunction[];
  /** Uncatalogued functions gated on the caller (owner-only or role), e.g. a mint named distributeRewards. */
  privileged_functions?: PrivilegedFunction[];
  proxy: ProxyInfo;
  ownership: OwnershipInfo;
  /** keccak of the code with metadata and PUSH constants masked: equal for clones of one template. */
  skeleton_hash: string;
  template: string | null;
  /**
   * An external gate (capabilities/blockers.ts): a privileged function can swap the contract
   * whose answer decides transfers (GoPlus's `external_call`). Absent when none was found.
   */
  external_call?: { detail: string } | null;
}

/** security_hints (docs/api.md) flags, derived from the analysis; each true flag has evidence in risk_factors. */
export interface SecurityHints {
  is_proxy: boolean;
  is_mintable: boolean;
  can_blacklist: boolean;
  can_pause: boolean;
  fee_modifiable: boolean;
  has_max_tx_limit: boolean;
  trading_restricted: boolean;
  owner_can_change_balance: boolean;
  hidden_owner: boolean;
  ownership_renounced: boolean;
  owner_address: string | null;
  creator_reputation_score: number | null;
  liquidity_lock: {
    locked_pct: number | null;
    burned_pct: number | null;
    lockers: string[];
  } | null;
  /** Code facts (the risk stage sets them from the selectors stage's code_facts; null: code not read). */
  selfdestruct?: boolean | null;
  external_call?: boolean | null;
}

export function riskLevelOf(score: number): RiskLevel {
  if (score <= 30) return 'low';
  if (score <= 60) return 'medium';
  if (score <= 90) return 'high';
  return 'honeypot';
}

/** Real holders' sells as stored in trading_simulation.holder_sells (src/analysis/simulation/holder-sells.ts). */
export interface HolderSells {
  tried: number;
  failed: number;
  average_tax_pct: number | null;
  max_tax_pct: number | null;
  block: number | null;
  /** How many holders the balances had when this ran: a change makes the sells due again. */
  holder_count: number;
  failures: { address: string; reason: string }[];
  siphoned: { address: string; tracked_balance: string; balance: string }[];
  simulated_at: string;
}
