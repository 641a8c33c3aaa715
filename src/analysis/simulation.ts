import { randomBytes } from 'node:crypto';
import { AbiCoder, getAddress, Interface, type Result } from 'ethers';
import { loadArtifact } from '../../contracts/artifacts.ts';
import type { ChainConfig } from '../config/chains.ts';
import type { RpcClient, RpcOutcome } from '../evm/rpc.ts';
import type { SimulationAmount, TradingSimulation } from './types.ts';

/**
 * The honeypot test (docs/risk-model.md). The TradeSimulator's runtime code is placed at a fresh address
 * with an eth_call state override (code + native balance): no transaction is ever sent, and any
 * node that honours the override parameter (geth, erigon, reth, anvil, …) can run it. At several
 * amounts, small and large relative to the pool's native reserve, it buys through the main V2
 * pair's router, transfers part to a fresh address, and sells the rest back; one call per amount
 * returns every step's outcome, so a revert in one step still reports the others.
 */

/** Buy amounts, in basis points of the pool's wrapped-native reserve: small to large. */
export const AMOUNT_FRACTIONS_BPS = [10, 100, 1_000, 5_000] as const;
/** Share of the bought tokens sent to a fresh address (the transfer-tax probe). */
export const TRANSFER_BPS = 1_000n;
/** Gas for one simulation call; a buy, a transfer and a sell of even a heavy token use < 2 M. */
export const SIMULATION_GAS = 15_000_000;
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
const PCT_SCALE = 100n; // taxes are reported with two decimals
const ZERO = `0x${'0'.repeat(40)}`;
const coder = AbiCoder.defaultAbiCoder();
const simulatorArtifact = loadArtifact('TradeSimulator');
export const simulatorInterface = new Interface(simulatorArtifact.abi);
const pairInterface = new Interface([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function token0() view returns (address)',
]);
const factoryInterface = new Interface([
  'function getPair(address, address) view returns (address)',
]);

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

/** What the TradeSimulator reports for one amount (raw, as decoded). */
export interface RawStep {
  ok: boolean;
  revertData: string;
  gasUsed: bigint;
}

export interface RawResult {
  buy: RawStep;
  buyExpected: bigint;
  buyReceived: bigint;
  transfer: RawStep;
  transferSent: bigint;
  transferReceived: bigint;
  sell: RawStep;
  sellAmount: bigint;
  sellPairReceived: bigint;
  sellExpectedEth: bigint;
  sellEthReceived: bigint;
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
}

export const lower = (a: string) => a.toLowerCase();
/** `lost` as a percentage of `of`, two decimals, clamped to 0–100 (reflection bonuses read as 0). */
const pct = (lost: bigint, of: bigint): number | null => {
  if (of <= 0n) return null;
  const clamped = lost < 0n ? 0n : lost > of ? of : lost;
  // Rounded to the nearest hundredth: a 3 % fee taken with floor division reads 3, not 2.99.
  return Number((clamped * 100n * PCT_SCALE + of / 2n) / of) / Number(PCT_SCALE);
};

/** Error(string), Panic(uint256), a custom error's selector, or "no reason". */
export function decodeRevert(data: string): string {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  if (hex.length === 0) return 'reverted without a reason';
  const selector = hex.slice(0, 8);
  try {
    if (selector === '08c379a0') return String(coder.decode(['string'], `0x${hex.slice(8)}`)[0]);
    if (selector === '4e487b71')
      return `panic 0x${(coder.decode(['uint256'], `0x${hex.slice(8)}`)[0] as bigint).toString(16)}`;
  } catch {
    // fall through: malformed payload
  }
  return `custom error 0x${selector}`;
}

const step = (s: Result): RawStep => ({
  ok: Boolean(s[0]),
  revertData: String(s[1]),
  gasUsed: BigInt(s[2]),
});

export function decodeRawResult(r: Result): RawResult {
  return {
    buy: step(r[0] as Result),
    buyExpected: BigInt(r[1]),
    buyReceived: BigInt(r[2]),
    transfer: step(r[3] as Result),
    transferSent: BigInt(r[4]),
    transferReceived: BigInt(r[5]),
    sell: step(r[6] as Result),
    sellAmount: BigInt(r[7]),
    sellPairReceived: BigInt(r[8]),
    sellExpectedEth: BigInt(r[9]),
    sellEthReceived: BigInt(r[10]),
  };
}

/**
 * Sell tax: the larger of what the pair did not receive (exact for fee-on-transfer tokens) and
 * the native currency short of the router's quote (catches fees swapped back inside the sell).
 * The quote-based figure can only understate a plain fee (the price curve is concave).
 */
