import type { Logger } from 'pino';
import type { AnalysisRepository } from '../db/repositories/analyses.ts';
import type { TokenRepository, TokenRow } from '../db/repositories/tokens.ts';
import type { EventPublisher } from '../infra/events.ts';
import {
  assessRisk,
  type CodeFacts,
  type CreatorInput,
  deriveHints,
  type HolderRiskFacts,
  isTrusted,
  type LiquidityInput,
  type LookalikeFact,
} from '../src/analysis/risk/index.ts';
import type { BehaviourReport, SimulationReport } from '../src/analysis/simulation/index.ts';
import type { RiskAssessment, SecurityHints, StaticAnalysis } from '../src/analysis/types.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import { tokenUpdatedData } from '../src/events/types.ts';
import type { StoredHolders } from '../src/holders/report.ts';
import { holderSellsView } from '../src/tokens/holders-view.ts';
import { findLookalike, type KnownToken } from '../src/tokens/lookalike.ts';
import { toNumber } from '../src/tokens/view.ts';
import { type ChainRuntime, chainOf } from './chain-runtime.ts';
import { holderRoles } from './holders-report.ts';
import type { JobData } from './jobs.ts';
import { createKnownTokens, type KnownTokens } from './known-tokens.ts';
import { flush, newPassState, type PassState, startOf, tokenView } from './pass-state.ts';
import { routeOutcome } from './pipeline.ts';
import type { Producer } from './queues.ts';
import type { Taxes } from './simulate.ts';

/**
 * The risk stage: the pass's static analysis, simulation and behaviour findings, the creator's
 * reputation (their other tokens) and the number of earlier honeypots sharing the skeleton →
 * score, level, factors with evidence, insights, alerts and security hints. It updates the token,
 * recomputes the creator's reputation, and announces changes: `token.updated` when the score is
 * first set or changes, an `alert` "honeypot detected" when the token becomes a honeypot. Events
 * go out before the write, so a crash in between repeats them (at-least-once) rather than losing them.
 */

export const HONEYPOT_ALERT_MESSAGE = 'honeypot detected';
/** Factors that raise the `holder_concentration` alert the first time they score. */
const CONCENTRATION_CODES = new Set(['holders:creator', 'holders:owner', 'holders:concentration']);

export interface RiskDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  analyses: AnalysisRepository;
  events: EventPublisher;
  logger: Logger;
  /** Liquidity level and lock, when the DEX stage knows them. */
  liquidity?: (chainId: number, address: string, row?: TokenRow) => Promise<LiquidityInput | null>;
  /** Hands the pass on to the DEX stage (the last stage: workers/pipeline.ts). */
  producer?: Producer;
  /** Called after the token's row changed: invalidates cached copies (infra/token-cache.ts). */
  onChanged?: (chainId: number, address: string) => Promise<void>;
  /** The token's holders report, rebuilt now from the tracked balances (workers/holders-report.ts). */
  holdersReport?: (chain: ChainRuntime, token: TokenRow) => Promise<StoredHolders | null>;
  /** The chain's well-known tokens for the look-alike check (default: workers/known-tokens.ts). */
  knownTokens?: KnownTokens;
}

/**
 * The risk stage's liquidity input: the level and lock the DEX stage last stored on the token
 * (null until the DEX stage has seen liquidity).
 */
export function createLiquidityInput(tokens: TokenRepository) {
  return async function liquidityOf(
    chainId: number,
    address: string,
    /** The token's row when the caller has just read it (one query fewer). */
    known?: TokenRow,
  ): Promise<LiquidityInput | null> {
    const row = known ?? (await tokens.get(chainId, address));
    if (!row || row.currentLiquidityUsd === null) return null;
    const lock = (row.liquidityLock ?? {}) as {
      locked_pct?: number | null;
      burned_pct?: number | null;
      lockers?: { name?: string }[];
    };
    return {
      usd: Number(row.currentLiquidityUsd),
      locked_pct: lock.locked_pct ?? null,
      burned_pct: lock.burned_pct ?? null,
      lockers: (lock.lockers ?? []).map((l) => l.name ?? 'locker'),
    };
  };
}

