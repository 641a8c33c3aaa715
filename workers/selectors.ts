import { keccak256 } from 'ethers';
import type { Logger } from 'pino';
import type { AnalysisRepository } from '../db/repositories/analyses.ts';
import { verifiedSource } from '../infra/explorer.ts';
import { codeFactsOf } from '../src/analysis/risk/index.ts';
import { analyzeOver, type StaticInput } from '../src/analysis/static/index.ts';
import type { StaticAnalysis } from '../src/analysis/types.ts';
import type { RpcClient } from '../src/evm/rpc.ts';
import { type ChainRuntime, chainOf } from './chain-runtime.ts';
import type { JobData } from './jobs.ts';
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

export function createSelectorsProcessor(deps: SelectorsDeps) {
  const analyze = deps.analyze ?? analyzeOver;
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
    const analysis = await analyze(chain.rpc, {
      chainId: data.chainId,
      address: data.address,
      code,
    });
    const owner = analysis.ownership.renounced ? null : analysis.ownership.owner;
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
    await deps.analyses.recordPass(key, {
      details: {
        static: analysis,
        code_hash: keccak256(code),
        reason: data.reason,
        static_at: now,
        explorer: { verified, checked_at: now },
        // Reachable SELFDESTRUCT, an owner-set contract that transfers call (src/analysis/risk/code-facts.ts).
        code_facts: codeFactsOf(code, analysis),
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
    await routeOutcome(deps.producer, 'selectors', data, { hasCode: true });
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