function sellTaxPct(r: RawResult): number | null {
  const byTokens = pct(r.sellAmount - r.sellPairReceived, r.sellAmount);
  const byNative = pct(r.sellExpectedEth - r.sellEthReceived, r.sellExpectedEth);
  if (byTokens === null) return byNative;
  return byNative === null ? byTokens : Math.max(byTokens, byNative);
}

/** One amount's outcome as the API reports it. */
export function toSimulationAmount(amountIn: bigint, r: RawResult): SimulationAmount {
  const buyOk = r.buy.ok;
  const transferRan = buyOk && r.transferSent > 0n;
  const sellRan = buyOk && r.sellAmount > 0n;
  let error: string | null = null;
  if (!buyOk) error = `buy reverted: ${decodeRevert(r.buy.revertData)}`;
  else if (!r.sell.ok) error = `sell reverted: ${decodeRevert(r.sell.revertData)}`;
  else if (transferRan && !r.transfer.ok)
    error = `transfer reverted: ${decodeRevert(r.transfer.revertData)}`;
  return {
    amount_in_wei: amountIn.toString(),
    buy_ok: buyOk,
    sell_ok: buyOk && r.sell.ok,
    transfer_ok: transferRan && r.transfer.ok,
    buy_tax_pct: buyOk ? pct(r.buyExpected - r.buyReceived, r.buyExpected) : null,
    sell_tax_pct: sellRan && r.sell.ok ? sellTaxPct(r) : null,
    transfer_tax_pct:
      transferRan && r.transfer.ok
        ? pct(r.transferSent - r.transferReceived, r.transferSent)
        : null,
    gas_buy: Number(r.buy.gasUsed),
    gas_sell: sellRan ? Number(r.sell.gasUsed) : null,
    gas_transfer: transferRan ? Number(r.transfer.gasUsed) : null,
    error,
  };
}

/** A fresh address nobody holds a key for: the simulator's home for one run. */
export function freshAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

/** A call's answer; null for a revert (an answer about the contract); node failures throw. */
function callResult(outcome: RpcOutcome<string>): string | null {
  if (!outcome.ok) {
    if (outcome.error.kind === 'revert') return null;
    throw outcome.error;
  }
  return outcome.result;
}

/** An ABI answer decoded, or null when it is not one: a factory or pair without code answers
 * '0x', a contract that is no DEX answers anything. Either is "no pool here", never a failure. */
function decodeOrNull(decode: () => unknown[]): unknown[] | null {
  try {
    return decode();
  } catch {
    return null;
  }
}

/**
 * The token's deepest V2 pool against the wrapped native token, over the chain's configured V2
 * DEXes that have a router. null when no pair exists or none holds reserves — including when a
 * configured factory has no code or answers garbage (a misconfigured or missing DEX is "no
 * liquidity": retrying cannot fix it). Node failures still throw, so the job is retried.
 */