export interface PassDetails {
  static?: StaticAnalysis;
  /** The selectors stage's explorer answer: null when the explorer did not answer. */
  explorer?: { verified: boolean | null };
  simulation?: SimulationReport;
  behaviour?: BehaviourReport | null;
  /** The taxes of the token's simulation before this pass (workers/simulate.ts). */
  previous_taxes?: Taxes | null;
  /** Reachable SELFDESTRUCT and an owner-set external call (the selectors stage). */
  code_facts?: CodeFacts;
}

/**
 * Everything the score is made from, for one pass: the parts the job's earlier stages hand on
 * (or, as a job of its own, the pass's row), the token as read when the job started with those
 * parts applied, and the two counts in one round trip.
 */
async function riskInputs(deps: RiskDeps, data: JobData<'risk'>, state: PassState) {
  const key = { chainId: data.chainId, address: data.address, run: data.run };
  const start = await startOf(deps.analyses, key, state);
  const token = tokenView(state);
  const details = { ...start.own, ...state.pending.details } as PassDetails;
  const analysis = details.static ?? null;
  const chain = chainOf(deps.chains, data.chainId);
  // Independent reads, in parallel: the job waits for the slowest, not for their sum.
  const [counts, liquidity, report, known] = await Promise.all([
    deps.analyses.riskCounts(key, token?.creator ?? null, analysis?.skeleton_hash ?? null),
    deps.liquidity?.(data.chainId, data.address, token) ?? null,
    token && deps.holdersReport ? deps.holdersReport(chain, token) : null,
    knownTokensOf(deps, chain),
  ]);
  const creator: CreatorInput | null = counts.creator;
  const similarHoneypots = counts.similarHoneypots;
  return { key, details, analysis, token, creator, similarHoneypots, liquidity, report, known };
}

/** The well-known tokens of the chain; the configured list alone when the on-chain read fails. */
async function knownTokensOf(deps: RiskDeps, chain: ChainRuntime) {
  try {
    return await (deps.knownTokens ?? defaultKnownTokens)(chain.config, chain.rpc);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message }, 'known tokens: symbols not read');
    return chain.config.knownTokens ?? [];
  }
}
const defaultKnownTokens = createKnownTokens();

/** What the holder factors read: the report, the roles' addresses, the real holders' sells. */
function holderFactsOf(
  config: ChainConfig,
  token: ScoredToken,
  report: StoredHolders | null,
  simulation: SimulationReport | undefined,
): HolderRiskFacts {
  const roles = holderRoles(config, token, []);
  const sells = holderSellsView(simulation ?? token.tradingSimulation);
  return {
    holders: report ? { ...report.holders, creator: roles.creator, owner: roles.owner } : null,
    lp: report?.lp_holders ?? [],
    sells,
  };
}

type Inputs = Awaited<ReturnType<typeof riskInputs>>;

/** The token's stored fields the score reads (its names, creation, owner, last simulation, hints). */
export type ScoredToken = Pick<
  TokenRow,
  | 'chainId'
  | 'address'
  | 'name'
  | 'symbol'
  | 'creator'
  | 'creatorIsContract'
  | 'txOrigin'
  | 'ownerAddress'
  | 'tradingSimulation'
  | 'securityHints'
  | 'creationBlockNumber'
>;

/** What the score is made from once it is read: the pass's parts and the stored facts. */
export interface ScoreInput {
  config: ChainConfig;
  address: string;
  details: PassDetails;
  token: ScoredToken | undefined;
  creator: CreatorInput | null;
  similarHoneypots: number;
  liquidity: LiquidityInput | null;
  /** The holders report rebuilt for this pass (null: none). */
  report: StoredHolders | null;
  /** The chain's well-known tokens, for the look-alike check. */
  known: readonly KnownToken[];
}

/**
 * The stage's scoring without the database: the look-alike check, the holder facts, the score and
 * the security hints. The in-process benchmark baseline runs this same function.
 */
