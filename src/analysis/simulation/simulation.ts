import { randomBytes } from 'node:crypto';
import { getAddress, Interface, type Result } from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import type { ChainConfig } from '../../config/chains.ts';
import { type RpcClient, RpcError } from '../../evm/rpc.ts';
import type { HolderSells, SimulationAmount, TradingSimulation } from '../types.ts';
import {
  decodeRawResult,
  decodeRevert,
  failedAmount,
  type RawResult,
  toSimulationAmount,
} from './codec.ts';

export {
  decodeRawResult,
  decodeRevert,
  type RawResult,
  type RawStep,
  toSimulationAmount,
} from './codec.ts';

/**
 * The honeypot test (docs/risk-model.md). The TradeSimulator's runtime code is placed at a fresh
 * address with an eth_call state override (code + native balance): no transaction is ever sent,
 * and any node that honours the override parameter (geth, erigon, reth, anvil, …) can run it.
 * ONE eth_call does the whole test: the simulator finds the token's deepest V2 pool against the
 * wrapped native token over the configured DEXes, then, at several amounts small and large
 * relative to the pool's native reserve, buys through the pair's router, transfers part to a
 * fresh address and sells the rest back — each amount in a sub-call whose state is thrown away,
 * so every amount starts from the chain's state — and bisects a max-tx limit the same way.
 * Every step's outcome comes back, so a revert in one step still reports the others.
 */

/** Buy amounts, in basis points of the pool's wrapped-native reserve: small to large. */
export const AMOUNT_FRACTIONS_BPS = [10, 100, 1_000, 5_000] as const;
/** Share of the bought tokens sent to a fresh address (the transfer-tax probe). */
export const TRANSFER_BPS = 1_000n;
/** Gas for one single-amount simulation call; a buy, a transfer and a sell of even a heavy token use < 2 M. */
export const SIMULATION_GAS = 15_000_000;
/**
 * Gas for the whole test (pool search, four amounts, up to ten bisection runs): each run uses
 * < 2 M, and 30 M stays within the eth_call gas cap of common nodes (geth: 50 M, anvil: the block
 * gas limit).
 */
export const TEST_GAS = 30_000_000;
/** The simulator's native balance: more than any buy it makes (half a pool's reserve at most). */
const SIMULATOR_BALANCE = 2n ** 128n;
/** Bisection steps refining the largest buy that still succeeds, when a larger one fails. */
export const MAX_TX_BISECTION_STEPS = 10;
/** A token is a honeypot at or above this sell tax (docs/risk-model.md). */
export const HONEYPOT_SELL_TAX_PCT = 90;

export const ERRORS = {
  noLiquidity: 'no liquidity',
  noRouter: 'no V2 DEX with a router configured',
  wrappedNative: 'the wrapped native token is not traded against itself',
} as const;

const BPS = 10_000n;
const simulatorArtifact = loadArtifact('TradeSimulator');
export const simulatorInterface = new Interface(simulatorArtifact.abi);
/** The simulator's runtime code, for state overrides. */
export const simulatorCode = (): string => simulatorArtifact.deployedBytecode;

export interface Pool {
  dex: string;
  factory: string;
  router: string;
  pair: string;
  /** The chain's wrapped native token (the quote side of the pool). */
  weth: string;
  nativeReserve: bigint;
  tokenReserve: bigint;
}

/** TradingSimulation plus where and how it was measured. */
export interface SimulationReport extends TradingSimulation {
  /** The pool traded against, or null when none has liquidity. */
  pool: {
    dex: string;
    pair: string;
    router: string;
    native_reserve: string;
    token_reserve: string;
  } | null;
  /** Gas used by each step at the smallest amount that bought (null when that step did not run). */
  gas: { buy: number | null; transfer: number | null; sell: number | null } | null;
  /** Why the token is a honeypot (which amount, which step, which revert), or null. */
  honeypot_reason: string | null;
  /** The largest real holders' sells (holder-sells.ts), when the simulate stage ran them. */
  holder_sells?: HolderSells | null;
}

export const lower = (a: string) => a.toLowerCase();
/** A fresh address nobody holds a key for: the simulator's home for one run. */
export function freshAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

/** The V2 DEXes the simulator can trade on: those with a router, in configured order. */
const tradableDexes = (chain: ChainConfig) =>
  chain.dexes.filter((d) => d.kind === 'v2' && d.router);

/** The simulator placed by state override at `at`, rich enough for any buy it makes. */
const simulatorOverride = (at: string) => ({
  [at]: {
    code: simulatorArtifact.deployedBytecode,
    balance: `0x${SIMULATOR_BALANCE.toString(16)}`,
  },
});

