import { hasHook, hookAddressProblems } from '../../dex/v4/index.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import {
  asAmountOutcomes,
  type Pool,
  type SimulateInput,
  type SimulationReport,
  simulateTrading,
  summarize,
  testV4,
  type V4Candidate,
  type V4Test,
} from '../simulation/index.ts';
import { analyzeHookControl } from './control.ts';
import { hookEffects } from './effects.ts';
import { type HookReport, hookReport } from './report.ts';

/**
 * The honeypot test over every venue the token trades on: its deepest V2 pool (one eth_call,
 * simulation/simulation.ts) and its deepest V4 pool with the pool's hook (simulation/v4.ts), side
 * by side. The deeper
 * one is where a trade of any size goes, so its outcome is the token's trading_simulation; a V4
 * pool's hook is reported with it (permissions, who controls it, what it did), and a recorded V4
 * pool whose hook can never work is named even when nothing could be traded.
 */

export interface VenuePool {
  dex: string;
  pair: string;
  router: string;
  native_reserve: string;
  token_reserve: string;
  /** V4: the pool id, its PoolManager and its hook (null without one). */
  pool_id?: string;
  pool_manager?: string;
  hook?: string | null;
}

/** The simulation report with the V4 pool and its hook (trading_simulation as stored). */
export interface VenueReport extends Omit<SimulationReport, 'pool'> {
  pool: VenuePool | null;
  hook: HookReport | null;
}

export interface VenuesInput extends SimulateInput {
  /** The token's recorded V4 pools. */
  v4?: readonly V4Candidate[];
  /** Whose own trades a hook might treat differently (the token's creator). */
  creator?: string | null;
}

export interface VenueRun {
  report: VenueReport;
  /** The V2 pool found (behaviour probes trade through a V2 router), or null. */
  pool: Pool | null;
}

async function hookOf(rpc: RpcClient, test: V4Test): Promise<HookReport | null> {
  const candidate = test.run?.candidate;
  if (!candidate || !hasHook(candidate.key.hooks)) return null;
  const hook = candidate.key.hooks.toLowerCase();
  const control = await analyzeHookControl(rpc, {
    address: hook,
    code: test.hookCode ?? '0x',
    poolManager: candidate.poolManager,
    key: candidate.key,
  });
  return hookReport({
    hook,
    poolId: candidate.id,
    poolManager: candidate.poolManager,
    key: candidate.key,
    control,
    effects: hookEffects(test, hook),
  });
}

/** A recorded pool the PoolManager would never have accepted (a hook with impossible bits). */
function refusedHook(candidates: readonly V4Candidate[]): HookReport | null {
  const c = candidates.find(
    (x) => hasHook(x.key.hooks) && hookAddressProblems(x.key.hooks, x.key.fee).length > 0,
  );
  if (!c) return null;
  return hookReport({
    hook: c.key.hooks.toLowerCase(),
    poolId: c.id,
    poolManager: c.poolManager,
    key: c.key,
    control: null,
    effects: null,
  });
}

function v4Report(test: V4Test, now: Date, hook: HookReport | null): VenueReport {
  const run = test.run!;
  const report = summarize(asAmountOutcomes(run.outcomes), run.pool, now, run.maxTx);
  return {
    ...report,
    pool: report.pool && {
      ...report.pool,
      pool_id: run.candidate.id,
      pool_manager: run.candidate.poolManager,
      hook: hasHook(run.candidate.key.hooks) ? run.candidate.key.hooks.toLowerCase() : null,
    },
    hook,
  };
}

export async function simulateVenues(rpc: RpcClient, input: VenuesInput): Promise<VenueRun> {
  const now = input.now ?? new Date();
  const candidates = input.v4 ?? [];
  const [v2, v4] = await Promise.all([
    simulateTrading(rpc, { ...input, now }),
    candidates.length > 0
      ? testV4(rpc, { chain: input.chain, token: input.token, candidates, creator: input.creator })
      : null,
  ]);
  if (!v4?.run) return { report: { ...v2.report, hook: refusedHook(candidates) }, pool: v2.pool };
  const hook = await hookOf(rpc, v4);
  // The deeper pool decides: it is where a trade of any size executes.
  if (v2.pool && v2.pool.nativeReserve >= v4.run.pool.nativeReserve)
    return { report: { ...v2.report, hook }, pool: v2.pool };
  return { report: v4Report(v4, now, hook), pool: v2.pool };
}