export function scorePass(input: ScoreInput) {
  const { config, details, token, creator, liquidity } = input;
  const analysis = details.static ?? null;
  const look = token ? findLookalike(token, input.known) : null;
  const lookalike: LookalikeFact | null = look && {
    ...look,
    name: token?.name ?? null,
    own_symbol: token?.symbol ?? null,
  };
  const behaviour = details.behaviour?.findings ?? [];
  const assessment = assessRisk({
    trusted: isTrusted(config, input.address),
    static: analysis,
    behaviour,
    simulation: details.simulation ?? null,
    liquidity,
    creator,
    similarHoneypots: input.similarHoneypots,
    holderFacts: token ? holderFactsOf(config, token, input.report, details.simulation) : null,
    lookalike,
    codeFacts: details.code_facts ?? null,
  });
  // The explorer's answer rides on the stored hints (a nested record, not a flag: its evidence is
  // the explorer's reply in details.explorer); a pass without an answer keeps the last one.
  const stored = (token?.securityHints ?? null) as {
    explorer?: { verified?: boolean | null };
  } | null;
  const verified = details.explorer?.verified ?? stored?.explorer?.verified ?? false;
  const hints = {
    ...deriveHints({ assessment, static: analysis, behaviour, creator, liquidity }),
    // is_open_source is the explorer's answer where one is configured (null without one).
    explorer: { verified, configured: Boolean(config.explorerApiUrl) },
    // GoPlus's code facts (their evidence: the code:* factors); null when the code was not read.
    selfdestruct: details.code_facts ? details.code_facts.selfdestruct !== null : null,
    external_call: details.code_facts ? details.code_facts.external_call !== null : null,
    impersonates: lookalike
      ? {
          symbol: lookalike.symbol,
          canonical_address: lookalike.canonical_address,
          matched: lookalike.matched,
        }
      : null,
    // Which once-per-token alerts went out (announceHolderAlerts).
    alerted: {
      holder_concentration: assessment.risk_factors.some(
        (f) => f.points > 0 && CONCENTRATION_CODES.has(f.code),
      ),
    },
  };
  return { assessment, hints, lookalike };
}

/**
 * `token.updated` when the score or level changed, or the taxes moved (a tax change matters to
 * holders even when the score stays put: the "tax raised" alert reads it).
 */
async function announceUpdate(
  deps: RiskDeps,
  inputs: Inputs,
  assessment: RiskAssessment,
  hints: SecurityHints & { explorer: { verified: boolean | null } },
): Promise<boolean> {
  const { token, details } = inputs;
  const changed =
    token !== undefined &&
    (token.currentRiskScore !== assessment.score || token.currentRiskLevel !== assessment.level);
  // The simulation before this pass (the simulate stage recorded its taxes before it replaced
  // the token's): comparing with the token's column would compare the new simulation with itself.
  const previousSim = details.previous_taxes ?? null;
  const taxesMoved =
    details.simulation !== undefined &&
    previousSim !== null &&
    (previousSim.buy_tax_pct !== (details.simulation.buy_tax_pct ?? null) ||
      previousSim.sell_tax_pct !== (details.simulation.sell_tax_pct ?? null));
  if (!token || !(changed || taxesMoved)) return changed;
  const after = {
    ...token,
    currentRiskScore: assessment.score,
    currentRiskLevel: assessment.level,
    isHoneypot: assessment.level === 'honeypot',
    securityHints: hints,
    tradingSimulation: details.simulation ?? token.tradingSimulation,
    riskUpdatedAt: new Date(),
  };
  const previous = {
    current_risk_score: token.currentRiskScore,
    current_risk_level: token.currentRiskLevel,
    current_liquidity_usd: toNumber(token.currentLiquidityUsd),
    price_usd: toNumber(token.priceUsd),
  };
  const changes = [...(changed ? ['risk'] : []), ...(taxesMoved ? ['taxes'] : [])];
  await deps.events.publish({
    type: 'token.updated',
    data: tokenUpdatedData(after, { source: 'risk', changes, previous }),
  });
  return changed;
}

