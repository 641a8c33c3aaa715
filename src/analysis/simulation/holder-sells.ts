import type { Result } from 'ethers';
import { type RpcClient, RpcError, toQuantity } from '../../evm/rpc.ts';
import type { HolderSells } from '../types.ts';
import { decodeRawResult, decodeRevert, type RawResult, sellTaxPct } from './codec.ts';
import {
  freshAddress,
  HONEYPOT_SELL_TAX_PCT,
  lower,
  type Pool,
  simulatorCode,
  simulatorInterface,
  TEST_GAS,
} from './simulation.ts';

/**
 * Real holders' sells (docs/risk-model.md, "Real holders' sells"): the TradeSimulator's code is
 * placed by state override at each holder's own address (its balances stay: only its code changes)
 * and sells the holder's whole balance through the pool, each holder from the same state, all in
 * one eth_call; where the whole balance cannot be sold, a small part is tried (a max-tx limit is
 * no trap). A second eth_call in the same JSON-RPC batch reads the holders' code sizes (no override).
 * Fresh buyers that can sell while real holders cannot is the trap a fresh-buyer simulation misses;
 * a balance below what the holder's Transfers add up to is a siphon.
 */

/** Holders whose sells are simulated, largest first. */
export const MAX_HOLDER_SELLS = 10;
/** The part sold when the whole balance cannot be: 1 %, in basis points. */
export const PART_SELL_BPS = 100n;

export interface HolderCandidate {
  address: string;
  /** The balance the Transfer logs give at `block` (null: not comparable, e.g. tracked after creation). */
  tracked: bigint | null;
}

export interface HolderSellOutcome {
  address: string;
  balance: bigint;
  sold: boolean;
  /** Sold only in part: the whole balance hit a limit. */
  partOnly: boolean;
  tax_pct: number | null;
  reason: string | null;
}

const tag = (block: number | null) => (block === null ? 'latest' : toQuantity(block));

/** The two eth_calls: the holders' sells (holders carry the simulator's code) and their code sizes. */
export function holderSellsRequests(
  pool: Pool,
  token: string,
  holders: readonly string[],
  block: number | null,
  at: string = freshAddress(),
) {
  const code = simulatorCode();
  const override = Object.fromEntries([at, ...holders].map((a) => [a, { code }]));
  const sells = simulatorInterface.encodeFunctionData('sellHolders', [
    holders,
    pool.router,
    lower(token),
    pool.pair,
    pool.weth,
    PART_SELL_BPS,
  ]);
  const gas = `0x${TEST_GAS.toString(16)}`;
  const sizes = simulatorInterface.encodeFunctionData('codeSizes', [holders]);
  const reader = freshAddress();
  return [
    {
      method: 'eth_call',
      params: [{ to: at, from: freshAddress(), data: sells, gas }, tag(block), override],
    },
    {
      method: 'eth_call',
      params: [{ to: reader, data: sizes, gas }, tag(block), { [reader]: { code } }],
    },
  ];
}

function outcomeOf(h: Result): HolderSellOutcome {
  const address = lower(String(h[0]));
  const balance = BigInt(h[1]);
  const whole = h[2] ? decodeRawResult(h[3] as Result) : null;
  const part = h[5] ? decodeRawResult(h[6] as Result) : null;
  const failure = String(h[4]);
  const sold = (r: RawResult | null) => r?.sell.ok === true;
  const used = sold(whole) ? whole : sold(part) ? part : null;
  const reason = used
    ? null
    : whole
      ? decodeRevert(whole.sell.revertData)
      : failure !== '0x'
        ? `the sell reverted as a whole: ${decodeRevert(failure)}`
        : 'nothing sold';
  return {
    address,
    balance,
    sold: used !== null,
    partOnly: used !== null && used === part,
    tax_pct: used ? sellTaxPct(used) : null,
    reason,
  };
}

