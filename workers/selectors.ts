import { keccak256 } from 'ethers';
import type { Logger } from 'pino';
import type { AnalysisRepository } from '../db/repositories/analyses.ts';
import { verifiedSource } from '../infra/explorer.ts';
import { type CodeFacts, codeFactsOf } from '../src/analysis/risk/index.ts';
import { analyzeOver, type StaticInput } from '../src/analysis/static/index.ts';
import type { StaticAnalysis } from '../src/analysis/types.ts';
import type { RpcClient } from '../src/evm/rpc.ts';
import { type ChainLane, type ChainRuntime, chainOf } from './chain-runtime.ts';
import type { JobData } from './jobs.ts';
import { newPassState } from './pass-state.ts';
import { routeOutcome } from './pipeline.ts';
import type { Producer } from './queues.ts';

/**
 * The selectors stage: runtime code → static analysis (functions, admin functions and who can
 * call them, proxy and implementation, ownership, skeleton hash, template), stored in the pass's
 * analysis row and the token's columns; then the simulate stage of the same pass.
 */

/** The static analysis of a contract over its chain's client (in process, or in a thread). */
export type StaticAnalyzer = (rpc: RpcClient, input: StaticInput) => Promise<StaticAnalysis>;

export interface SelectorsDeps {
  chains: ReadonlyMap<number, ChainRuntime>;
  analyses: AnalysisRepository;
  producer: Producer;
  logger: Logger;
  /**
   * The static analysis: in process by default (src/analysis/static/), or in the analysis threads
   * (infra/analysis-threads/), which keep its walks off the event loop detection needs.
   */
  analyze?: StaticAnalyzer;
  /** Asks the chain's configured block explorer whether the source is verified (infra/explorer.ts). */
  verifiedSource?: typeof verifiedSource;
}

export type SelectorsResult =
  | { status: 'no-code' }
  | { status: 'done'; adminFunctions: number; isProxy: boolean };

/** What the stage derives from the code, before anything is written. */
export interface CodeAnalysis {
  analysis: StaticAnalysis;
  codeHash: string;
  codeFacts: CodeFacts;
  /** The owner the token's column records: none once ownership is renounced. */
  owner: string | null;
}

/**
 * The stage's analysis work without the database: the static analysis with its reads folded into
 * few eth_calls (src/evm/coalesce/, in `analyzeOver`), and the code facts. The in-process benchmark baseline runs
 * this same function.
 */
export async function analyseCode(
  chain: ChainLane,
  input: StaticInput,
  analyze: StaticAnalyzer = analyzeOver,
): Promise<CodeAnalysis> {
  const analysis = await analyze(chain.rpc, input);
  return {
    analysis,
    codeHash: keccak256(input.code),
    // Reachable SELFDESTRUCT, an owner-set contract that transfers call (src/analysis/risk/code-facts.ts).
    codeFacts: codeFactsOf(input.code, analysis),
    owner: analysis.ownership.renounced ? null : analysis.ownership.owner,
  };
}

export function createSelectorsProcessor(deps: SelectorsDeps) {
  return async function processSelectors(data: JobData<'selectors'>): Promise<SelectorsResult> {
    const chain = chainOf(deps.chains, data.chainId);
    const key = { chainId: data.chainId, address: data.address, run: data.run };
    const code = await chain.reader.code(data.address, 'latest');
    // Self-destructed (or never a contract): nothing to analyse, nothing to trade.
    if (code === '0x') {
      await deps.analyses.mergeDetails(key, {
        run: data.run,
        reason: data.reason,
        error: 'no code',
      });
      await routeOutcome(deps.producer, 'selectors', data, { hasCode: false });
      return { status: 'no-code' };
    }
    const { analysis, codeHash, codeFacts, owner } = await analyseCode(
      chain,
      { chainId: data.chainId, address: data.address, code },
      deps.analyze,
    );
    // Once per code analysis, not per refresh: explorers are rate-limited. No explorer: not verified.
    // Asked before the write, so that the pass's row is written once.
    const { explorerApiUrl, explorerApiKey } = chain.config;
    const verified = explorerApiUrl
      ? await (deps.verifiedSource ?? verifiedSource)(
          { url: explorerApiUrl, apiKey: explorerApiKey },
          data.address,
        )
      : false;
    // Written before the pass goes on (one round trip): a pass that starts at simulate meanwhile
    // (first liquidity) reuses the newest static analysis, and must find this one.
    const now = new Date().toISOString();
    // The write answers the token and the pass's row as written: the simulate stage, when it runs
    // in this job, starts from them instead of reading them again.
    const state = newPassState();
    state.start = await deps.analyses.recordPass(key, {
      details: {
        static: analysis,
        code_hash: codeHash,
        reason: data.reason,
        static_at: now,
        explorer: { verified, checked_at: now },
        code_facts: codeFacts,
      },
      token: {
        isProxy: analysis.proxy.is_proxy,
        implementationAddress: analysis.proxy.implementation,
        skeletonHash: analysis.skeleton_hash,
        template: analysis.template,
        ownerAddress: owner,
      },
      stage: 'selectors',
    });
    await routeOutcome(deps.producer, 'selectors', data, { hasCode: true }, state);
    deps.logger.debug(
      {
        chain: data.chainId,
        address: data.address,
        run: data.run,
        admin: analysis.admin_functions.length,
      },
      'static analysis recorded',
    );
    return {
      status: 'done',
      adminFunctions: analysis.admin_functions.length,
      isProxy: analysis.proxy.is_proxy,
    };
  };
}
