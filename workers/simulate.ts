import type { Logger } from 'pino';
import type { AnalysisRepository } from '../db/repositories/analyses.ts';
import type { PairRow } from '../db/repositories/dex.ts';
import type { HolderRepository } from '../db/repositories/holders.ts';
import type { TokenRow } from '../db/repositories/tokens.ts';
import { probeCreatorAccess } from '../src/analysis/access/index.ts';
import { simulateVenues, type VenueReport } from '../src/analysis/hooks/index.ts';
import { isTrusted } from '../src/analysis/risk/index.ts';
import {
  amountsFor,
  type BehaviourReport,
  MAX_HOLDER_SELLS,
  type Pool,
  type PrivilegedCaller,
  probeAdminBehaviour,
  simulateHolderSells,
  type V4Candidate,
} from '../src/analysis/simulation/index.ts';
import { isFeeCapEntry } from '../src/analysis/static/index.ts';
import type { HolderSells, StaticAnalysis } from '../src/analysis/types.ts';
import type { ChainConfig } from '../src/config/chains.ts';
import { coalescingOf } from '../src/evm/coalesce/index.ts';
import type { RpcClient } from '../src/evm/rpc.ts';
import { roleAddresses } from '../src/holders/report.ts';
import type { PassReason } from '../src/run-key.ts';
import { hasReached } from '../src/stages.ts';
import { type ChainRuntime, chainOf } from './chain-runtime.ts';
import { coverage, holderRoles } from './holders-report.ts';
import type { JobData } from './jobs.ts';
import { NotYetError } from './not-yet.ts';
import { addPart, flush, newPassState, type PassState, startOf, tokenView } from './pass-state.ts';
import { handsOnInProcess, routeOutcome, startPasses } from './pipeline.ts';
import type { Producer } from './queues.ts';

/** How long a pass that must follow the token's first pass waits before it looks again. */
const FIRST_PASS_WAIT_MS = 2_000;
/**
 * The simulate stage: the honeypot test (buy, transfer, sell at several amounts by eth_call with
 * state overrides) and the behaviour probes of uncatalogued functions from every privileged
 * address; then the risk stage of the same pass, in this job, which writes this stage's part with
 * its own (workers/pass-state.ts). A token without liquidity is recorded with the
 * error 'no liquidity' and simulated again by `resimulate` when liquidity appears.
 */

export interface SimulateDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  analyses: AnalysisRepository;
  producer: Producer;
  logger: Logger;
  /** With it, the largest real holders' sells are simulated too (src/analysis/simulation/holder-sells.ts). */
  holders?: Pick<HolderRepository, 'tracks' | 'sellCandidates' | 'markContracts'>;
  /** The token's recorded pools (DexRepository.pairsOf): its V4 pools are simulated too. */
  pairsOf?: (chainId: number, token: string) => Promise<PairRow[]>;
}

/** The recorded V4 pools among a token's pairs, as pool keys of their PoolManager. */
export function v4Candidates(rows: readonly PairRow[]): V4Candidate[] {
  return rows.flatMap((r) =>
    r.kind === 'v4' && r.factory && r.tickSpacing !== null && r.hooks && r.fee !== null
      ? [
          {
            dex: r.dex,
            poolManager: r.factory,
            id: r.address,
            key: {
              currency0: r.token0,
              currency1: r.token1,
              fee: r.fee,
              tickSpacing: r.tickSpacing,
              hooks: r.hooks,
            },
          },
        ]
      : [],
  );
}

export type ResimulateReason = Exclude<PassReason, 'pipeline'>;

/**
 * Enqueues simulate (then risk) for a token under a new run key: for the DEX stage when a token
 * first gets liquidity, and for refreshes. Reuses the token's latest static analysis.
 */
export function createResimulate(producer: Producer, now: () => number = Date.now) {
  return function resimulate(
    chainId: number,
    address: string,
    reason: ResimulateReason,
  ): Promise<string> {
    return startPasses(producer, 'simulate', [{ chainId, address }], {
      kind: 'resimulation',
      reason,
      atMs: now(),
    }).then(([id]) => id!);
  };
}

/** Addresses worth impersonating for behaviour probes, most specific first. */
export function privilegedCallers(
  analysis: StaticAnalysis | null,
  token: CreationFacts | undefined,
): PrivilegedCaller[] {
  const callers: PrivilegedCaller[] = [];
  const own = analysis?.ownership;
  if (own?.owner && !own.renounced) callers.push({ address: own.owner, role: 'owner' });
  if (own?.hidden_owner) callers.push({ address: own.hidden_owner, role: 'hidden-owner' });
  if (analysis?.proxy.admin) callers.push({ address: analysis.proxy.admin, role: 'proxy-admin' });
  // Scammers keep privileges for the deployer: the creator, and the sender behind a factory.
  if (token?.creator) callers.push({ address: token.creator, role: 'creator' });
  if (token?.creatorIsContract && token.txOrigin)
    callers.push({ address: token.txOrigin, role: 'creator' });
  return callers;
}