/** The "honeypot detected" alert, when the token becomes a honeypot. */
async function announceHoneypot(
  deps: RiskDeps,
  data: JobData<'risk'>,
  inputs: Inputs,
  assessment: RiskAssessment,
): Promise<void> {
  if (!inputs.token || assessment.level !== 'honeypot' || inputs.token.isHoneypot === true) return;
  const reason = assessment.risk_factors.find((f) => f.code === 'honeypot')?.message ?? 'honeypot';
  await deps.events.publish({
    type: 'alert',
    data: {
      contract_address: data.address,
      chain_id: data.chainId,
      type: 'honeypot',
      message: HONEYPOT_ALERT_MESSAGE,
      alert_key: null,
      bucket_at: null,
      details: { reason, risk_score: assessment.score },
    },
  });
}

/**
 * The `impersonation` and `holder_concentration` alerts, each once per token (its alert key): the
 * first pass whose factors score it.
 */
async function announceHolderAlerts(
  deps: RiskDeps,
  data: JobData<'risk'>,
  token: TokenRow | undefined,
  assessment: RiskAssessment,
): Promise<void> {
  const before = (token?.securityHints ?? {}) as {
    impersonates?: unknown;
    alerted?: { holder_concentration?: boolean };
  };
  const scored = assessment.risk_factors.filter((f) => f.points > 0);
  const look = before.impersonates ? undefined : scored.find((f) => f.code === 'impersonation');
  const concentrated = before.alerted?.holder_concentration
    ? undefined
    : scored.find((f) => CONCENTRATION_CODES.has(f.code));
  for (const [kind, factor] of [
    ['impersonation', look],
    ['holder_concentration', concentrated],
  ] as const) {
    if (!factor) continue;
    await deps.events.publish({
      type: 'alert',
      data: {
        contract_address: data.address,
        chain_id: data.chainId,
        type: kind,
        message: factor.message,
        alert_key: `${kind}:${data.chainId}:${data.address}`,
        bucket_at: null,
        details: { evidence: factor.evidence[0]?.detail ?? null, risk_score: assessment.score },
      },
    });
  }
}

export function createRiskProcessor(deps: RiskDeps) {
  return async function processRisk(
    data: JobData<'risk'>,
    state: PassState = newPassState(),
  ): Promise<{ score: number; level: string; changed: boolean }> {
    const chain = chainOf(deps.chains, data.chainId);
    const inputs = await riskInputs(deps, data, state);
    const { key, details, token, creator, similarHoneypots } = inputs;
    const { assessment, hints } = scorePass({
      config: chain.config,
      address: data.address,
      details,
      token,
      creator,
      similarHoneypots,
      liquidity: inputs.liquidity,
      report: inputs.report,
      known: inputs.known,
    });
    const isHoneypot = assessment.level === 'honeypot';
    const changed = await announceUpdate(deps, inputs, assessment, hints);
    await announceHoneypot(deps, data, inputs, assessment);
    await announceHolderAlerts(deps, data, inputs.token, assessment);
    // The job's one write: the earlier stages' parts, the score, and the creator's reputation.
    await flush(deps.analyses, key, state, {
      stage: 'risk',
      details: {
        security_hints: hints,
        creator_reputation: creator,
        similar_honeypots: similarHoneypots,
      },
      token: {
        currentRiskScore: assessment.score,
        currentRiskLevel: assessment.level,
        isHoneypot,
        securityHints: hints,
        riskUpdatedAt: new Date(),
        ...(inputs.report ? { holders: inputs.report } : {}),
      },
      assessment,
      creator: token?.creator ?? null,
    });
    await deps.onChanged?.(data.chainId, data.address);
    // Whether the pass continues to the DEX stage is the map's loop-breaking rule (workers/pipeline.ts).
    if (deps.producer) await routeOutcome(deps.producer, 'risk', data, {});
    deps.logger.debug(
      {
        chain: data.chainId,
        address: data.address,
        run: data.run,
        score: assessment.score,
        level: assessment.level,
      },
      'risk recorded',
    );
    return { score: assessment.score, level: assessment.level, changed };
  };
}