export async function findPool(
  rpc: RpcClient,
  chain: ChainConfig,
  token: string,
): Promise<Pool | null> {
  const weth = lower(chain.wrappedNative);
  const dexes = chain.dexes.filter((d) => d.kind === 'v2' && d.router);
  const pools: Pool[] = [];
  for (const dex of dexes) {
    const getPair = factoryInterface.encodeFunctionData('getPair', [token, weth]);
    const [pairOutcome, routerOutcome] = await rpc.batch<string>([
      { method: 'eth_call', params: [{ to: dex.factory, data: getPair }, 'latest'] },
      { method: 'eth_getCode', params: [dex.router, 'latest'] },
    ]);
    // A router without code cannot trade the pool: every simulated buy would revert and read as
    // "not buyable". That DEX offers no pool to simulate, like a factory without code.
    if (callResult(routerOutcome!) === '0x') continue;
    const pairData = callResult(pairOutcome!);
    if (!pairData) continue;
    const decodedPair = decodeOrNull(() =>
      factoryInterface.decodeFunctionResult('getPair', pairData),
    );
    if (!decodedPair) continue;
    const pair = lower(String(decodedPair[0]));
    if (pair === ZERO) continue;
    const [reserves, token0] = await rpc.batch<string>([
      {
        method: 'eth_call',
        params: [{ to: pair, data: pairInterface.encodeFunctionData('getReserves') }, 'latest'],
      },
      {
        method: 'eth_call',
        params: [{ to: pair, data: pairInterface.encodeFunctionData('token0') }, 'latest'],
      },
    ]);
    if (!reserves!.ok || !token0!.ok) continue;
    const decodedReserves = decodeOrNull(() =>
      pairInterface.decodeFunctionResult('getReserves', reserves!.result),
    );
    const decodedToken0 = decodeOrNull(() =>
      pairInterface.decodeFunctionResult('token0', token0!.result),
    );
    if (!decodedReserves || !decodedToken0) continue;
    const [r0, r1] = decodedReserves as [bigint, bigint];
    const tokenIsToken0 = lower(String(decodedToken0[0])) === lower(token);
    const pool: Pool = {
      dex: dex.name,
      factory: dex.factory,
      router: lower(dex.router!),
      pair,
      weth,
      nativeReserve: BigInt(tokenIsToken0 ? r1 : r0),
      tokenReserve: BigInt(tokenIsToken0 ? r0 : r1),
    };
    if (pool.nativeReserve > 0n && pool.tokenReserve > 0n) pools.push(pool);
  }
  pools.sort((a, b) =>
    b.nativeReserve > a.nativeReserve ? 1 : b.nativeReserve < a.nativeReserve ? -1 : 0,
  );
  return pools[0] ?? null;
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

/** Runs the simulator at each amount (one JSON-RPC batch). A call that reverts as a whole is an outcome, not a throw. */
export async function runSimulations(
  rpc: RpcClient,
  pool: Pool,
  token: string,
  amounts: bigint[],
): Promise<AmountOutcome[]> {
  const outcomes = await rpc.batch<string>(amounts.map((a) => simulationRequest(pool, token, a)));
  return outcomes.map((o, i) => {
    const amountIn = amounts[i]!;
    if (!o.ok) {
      // Transient failures fail the job (it is retried); a revert of the whole call is an answer.
      if (o.error.kind !== 'revert') throw o.error;
      return { amountIn, error: `simulation call reverted: ${o.error.message}` };
    }
    const decoded = simulatorInterface.decodeFunctionResult('simulate', o.result)[0] as Result;
    return { amountIn, raw: decodeRawResult(decoded) };
  });
}

const maxOf = (xs: (number | null)[]): number | null => {
  const present = xs.filter((x): x is number => x !== null);
  return present.length === 0 ? null : Math.max(...present);
};

/**
 * The largest buy that succeeds when a larger one fails (a max-tx or max-wallet limit): found by
 * bisection between the largest success and the smallest failure. Returns the pair's gross token
 * output at that amount (what the limit is compared with), or null when no limit shows.
 */
async function detectMaxTx(
  rpc: RpcClient,
  pool: Pool,
  token: string,
  outcomes: AmountOutcome[],
): Promise<{ amountOut: bigint; amountIn: bigint } | null> {
  const decoded = outcomes.filter((o): o is { amountIn: bigint; raw: RawResult } => 'raw' in o);
  const ok = decoded.filter((o) => o.raw.buy.ok);
  const failed = decoded.filter((o) => !o.raw.buy.ok);
  if (ok.length === 0 || failed.length === 0) return null;
  let low = ok.reduce((a, b) => (b.amountIn > a.amountIn ? b : a));
  let high = failed.reduce((a, b) => (b.amountIn < a.amountIn ? b : a)).amountIn;
  // Limits bind large buys only: a failure below a success is something else (not a limit).
  if (high < low.amountIn) return null;
  for (let i = 0; i < MAX_TX_BISECTION_STEPS && high - low.amountIn > 1n; i++) {
    const mid = (low.amountIn + high) / 2n;
    const [probe] = await runSimulations(rpc, pool, token, [mid]);
    if (probe && 'raw' in probe && probe.raw.buy.ok)
      low = probe as { amountIn: bigint; raw: RawResult };
    else high = mid;
  }
  return { amountOut: low.raw.buyExpected, amountIn: low.amountIn };
}

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
    'raw' in o
      ? toSimulationAmount(o.amountIn, o.raw)
      : {
          amount_in_wei: o.amountIn.toString(),
          buy_ok: false,
          sell_ok: false,
          transfer_ok: false,
          buy_tax_pct: null,
          sell_tax_pct: null,
          transfer_tax_pct: null,
          gas_buy: null,
          gas_sell: null,
          gas_transfer: null,
          error: o.error,
        },
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
  const pool = await findPool(rpc, input.chain, token);
  if (!pool) return { report: emptyReport(ERRORS.noLiquidity, now), pool: null };
  const outcomes = await runSimulations(rpc, pool, token, amountsFor(pool.nativeReserve));
  const maxTx = await detectMaxTx(rpc, pool, token, outcomes);
  return { report: summarize(outcomes, pool, now, maxTx), pool };
}