/** A simulation's taxes, what the risk stage compares to announce a change. */
export interface Taxes {
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
}

/**
 * The taxes of the simulation before this pass, which the write below replaces on the token: the
 * risk stage compares with them. A retried pass keeps what its first attempt recorded (by then
 * the token already holds this pass's own simulation). Null when the token had none.
 */
function previousTaxes(
  own: Record<string, unknown> | undefined,
  token: { tradingSimulation: unknown } | undefined,
): Taxes | null {
  const recorded = (own as { previous_taxes?: Taxes | null } | undefined)?.previous_taxes;
  if (recorded !== undefined) return recorded;
  const sim = token?.tradingSimulation as Partial<Taxes> | null | undefined;
  return sim
    ? { buy_tax_pct: sim.buy_tax_pct ?? null, sell_tax_pct: sim.sell_tax_pct ?? null }
    : null;
}

/**
 * The real holders' sells: the largest holders that are no pool, locker, burn address, creator or
 * owner, at the block the tracked balances are at (their Transfers are compared with balanceOf
 * there only when the token was tracked from its creation block).
 */
async function realHolderSells(
  deps: SimulateDeps,
  chain: ChainRuntime,
  data: JobData<'simulate'>,
  pool: Pool,
  token: TokenRow | undefined,
): Promise<HolderSells | null> {
  const holders = deps.holders!;
  const roles = holderRoles(
    chain.config,
    {
      chainId: data.chainId,
      address: data.address,
      creator: token?.creator ?? null,
      creatorIsContract: token?.creatorIsContract ?? null,
      txOrigin: token?.txOrigin ?? null,
      ownerAddress: token?.ownerAddress ?? null,
      creationBlockNumber: token?.creationBlockNumber ?? null,
    },
    [{ address: pool.pair }],
  );
  const exclude = [
    ...roleAddresses(roles),
    ...(token?.creator ? [token.creator] : []),
    ...(token?.txOrigin ? [token.txOrigin] : []),
  ];
  // Independent reads, in parallel.
  const [tracks, { holders: top, holderCount }] = await Promise.all([
    holders.tracks(data.chainId),
    holders.sellCandidates(data.chainId, data.address, exclude, MAX_HOLDER_SELLS),
  ]);
  const { block, complete } = coverage(tracks, token?.creationBlockNumber ?? null);
  const run = await simulateHolderSells(chain.rpc, {
    pool,
    token: data.address,
    candidates: top.map((t) => ({ address: t.holder, tracked: complete ? t.balance : null })),
    block,
    holderCount,
  });
  if (!run) return null;
  await holders.markContracts(data.chainId, data.address, run.contracts);
  return run.sells;
}

/** The token's creation facts the simulation impersonates (the creator, the sender behind a factory). */
export type CreationFacts = Pick<TokenRow, 'creator' | 'creatorIsContract' | 'txOrigin'>;

/** What the stage simulates and probes, before anything is written. */
export interface TokenSimulation {
  report: VenueReport;
  pool: Pool | null;
  behaviour: BehaviourReport | null;
}

/**
 * The stage's analysis work without the database (the real holders' sells aside, which read the
 * tracked balances): the honeypot test over the token's venues, the behaviour probes of its
 * functions from every privileged address (the fee setters among them), and the creator's access
 * to its catalogued gated functions. The in-process benchmark baseline runs this same function.
 */
export async function simulateToken(
  rpc: RpcClient,
  input: {
    config: ChainConfig;
    address: string;
    analysis: StaticAnalysis | null;
    token: CreationFacts | undefined;
    v4: V4Candidate[];
  },
): Promise<TokenSimulation> {
  const { config, address, analysis, token } = input;
  const { report, pool } = await simulateVenues(rpc, {
    chain: config,
    token: address,
    v4: input.v4,
    creator: token?.creator ?? null,
  });
  // Trusted tokens are not scored for capability, so their functions need no probing.
  if (!analysis || isTrusted(config, address)) return { report, pool, behaviour: null };
  const callers = privilegedCallers(analysis, token);
  let behaviour: BehaviourReport | null = null;
  if (pool) {
    // A fee setter listed only by its cap search is still probed: the probes read its sell tax.
    const catalogued = new Set(
      analysis.admin_functions.filter((f) => !isFeeCapEntry(f)).map((f) => f.selector),
    );
    // Functions the static analysis found gated on the caller go first (the cap keeps them).
    const gated = new Set((analysis.privileged_functions ?? []).map((f) => f.selector));
    const functions = [...analysis.functions].sort(
      (a, b) => Number(!gated.has(a.selector)) - Number(!gated.has(b.selector)),
    );
    behaviour = await probeAdminBehaviour(rpc, {
      token: address,
      pool,
      functions,
      catalogued,
      callers,
      amountIn: amountsFor(pool.nativeReserve)[0]!,
      // Only tokens with an uncatalogued function gated on its caller are probed; an analysis
      // made before caller checks were walked has no such list, and everything is probed.
      ...(analysis.privileged_functions ? { gated } : {}),
    });
  }
  // The creator's access to catalogued gated functions (a role table the renounce left): no pool
  // needed, and nothing to ask while the creator is the live owner. Folded into one eth_call per
  // sender (src/evm/coalesce/), as the selectors stage folds its own access probes; per sender,
  // so that each call keeps its tx.origin.
  const creator = await probeCreatorAccess(coalescingOf(rpc), {
    token: address,
    analysis,
    callers,
  });
  if (creator.length > 0)
    behaviour = {
      probed: behaviour?.probed ?? [],
      skipped: behaviour?.skipped ?? [],
      findings: [...(behaviour?.findings ?? []), ...creator],
    };
  return { report, pool, behaviour };
}