/** Decodes the answers and summarizes them (pure). */
export function summarizeHolderSells(
  candidates: readonly HolderCandidate[],
  answer: string,
  block: number | null,
  holderCount: number,
  now: Date,
): { sells: HolderSells; outcomes: HolderSellOutcome[] } {
  const decoded = simulatorInterface.decodeFunctionResult('sellHolders', answer)[0] as Result;
  const outcomes = decoded.map(outcomeOf).filter((o) => o.balance > 0n);
  const taxes = outcomes.flatMap((o) => (o.tax_pct === null ? [] : [o.tax_pct]));
  const failures = outcomes.flatMap((o) => {
    if (!o.sold) return [{ address: o.address, reason: o.reason ?? 'sell failed' }];
    if (o.tax_pct !== null && o.tax_pct >= HONEYPOT_SELL_TAX_PCT)
      return [{ address: o.address, reason: `sell tax ${o.tax_pct}%` }];
    return [];
  });
  const tracked = new Map(candidates.map((c) => [c.address, c.tracked]));
  const siphoned = outcomes.flatMap((o) => {
    const t = tracked.get(o.address) ?? null;
    return t !== null && o.balance < t
      ? [{ address: o.address, tracked_balance: t.toString(), balance: o.balance.toString() }]
      : [];
  });
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    outcomes,
    sells: {
      tried: outcomes.length,
      failed: failures.length,
      average_tax_pct: taxes.length ? round(taxes.reduce((s, t) => s + t, 0) / taxes.length) : null,
      max_tax_pct: taxes.length ? Math.max(...taxes) : null,
      block,
      holder_count: holderCount,
      failures,
      siphoned,
      simulated_at: now.toISOString(),
    },
  };
}

export function emptySells(block: number | null, holderCount: number, now: Date): HolderSells {
  return {
    tried: 0,
    failed: 0,
    average_tax_pct: null,
    max_tax_pct: null,
    block,
    holder_count: holderCount,
    failures: [],
    siphoned: [],
    simulated_at: now.toISOString(),
  };
}

export interface HolderSellRun {
  sells: HolderSells;
  outcomes: HolderSellOutcome[];
  /** Whether each candidate has code (read without the override). */
  contracts: { holder: string; isContract: boolean }[];
}

/**
 * Simulates the sells of `candidates` at `block` (the block the tracked balances are at; null:
 * latest, and no siphon comparison). One JSON-RPC batch of two eth_calls. A revert of the whole
 * call is an answer (reported as no sells); node failures throw (the job is retried).
 */
export async function simulateHolderSells(
  rpc: RpcClient,
  input: {
    pool: Pool;
    token: string;
    candidates: readonly HolderCandidate[];
    block: number | null;
    holderCount: number;
    now?: Date;
  },
): Promise<HolderSellRun | null> {
  const holders = input.candidates.slice(0, MAX_HOLDER_SELLS).map((c) => lower(c.address));
  // Nobody to try (only pools, lockers, the creator): recorded, so that the count says when to try.
  if (holders.length === 0)
    return {
      sells: emptySells(input.block, input.holderCount, input.now ?? new Date()),
      outcomes: [],
      contracts: [],
    };
  const [sells, sizes] = await rpc.batch<string>(
    holderSellsRequests(input.pool, input.token, holders, input.block),
  );
  if (!sells?.ok) {
    if (sells && sells.error instanceof RpcError && sells.error.kind === 'revert') return null;
    throw sells?.error ?? new RpcError('bad-response', 'holder sells: no answer');
  }
  const { sells: summary, outcomes } = summarizeHolderSells(
    input.candidates.map((c) => ({ ...c, address: lower(c.address) })),
    sells.result,
    input.block,
    input.holderCount,
    input.now ?? new Date(),
  );
  const codeSizes = sizes?.ok
    ? (simulatorInterface.decodeFunctionResult('codeSizes', sizes.result)[0] as bigint[])
    : [];
  const contracts = codeSizes.map((size, i) => ({
    holder: holders[i]!,
    isContract: BigInt(size) > 0n,
  }));
  return { sells: summary, outcomes, contracts };
}
