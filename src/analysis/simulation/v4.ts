import { Interface, type Result } from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import type { ChainConfig } from '../../config/chains.ts';
import { ZERO_ADDRESS } from '../../dex/abi.ts';
import { hasHook, type V4PoolKey } from '../../dex/v4/index.ts';
import { type RpcClient, RpcError, type RpcOutcome } from '../../evm/rpc.ts';
import { decodeRawResult, decodeRevert, type RawResult } from './codec.ts';
import {
  AMOUNT_FRACTIONS_BPS,
  type AmountOutcome,
  freshAddress,
  lower,
  MAX_TX_BISECTION_STEPS,
  type Pool,
  TEST_GAS,
  TRANSFER_BPS,
} from './simulation.ts';

/**
 * The honeypot test through a Uniswap V4 pool and its hook (contracts/src/v4/V4TradeSimulator.sol).
 * The simulator is placed by state override, as the V2 one is, and so is the HookSwitch at the
 * hook's address with the hook's own code moved aside: each amount is quoted with the hook
 * switched off and traded with it on, so what the hook takes or refuses is measured against what
 * the pool alone gives. Two calls: the candidates' state and hook code (one batch), then the test.
 * A creator run (the simulator at the creator's address, the creator as origin) tells a hook that
 * treats its creator differently.
 */

/** The HookSwitch's shadow: where the hook's own code runs (contracts/src/v4/HookSwitch.sol). */
const HOOK_SHADOW = '0x00000000000000000000000000000000005a4d0f';
/** Pools a test looks at: a token has few; more would only lengthen the call. */
const MAX_CANDIDATES = 16;
/** The simulator's native balance: more than any buy it makes. */
const SIMULATOR_BALANCE = 2n ** 128n;
/** A creator run trades the smallest amount only, without a max-tx search. */
const CREATOR_FRACTIONS = [AMOUNT_FRACTIONS_BPS[0]];

const simulator = loadArtifact('V4TradeSimulator');
const hookSwitch = loadArtifact('HookSwitch');
const v4Interface = new Interface(simulator.abi);

/** A recorded V4 pool of the token (from its PoolManager's Initialize event). */
export interface V4Candidate {
  dex: string;
  poolManager: string;
  id: string;
  key: V4PoolKey;
}

/** One amount's V4 outcome: the shared Result plus what the swaps paid out through the hook. */
export type V4Outcome =
  | { amountIn: bigint; raw: RawResult; buySwapOut: bigint; sellSwapOut: bigint }
  | { amountIn: bigint; error: string };

export interface V4Run {
  candidate: V4Candidate;
  pool: Pool;
  outcomes: V4Outcome[];
  maxTx: { amountIn: bigint; amountOut: bigint } | null;
}

export interface V4Test {
  /** The deepest candidate with liquidity, and its runs; null when none has any. */
  run: V4Run | null;
  /** The hook's runtime code, when the pool has a hook (0x: none at that address). */
  hookCode: string | null;
  /** The same test by the creator (smallest amount), when asked for and the pool has a hook. */
  creatorRun: V4Run | null;
}

const keyTuple = (k: V4PoolKey) => [k.currency0, k.currency1, k.fee, k.tickSpacing, k.hooks];

/** Pools of `token` against native currency or wrapped native: the ones the simulator can trade. */
function tradableCandidates(
  chain: ChainConfig,
  token: string,
  candidates: readonly V4Candidate[],
): V4Candidate[] {
  const quotes = new Set([ZERO_ADDRESS, lower(chain.wrappedNative)]);
  return candidates
    .filter(({ key }) => {
      const [c0, c1] = [lower(key.currency0), lower(key.currency1)];
      return (c0 === token && quotes.has(c1)) || (c1 === token && quotes.has(c0));
    })
    .slice(0, MAX_CANDIDATES);
}

function overrides(at: string, hook: { address: string; code: string } | null) {
  const state: Record<string, { code: string; balance?: string }> = {
    [at]: { code: simulator.deployedBytecode, balance: `0x${SIMULATOR_BALANCE.toString(16)}` },
  };
  // A hook without code cannot be switched: the PoolManager's calls to it fail either way.
  if (hook && hook.code !== '0x') {
    state[hook.address] = { code: hookSwitch.deployedBytecode };
    state[HOOK_SHADOW] = { code: hook.code };
  }
  return state;
}

const poolsArg = (candidates: readonly V4Candidate[]) =>
  candidates.map((c) => [c.poolManager, keyTuple(c.key)]);

function findRequest(chain: ChainConfig, token: string, candidates: readonly V4Candidate[]) {
  const at = freshAddress();
  const data = v4Interface.encodeFunctionData('findPool', [
    token,
    lower(chain.wrappedNative),
    poolsArg(candidates),
  ]);
  return {
    method: 'eth_call',
    params: [{ to: at, data, gas: `0x${TEST_GAS.toString(16)}` }, 'latest', overrides(at, null)],
  };
}

interface Found {
  index: number;
  nativeReserve: bigint;
  tokenReserve: bigint;
}

function decodeFound(data: string): Found | null {
  const f = v4Interface.decodeFunctionResult('findPool', data)[0] as Result;
  if (!f[0]) return null;
  return { index: Number(f[1]), nativeReserve: BigInt(f[2]), tokenReserve: BigInt(f[3]) };
}

function decodeOutcome(run: Result): V4Outcome {
  const amountIn = BigInt(run[0]);
  if (!run[1])
    return { amountIn, error: `simulation call reverted: ${decodeRevert(String(run[3]))}` };
  const r = run[2] as Result;
  return {
    amountIn,
    raw: decodeRawResult(r),
    buySwapOut: BigInt(r[11]),
    sellSwapOut: BigInt(r[12]),
  };
}