export function createSimulateProcessor(deps: SimulateDeps) {
  return async function processSimulate(
    data: JobData<'simulate'>,
    state: PassState = newPassState(),
  ): Promise<{ error: string | null; honeypot: boolean; findings: number }> {
    const chain = chainOf(deps.chains, data.chainId);
    const key = { chainId: data.chainId, address: data.address, run: data.run };
    const staticOf = (details: Record<string, unknown> | undefined) =>
      (details as { static?: StaticAnalysis } | undefined)?.static ?? null;
    // The pass's row holds the static analysis when the selectors stage ran (in this job, just
    // before); a re-run (first liquidity, refresh) reuses the latest one, read with the token.
    const start = await startOf(deps.analyses, key, state);
    const ownStatic = staticOf(start.own);
    const analysis = ownStatic ?? staticOf(start.latestStatic);
    // A pass that starts here (first liquidity, a refresh) supersedes the token's first pass. The
    // pool's block can be detected while that pass is still under way: scoring now would miss its
    // static analysis (every admin power gone from the verdict), or be overwritten by its older
    // verdict, which saw no pool, since the last pass to write is what users see. So it waits
    // until the first pass is through risk. A token without code never gets there: no waiting.
    if (
      !ownStatic &&
      !hasReached(start.token?.stage ?? 'detected', 'risk') &&
      (await chain.reader.code(data.address, 'latest')) !== '0x'
    )
      throw new NotYetError(
        `${data.address}: its first pass is not through risk yet`,
        FIRST_PASS_WAIT_MS,
        // Still not through after the wait (a long replay hands its tokens' first passes on
        // later): that pass, when it runs, simulates against the pools the chain has by then.
        'skip',
      );
    // Copied into this pass's row, so that the risk stage finds every input under one key: the code
    // analysis and the explorer's answer that came with it (a pass without it would say "unverified").
    const latest = start.latestStatic as { explorer?: unknown; code_facts?: unknown } | undefined;
    const explorer = latest?.explorer;
    const codeFacts = latest?.code_facts;
    const inherited =
      analysis && !ownStatic
        ? {
            static: analysis,
            ...(explorer ? { explorer } : {}),
            ...(codeFacts ? { code_facts: codeFacts } : {}),
          }
        : {};
    const token = tokenView(state);

    // V4 pools cannot be found by asking a factory: the ones the detect stage recorded are tried.
    const hasV4 = chain.config.dexes.some((d) => d.kind === 'v4');
    const v4 =
      hasV4 && deps.pairsOf ? v4Candidates(await deps.pairsOf(data.chainId, data.address)) : [];
    const { report, pool, behaviour } = await simulateToken(chain.rpc, {
      config: chain.config,
      address: data.address,
      analysis,
      token,
      v4,
    });
    const holderSells =
      pool && deps.holders && !isTrusted(chain.config, data.address)
        ? await realHolderSells(deps, chain, data, pool, token)
        : null;
    const simulation: VenueReport = holderSells ? { ...report, holder_sells: holderSells } : report;
    addPart(
      state,
      'simulate',
      {
        ...inherited,
        reason: data.reason,
        simulation,
        behaviour,
        previous_taxes: previousTaxes(start.own, start.token),
      },
      { tradingSimulation: simulation },
    );
    if (!handsOnInProcess(deps.producer, 'simulate', data, {}))
      await flush(deps.analyses, key, state);
    await routeOutcome(deps.producer, 'simulate', data, {}, state);
    deps.logger.debug(
      {
        chain: data.chainId,
        address: data.address,
        run: data.run,
        error: report.error,
        honeypot: report.is_honeypot,
      },
      'simulation recorded',
    );
    return {
      error: report.error,
      honeypot: report.is_honeypot,
      findings: behaviour?.findings.length ?? 0,
    };
  };
}
