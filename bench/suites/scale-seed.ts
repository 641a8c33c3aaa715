import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import type { HistoryRepository } from '../../db/repositories/history.ts';
import { DAY_MS, type HistoryTable, partitionFor } from '../../src/history/retention.ts';

/**
 * Synthetic but realistic data for the scale suite, loaded with COPY: a year of a busy chain
 * group (tokens spread over 365 days on 5 chains, each with an analysis and a creator), and the
 * history that retention keeps for the active tokens after 30 days (24 h of 60 s snapshots, 5 min
 * rollups for the week before, 1 h rollups for the rest of the month).
 */

export const SCALE_CHAINS = [1, 56, 137, 42161, 8453] as const;
const YEAR_MS = 365 * DAY_MS;
const ROWS_PER_CHUNK = 2_000;
const ADJECTIVES = [
  'Baby',
  'Safe',
  'Moon',
  'Based',
  'Turbo',
  'Mega',
  'Giga',
  'Tiny',
  'Golden',
  'Rocket',
  'Shiba',
  'Doge',
  'Pepe',
  'Elon',
  'Floki',
  'Super',
  'Hyper',
  'Quantum',
  'Meta',
  'Degen',
];
const NOUNS = [
  'Inu',
  'Cat',
  'Frog',
  'Coin',
  'Token',
  'Swap',
  'Finance',
  'AI',
  'Chain',
  'Moon',
  'Rocket',
  'Dog',
  'Bear',
  'Bull',
  'Whale',
  'Pump',
  'Dao',
  'Protocol',
  'Cash',
  'Gold',
];
const LEVELS = ['low', 'medium', 'high', 'honeypot'] as const;

/** Deterministic pseudo-random numbers: the same data on every run. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Spread-out addresses (realistic prefixes for the address search), unique by construction. */
export const scaleAddress = (i: number) =>
  `0x${(Math.imul(i + 1, 2_654_435_761) >>> 0).toString(16).padStart(8, '0')}${i.toString(16).padStart(32, '0')}`;
const creatorAddress = (c: number) => `0x${'c'.repeat(8)}${c.toString(16).padStart(32, '0')}`;
export const scaleChain = (i: number) => SCALE_CHAINS[i % SCALE_CHAINS.length]!;

export interface ScaleShape {
  tokens: number;
  activeTokens: number;
  creators: number;
}

/** Token i is active when it falls on the stride: active tokens are spread over the year. */
export const activeIndex = (shape: ScaleShape, k: number) =>
  Math.floor((k * shape.tokens) / shape.activeTokens);

async function copyRows(
  sql: postgres.Sql,
  statement: string,
  rows: () => Generator<string>,
): Promise<number> {
  let count = 0;
  function* chunks() {
    let buffer: string[] = [];
    for (const row of rows()) {
      buffer.push(row);
      count++;
      if (buffer.length >= ROWS_PER_CHUNK) {
        yield buffer.join('');
        buffer = [];
      }
    }
    if (buffer.length > 0) yield buffer.join('');
  }
  const writable = await sql.unsafe(statement).writable();
  await pipeline(Readable.from(chunks()), writable);
  return count;
}

const isoAt = (ms: number) => new Date(ms).toISOString();

/** One COPY line per token [from, to): spread over the year, 95 % scored, 20 % liquid. */
function* tokenRows(shape: ScaleShape, from: number, to: number, nowMs: number) {
  const activeStride = shape.tokens / shape.activeTokens;
  for (let i = from; i < to; i++) {
    const random = mulberry32(i);
    const name = `${ADJECTIVES[Math.floor(random() * ADJECTIVES.length)]} ${NOUNS[Math.floor(random() * NOUNS.length)]}${random() < 0.5 ? ` ${Math.floor(random() * 1000)}` : ''}`;
    const symbol = name
      .split(' ')
      .map((w) => w.slice(0, 3).toUpperCase())
      .join('')
      .slice(0, 8);
    const detected = nowMs - YEAR_MS + Math.floor((i / shape.tokens) * YEAR_MS);
    const scored = random() < 0.95;
    const score = Math.floor(random() * 101);
    const level = scored ? LEVELS[score < 30 ? 0 : score < 60 ? 1 : score < 90 ? 2 : 3] : undefined;
    const active = i % activeStride < 1;
    const liquidity = active || random() < 0.2 ? (random() * 500_000).toFixed(2) : undefined;
    const creator = creatorAddress(Math.floor(random() * shape.creators));
    yield `${[
      scaleChain(i),
      scaleAddress(i),
      name,
      symbol,
      18,
      '1000000000000000000000000',
      creator,
      'f',
      Math.floor(detected / 2_000),
      isoAt(detected),
      'receipt',
      'dex',
      score,
      level ?? '\\N',
      level === 'honeypot' ? 't' : 'f',
      liquidity ?? '\\N',
      active ? 't' : 'f',
      liquidity ? (random() * 0.01).toFixed(12) : '\\N',
      isoAt(detected),
      scored ? isoAt(detected + 5_000) : '\\N',
    ].join('\t')}\n`;
  }
}