/** The simulator's PoolFound (found, DEX index, pair, reserves) as a Pool, or null. */
function poolFrom(chain: ChainConfig, dexes: ChainConfig['dexes'], found: Result): Pool | null {
  const dex = dexes[Number(found[1])];
  if (!found[0] || !dex) return null;
  return {
    dex: dex.name,
    factory: dex.factory,
    router: lower(dex.router!),
    pair: lower(String(found[2])),
    weth: lower(chain.wrappedNative),
    nativeReserve: BigInt(found[3]),
    tokenReserve: BigInt(found[4]),
  };
}

/** The eth_call request of the whole honeypot test of `token` (pool, amounts, max-tx). */
export function testRequest(chain: ChainConfig, token: string, at: string = freshAddress()) {
  const dexes = tradableDexes(chain).map((d) => [d.factory, d.router!]);
  const data = simulatorInterface.encodeFunctionData('test', [
    token,
    lower(chain.wrappedNative),
    dexes,
    AMOUNT_FRACTIONS_BPS,
    TRANSFER_BPS,
    MAX_TX_BISECTION_STEPS,
  ]);
  const call = { to: at, from: freshAddress(), data, gas: `0x${TEST_GAS.toString(16)}` };
  return { method: 'eth_call', params: [call, 'latest', simulatorOverride(at)] };
}

/** What the one test call answered: the pool, each amount's outcome, the max-tx limit. */
export interface TestAnswer {
  pool: Pool | null;
  outcomes: AmountOutcome[];
  maxTx: { amountOut: bigint; amountIn: bigint } | null;
}

/** Decodes the simulator's `test` answer (pure). */
export function decodeTest(chain: ChainConfig, data: string): TestAnswer {
  const t = simulatorInterface.decodeFunctionResult('test', data)[0] as Result;
  const pool = poolFrom(chain, tradableDexes(chain), t[0] as Result);
  if (!pool) return { pool: null, outcomes: [], maxTx: null };
  const outcomes = (t[1] as Result).map((run: Result): AmountOutcome => {
    const amountIn = BigInt(run[0]);
    if (run[1]) return { amountIn, raw: decodeRawResult(run[2] as Result) };
    return { amountIn, error: `simulation call reverted: ${decodeRevert(String(run[3]))}` };
  });
  const maxTxIn = BigInt(t[2]);
  // A limit's amount is never 0 (amounts are positive): 0 says no limit showed.
  const maxTx = maxTxIn > 0n ? { amountIn: maxTxIn, amountOut: BigInt(t[3]) } : null;
  return { pool, outcomes, maxTx };
}

/**
 * The token's deepest V2 pool against the wrapped native token, over the chain's configured V2
 * DEXes that have a router (one eth_call of the simulator's view). null when no pair exists or
 * none holds reserves — including when a configured factory has no code or answers garbage (a
 * misconfigured or missing DEX is "no liquidity": retrying cannot fix it). Node failures throw.
 */
export async function findPool(
  rpc: RpcClient,
  chain: ChainConfig,
  token: string,
): Promise<Pool | null> {
  const dexes = tradableDexes(chain);
  if (dexes.length === 0) return null;
  const at = freshAddress();
  const data = simulatorInterface.encodeFunctionData('findPool', [
    lower(token),
    lower(chain.wrappedNative),
    dexes.map((d) => [d.factory, d.router!]),
  ]);
  const answer = await rpc.request<string>('eth_call', [
    { to: at, data, gas: `0x${TEST_GAS.toString(16)}` },
    'latest',
    simulatorOverride(at),
  ]);
  return poolFrom(
    chain,
    dexes,
    simulatorInterface.decodeFunctionResult('findPool', answer)[0] as Result,
  );
}

/** Buy amounts for a pool: the fractions of its native reserve, without zeros or repeats. */
export function amountsFor(nativeReserve: bigint): bigint[] {
  const amounts = AMOUNT_FRACTIONS_BPS.map((bps) => (nativeReserve * BigInt(bps)) / BPS).filter(
    (a) => a > 0n,
  );
  return [...new Set(amounts)];
}

export interface SimulatorCall {
  to: string;
  from: string;
  data: string;
  gas: string;
}

/** The eth_call request (transaction, block, state override) of one simulation at one amount. */
export function simulationRequest(
  pool: Pool,
  token: string,
  amountIn: bigint,
  at: string = freshAddress(),
) {
  const data = simulatorInterface.encodeFunctionData('simulate', [
    pool.router,
    token,
    pool.pair,
    pool.weth,
    amountIn,
    TRANSFER_BPS,
  ]);
  const call: SimulatorCall = {
    to: at,
    from: freshAddress(),
    data,
    gas: `0x${SIMULATION_GAS.toString(16)}`,
  };
  // The simulator pays for its buys; twice the amount leaves room for anything the token asks.
  const override = {
    [at]: {
      code: simulatorArtifact.deployedBytecode,
      balance: `0x${(amountIn * 2n + 10n ** 18n).toString(16)}`,
    },
  };
  return { method: 'eth_call', params: [call, 'latest', override] };
}