function poolOf(chain: ChainConfig, c: V4Candidate, found: Found): Pool {
  const token0IsQuote =
    BigInt(c.key.currency0) === 0n || lower(c.key.currency0) === lower(chain.wrappedNative);
  return {
    dex: c.dex,
    factory: c.poolManager,
    // V4 has no router: the simulator settles with the PoolManager itself.
    router: c.poolManager,
    pair: c.id,
    weth: token0IsQuote ? lower(c.key.currency0) : lower(c.key.currency1),
    nativeReserve: found.nativeReserve,
    tokenReserve: found.tokenReserve,
  };
}

async function runTest(
  rpc: RpcClient,
  chain: ChainConfig,
  token: string,
  candidate: V4Candidate,
  found: Found,
  hookCode: string | null,
  as: { at: string; from: string; fractions: readonly number[]; bisection: number },
): Promise<V4Run> {
  const data = v4Interface.encodeFunctionData('test', [
    token,
    lower(chain.wrappedNative),
    poolsArg([candidate]),
    as.fractions,
    TRANSFER_BPS,
    as.bisection,
  ]);
  const hook =
    hasHook(candidate.key.hooks) && hookCode !== null
      ? { address: lower(candidate.key.hooks), code: hookCode }
      : null;
  const pool = poolOf(chain, candidate, found);
  let answer: string;
  try {
    answer = await rpc.request<string>('eth_call', [
      { to: as.at, from: as.from, data, gas: `0x${TEST_GAS.toString(16)}` },
      'latest',
      overrides(as.at, hook),
    ]);
  } catch (error) {
    // A revert of the whole call is an answer about the pool; node failures fail the job.
    if (!(error instanceof RpcError) || error.kind !== 'revert') throw error;
    const failure = `simulation call reverted: ${error.message}`;
    return { candidate, pool, outcomes: [{ amountIn: 0n, error: failure }], maxTx: null };
  }
  const t = v4Interface.decodeFunctionResult('test', answer)[0] as Result;
  const outcomes = (t[1] as Result).map(decodeOutcome);
  const maxTxIn = BigInt(t[2]);
  return {
    candidate,
    pool,
    outcomes,
    maxTx: maxTxIn > 0n ? { amountIn: maxTxIn, amountOut: BigInt(t[3]) } : null,
  };
}

const codeOf = (outcome: RpcOutcome<string> | undefined): string | null =>
  outcome?.ok && typeof outcome.result === 'string' ? lower(outcome.result) : null;

/** Whether a stranger's run gives the creator run something to compare: a failure or a fee. */
function worthCreatorRun(run: V4Run): boolean {
  return run.outcomes.some(
    (o) =>
      !('raw' in o) ||
      !o.raw.buy.ok ||
      !o.raw.sell.ok ||
      o.raw.sellEthReceived < o.raw.sellExpectedEth ||
      o.buySwapOut < o.raw.buyExpected,
  );
}

/**
 * The V4 honeypot test of `token` over its recorded pools: the deepest tradable one, every amount
 * quoted without its hook and traded with it, a max-tx search, and (with `creator`) the creator's
 * own run when the stranger's showed a failure or a fee. Node failures throw (the job retries).
 */
export async function testV4(
  rpc: RpcClient,
  input: {
    chain: ChainConfig;
    token: string;
    candidates: readonly V4Candidate[];
    creator?: string | null;
  },
): Promise<V4Test> {
  const token = lower(input.token);
  const candidates = tradableCandidates(input.chain, token, input.candidates);
  if (candidates.length === 0) return { run: null, hookCode: null, creatorRun: null };
  const hooks = [...new Set(candidates.map((c) => lower(c.key.hooks)).filter(hasHook))];
  const [findOutcome, ...codes] = await rpc.batch<string>([
    findRequest(input.chain, token, candidates),
    ...hooks.map((h) => ({ method: 'eth_getCode', params: [h, 'latest'] })),
  ]);
  if (!findOutcome?.ok) {
    if (findOutcome && findOutcome.error.kind !== 'revert') throw findOutcome.error;
    return { run: null, hookCode: null, creatorRun: null };
  }
  const found = decodeFound(findOutcome.result);
  if (!found) return { run: null, hookCode: null, creatorRun: null };
  const candidate = candidates[found.index]!;
  const hookIndex = hooks.indexOf(lower(candidate.key.hooks));
  const hookCode = hookIndex >= 0 ? codeOf(codes[hookIndex]) : null;
  const codeAnswer = codes[hookIndex];
  if (codeAnswer && !codeAnswer.ok) throw codeAnswer.error;
  const at = freshAddress();
  const run = await runTest(rpc, input.chain, token, candidate, found, hookCode, {
    at,
    from: freshAddress(),
    fractions: AMOUNT_FRACTIONS_BPS,
    bisection: MAX_TX_BISECTION_STEPS,
  });
  const creator = input.creator ? lower(input.creator) : null;
  const creatorRun =
    creator && hookIndex >= 0 && worthCreatorRun(run)
      ? await runTest(rpc, input.chain, token, candidate, found, hookCode, {
          at: creator,
          from: creator,
          fractions: CREATOR_FRACTIONS,
          bisection: 0,
        })
      : null;
  return { run, hookCode, creatorRun };
}

/** The V4 outcomes as the shared summary reads them (the V2 shape). */
export const asAmountOutcomes = (outcomes: readonly V4Outcome[]): AmountOutcome[] =>
  outcomes.map((o) => ('raw' in o ? { amountIn: o.amountIn, raw: o.raw } : o));