/** One analysis per token: two risk factors and a trading simulation. */
function* analysisRows(from: number, to: number) {
  for (let i = from; i < to; i++) {
    const random = mulberry32(i * 7 + 3);
    const score = Math.floor(random() * 101);
    const factors = JSON.stringify([
      {
        code: 'owner_can_mint',
        points: 20,
        severity: 'high',
        message: 'the owner can mint new tokens',
        evidence: [{ kind: 'selector', detail: 'mint(address,uint256)' }],
      },
      {
        code: 'sell_tax',
        points: Math.floor(random() * 30),
        severity: 'medium',
        message: 'sell tax above 10 %',
        evidence: [{ kind: 'simulation', detail: 'sell tax 12.5 %' }],
      },
    ]);
    const details = JSON.stringify({
      trading_simulation: {
        is_buyable: true,
        is_sellable: score < 90,
        buy_tax_pct: 1,
        sell_tax_pct: 12.5,
        transfer_tax_pct: 0,
        max_tx_amount: null,
        error: null,
      },
    });
    yield `${[
      scaleChain(i),
      scaleAddress(i),
      'seed',
      score,
      LEVELS[score < 30 ? 0 : score < 60 ? 1 : score < 90 ? 2 : 3],
      factors,
      details,
    ].join('\t')}\n`;
  }
}

/** Tokens [from, to) with their analyses; creators are loaded once by seedCreators. */
export async function seedTokens(
  sql: postgres.Sql,
  shape: ScaleShape,
  from: number,
  to: number,
  nowMs: number,
): Promise<number> {
  const tokenColumns =
    'chain_id, address, name, symbol, decimals, total_supply, creator, creator_is_contract, creation_block_number, creation_timestamp, detection_source, stage, current_risk_score, current_risk_level, is_honeypot, current_liquidity_usd, is_actively_traded, price_usd, detected_at, risk_updated_at';
  const n = await copyRows(sql, `copy tokens (${tokenColumns}) from stdin`, () =>
    tokenRows(shape, from, to, nowMs),
  );
  await copyRows(
    sql,
    'copy analyses (chain_id, address, input_hash, risk_score, risk_level, risk_factors, details) from stdin',
    () => analysisRows(from, to),
  );
  return n;
}

export async function seedCreators(
  sql: postgres.Sql,
  shape: ScaleShape,
  nowMs: number,
): Promise<number> {
  function* creators() {
    for (let c = 0; c < shape.creators; c++) {
      const random = mulberry32(c * 13 + 5);
      const total = 1 + Math.floor(random() * 10);
      const scams = Math.floor(random() * total);
      yield `${[
        scaleChain(c),
        creatorAddress(c),
        total,
        total - scams,
        scams,
        Math.floor(random() * 101),
        isoAt(nowMs - YEAR_MS),
        isoAt(nowMs),
      ].join('\t')}\n`;
    }
  }
  return copyRows(
    sql,
    'copy creators (chain_id, address, total_tokens, success_count, scam_count, reputation_score, first_seen, last_seen) from stdin',
    creators,
  );
}

/** The history retention keeps after 30 days of operation; returns rows per table. */
export async function seedHistory(
  sql: postgres.Sql,
  history: HistoryRepository,
  shape: ScaleShape,
  nowMs: number,
  days: number,
): Promise<Record<HistoryTable, number>> {
  const MINUTE = 60_000;
  const end = Math.floor(nowMs / MINUTE) * MINUTE;
  const tiers: { table: HistoryTable; step: number; from: number; to: number }[] = [
    { table: 'token_history', step: MINUTE, from: end - DAY_MS, to: end },
    { table: 'token_history_5m', step: 5 * MINUTE, from: end - 7 * DAY_MS, to: end - DAY_MS },
    {
      table: 'token_history_1h',
      step: 60 * MINUTE,
      from: end - days * DAY_MS,
      to: end - 7 * DAY_MS,
    },
  ];
  const counts = {} as Record<HistoryTable, number>;
  for (const tier of tiers) {
    const aligned = Math.ceil(tier.from / tier.step) * tier.step;
    for (let t = aligned; t < tier.to + DAY_MS; t += DAY_MS)
      await history.ensurePartition(partitionFor(tier.table, new Date(Math.min(t, tier.to - 1))));
    function* rows() {
      for (let k = 0; k < shape.activeTokens; k++) {
        const i = activeIndex(shape, k);
        const random = mulberry32(i * 31 + 7);
        let price = random() * 0.01;
        for (let t = aligned; t < tier.to; t += tier.step) {
          price *= 1 + (random() - 0.5) * 0.02;
          const liquidity = 10_000 + random() * 100_000;
          yield `${scaleChain(i)}\t${scaleAddress(i)}\t${isoAt(t)}\t${Math.floor(random() * 101)}\t${price.toFixed(15)}\t${liquidity.toFixed(2)}\t${(liquidity / 10).toFixed(2)}\t${(price * 1e9).toFixed(2)}\n`;
        }
      }
    }
    counts[tier.table] = await copyRows(
      sql,
      `copy ${tier.table} (chain_id, address, bucket_at, risk_score, price_usd, liquidity_usd, volume_24h_usd, market_cap_usd) from stdin`,
      rows,
    );
  }
  return counts;
}