export type AmountOutcome =
  | { amountIn: bigint; raw: RawResult }
  | { amountIn: bigint; error: string };

const maxOf = (xs: (number | null)[]): number | null => {
  const present = xs.filter((x): x is number => x !== null);
  return present.length === 0 ? null : Math.max(...present);
};

export interface SimulateInput {
  chain: ChainConfig;
  token: string;
  now?: Date;
}

function emptyReport(error: string, now: Date, pool: Pool | null = null): SimulationReport {
  return {
    is_buyable: null,
    is_sellable: null,
    buy_tax_pct: null,
    sell_tax_pct: null,
    transfer_tax_pct: null,
    max_tx_amount: null,
    simulated_at: now.toISOString(),
    error,
    is_honeypot: false,
    amounts: [],
    pool: pool && poolView(pool),
    gas: null,
    honeypot_reason: null,
  };
}

const poolView = (p: Pool) => ({
  dex: p.dex,
  pair: p.pair,
  router: p.router,
  native_reserve: p.nativeReserve.toString(),
  token_reserve: p.tokenReserve.toString(),
});

/** Aggregates per-amount outcomes into the token's trading_simulation (pure). */
export function summarize(
  outcomes: AmountOutcome[],
  pool: Pool,
  now: Date,
  maxTx: { amountOut: bigint } | null,
): SimulationReport {
  const amounts: SimulationAmount[] = outcomes.map((o) =>
    'raw' in o ? toSimulationAmount(o.amountIn, o.raw) : failedAmount(o.amountIn, o.error),
  );
  const ran = outcomes
    .map((o, i) => ({ o, a: amounts[i]! }))
    .filter(({ o }) => 'raw' in o)
    .map(({ a }) => a);
  if (ran.length === 0)
    return { ...emptyReport(amounts[0]?.error ?? 'simulation failed', now, pool), amounts };
  const bought = ran.filter((a) => a.buy_ok);
  const sellTax = maxOf(bought.map((a) => a.sell_tax_pct));
  // Honeypot: a position that could be bought cannot be sold, at any amount (a tiered honeypot
  // lets small sells through), or selling costs 90 % or more.
  const trapped = bought.find((a) => !a.sell_ok);
  let honeypotReason: string | null = null;
  if (trapped)
    honeypotReason = `a buy of ${trapped.amount_in_wei} wei succeeded but the sell failed (${trapped.error ?? 'no reason'})`;
  else if (sellTax !== null && sellTax >= HONEYPOT_SELL_TAX_PCT)
    honeypotReason = `sell tax ${sellTax}% is at least ${HONEYPOT_SELL_TAX_PCT}%`;
  const first = bought[0];
  return {
    is_buyable: bought.length > 0,
    is_sellable: bought.length > 0 ? bought.every((a) => a.sell_ok) : null,
    buy_tax_pct: maxOf(bought.map((a) => a.buy_tax_pct)),
    sell_tax_pct: sellTax,
    transfer_tax_pct: maxOf(bought.map((a) => a.transfer_tax_pct)),
    max_tx_amount: maxTx ? maxTx.amountOut.toString() : null,
    simulated_at: now.toISOString(),
    // The simulation ran: why a step failed is in `amounts`, not an error of the run.
    error: null,
    is_honeypot: honeypotReason !== null,
    amounts,
    pool: poolView(pool),
    gas: first ? { buy: first.gas_buy, transfer: first.gas_transfer, sell: first.gas_sell } : null,
    honeypot_reason: honeypotReason,
  };
}

export interface SimulationRun {
  report: SimulationReport;
  pool: Pool | null;
}

/** The whole honeypot test for one token: pool discovery, amounts, max-tx bisection, summary. */
export async function simulateTrading(
  rpc: RpcClient,
  input: SimulateInput,
): Promise<SimulationRun> {
  const now = input.now ?? new Date();
  const token = lower(getAddress(input.token));
  if (token === lower(input.chain.wrappedNative))
    return { report: emptyReport(ERRORS.wrappedNative, now), pool: null };
  if (!input.chain.dexes.some((d) => d.kind === 'v2' && d.router))
    return { report: emptyReport(ERRORS.noRouter, now), pool: null };
  const request = testRequest(input.chain, token);
  let answer: string;
  try {
    answer = await rpc.request<string>(request.method, request.params);
  } catch (error) {
    // Transient failures fail the job (it is retried); a revert of the whole call is an answer.
    if (!(error instanceof RpcError) || error.kind !== 'revert') throw error;
    return { report: emptyReport(`simulation call reverted: ${error.message}`, now), pool: null };
  }
  const { pool, outcomes, maxTx } = decodeTest(input.chain, answer);
  if (!pool) return { report: emptyReport(ERRORS.noLiquidity, now), pool: null };
  return { report: summarize(outcomes, pool, now, maxTx), pool };
}
