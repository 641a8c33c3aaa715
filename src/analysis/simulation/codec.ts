import { AbiCoder, type Result } from 'ethers';
import { HOOK_CALLBACK_BY_SELECTOR } from '../../dex/v4/index.ts';
import type { SimulationAmount } from '../types.ts';

/**
 * The TradeSimulator's answers (contracts/src/service/TradeSimulator.sol) decoded, and one amount's
 * outcome read as the API reports it: taxes, step outcomes, revert reasons. Pure.
 */

const PCT_SCALE = 100n; // taxes are reported with two decimals
const coder = AbiCoder.defaultAbiCoder();

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

/** `lost` as a percentage of `of`, two decimals, clamped to 0–100 (reflection bonuses read as 0). */
export const pct = (lost: bigint, of: bigint): number | null => {
  if (of <= 0n) return null;
  const clamped = lost < 0n ? 0n : lost > of ? of : lost;
  // Rounded to the nearest hundredth: a 3 % fee taken with floor division reads 3, not 2.99.
  return Number((clamped * 100n * PCT_SCALE + of / 2n) / of) / Number(PCT_SCALE);
};

/** Uniswap V4's CustomRevert.WrappedError(address target, bytes4 selector, bytes reason, bytes details): how the PoolManager reports a hook's revert. */
const WRAPPED_ERROR = '90bfb865';
/** V4 Hooks.InvalidHookResponse(): a hook answered with the wrong selector, or not at all (no code). */
const INVALID_HOOK_RESPONSE = '1e048e1d';
const MAX_WRAP_DEPTH = 4;

/** A V4 hook's revert as the PoolManager wraps it: which hook, in which callback, and why. */
function wrappedError(hex: string, depth: number): string {
  const [target, selector, reason] = coder.decode(
    ['address', 'bytes4', 'bytes', 'bytes'],
    `0x${hex.slice(8)}`,
  ) as unknown as [string, string, string];
  const callback = HOOK_CALLBACK_BY_SELECTOR.get(selector.slice(2)) ?? `0x${selector.slice(2)}`;
  return `hook ${target.toLowerCase()} reverted in ${callback}: ${decodeRevert(reason, depth + 1)}`;
}

/** Error(string), Panic(uint256), a V4 hook's wrapped revert, a custom error's selector, or "no reason". */
export function decodeRevert(data: string, depth = 0): string {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  if (hex.length === 0) return 'reverted without a reason';
  const selector = hex.slice(0, 8);
  try {
    if (selector === WRAPPED_ERROR && depth < MAX_WRAP_DEPTH) return wrappedError(hex, depth);
    if (selector === INVALID_HOOK_RESPONSE)
      return 'the hook gave no valid answer (InvalidHookResponse: a hook address without code, or a wrong selector)';
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
export function sellTaxPct(r: RawResult): number | null {
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

/** An amount whose simulation reverted as a whole: every step unknown, the reason kept. */
export function failedAmount(amountIn: bigint, error: string): SimulationAmount {
  return {
    amount_in_wei: amountIn.toString(),
    buy_ok: false,
    sell_ok: false,
    transfer_ok: false,
    buy_tax_pct: null,
    sell_tax_pct: null,
    transfer_tax_pct: null,
    gas_buy: null,
    gas_sell: null,
    gas_transfer: null,
    error,
  };
}
