import { once } from 'node:events';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  type HistoryRow,
  type TokenRepository,
  type TokenRow,
  tokenKey,
} from '../../db/repositories/tokens.ts';
import { historyItem } from '../../src/tokens/complete.ts';
import { holderSellsView, holdersView, impersonatesView } from '../../src/tokens/holders-view.ts';
import { dataQualityScore } from '../../src/tokens/quality.ts';
import { isHoneypotOf, lastUpdatedOf, qualityInputOf, toNumber } from '../../src/tokens/view.ts';
import { type RouteSpec, route } from '../route.ts';
import { includeFlag, proFilterShape, toProListQuery } from './pro-filters.ts';

/**
 * `GET /api/pro/export`: every token the PRO list's filters match, as NDJSON or CSV, streamed
 * from a Postgres cursor one batch at a time and written with backpressure (the next batch is read
 * only once the socket drained), so memory stays flat however many rows match. It is one request
 * against the key's limits, however long it streams.
 */

/** Rows read from the cursor per round trip (and histories looked up per query). */
export const EXPORT_BATCH_SIZE = 500;
/** Snapshots per token with include_history=true. */
export const EXPORT_HISTORY_LIMIT = 100;

/** The columns of an export record, in CSV order. */
export const EXPORT_COLUMNS = [
  'contract_address',
  'chain_id',
  'name',
  'symbol',
  'decimals',
  'total_supply',
  'creator',
  'born_block',
  'block_timestamp',
  'current_risk_score',
  'current_risk_level',
  'is_honeypot',
  'current_liquidity_usd',
  'price_usd',
  'market_cap_usd',
  'volume_24h_usd',
  'is_actively_traded',
  'data_quality_score',
  'last_updated',
  // The holder parts (docs/api.md): flat, so that a CSV carries them too.
  'holder_count',
  'creator_percent',
  'top10_outside_pools_percent',
  'burned_percent',
  'holder_sells_tried',
  'holder_sells_failed',
  'impersonates',
] as const;
const HISTORY_COLUMNS = [
  'timestamp',
  'risk_score',
  'price_usd',
  'liquidity_usd',
  'volume_24h_usd',
  'market_cap_usd',
] as const;

export function exportRecord(
  row: TokenRow,
  nowMs: number,
): Record<(typeof EXPORT_COLUMNS)[number], unknown> {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    total_supply: row.totalSupply,
    creator: row.creator,
    born_block: row.creationBlockNumber,
    block_timestamp: row.creationTimestamp
      ? Math.floor(row.creationTimestamp.getTime() / 1000)
      : null,
    current_risk_score: row.currentRiskScore,
    current_risk_level: row.currentRiskLevel,
    is_honeypot: isHoneypotOf(row),
    current_liquidity_usd: toNumber(row.currentLiquidityUsd),
    price_usd: toNumber(row.priceUsd),
    market_cap_usd: toNumber(row.marketCapUsd),
    volume_24h_usd: toNumber(row.volume24hUsd),
    is_actively_traded: row.isActivelyTraded,
    data_quality_score: dataQualityScore(qualityInputOf(row), nowMs),
    last_updated: lastUpdatedOf(row),
    ...holderColumns(row),
  };
}

/** The holders report, real holders' sells and look-alike, as flat columns (null: not measured). */
function holderColumns(row: TokenRow) {
  const { holders } = holdersView(row.holders);
  const sells = holderSellsView(row.tradingSimulation);
  const look = impersonatesView(row.securityHints);
  return {
    holder_count: holders?.holder_count ?? null,
    creator_percent: holders?.creator_percent ?? null,
    top10_outside_pools_percent: holders?.top10_outside_pools_percent ?? null,
    burned_percent: holders?.burned_percent ?? null,
    holder_sells_tried: sells?.tried ?? null,
    holder_sells_failed: sells?.failed ?? null,
    impersonates: look ? `${look.symbol} ${look.canonical_address}` : null,
  };
}

/** RFC 4180: quoted when it holds a comma, quote or line break; empty for null. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (values: readonly unknown[]) => `${values.map(csvField).join(',')}\r\n`;

/** What one batch becomes on the wire. */
function encodeBatch(
  format: 'ndjson' | 'csv',
  rows: TokenRow[],
  histories: Map<string, HistoryRow[]> | undefined,
  nowMs: number,
): string {
  let out = '';
  for (const row of rows) {
    const record = exportRecord(row, nowMs);
    const history = histories?.get(tokenKey(row))?.map(historyItem);
    if (format === 'ndjson') {
      out += `${JSON.stringify(history ? { ...record, token_history: history } : record)}\n`;
    } else if (!history) {
      out += csvLine(EXPORT_COLUMNS.map((c) => record[c]));
    } else {
      // One line per snapshot (the token's columns repeated); a token without snapshots gets one line.
      const snapshots = history.length > 0 ? history : [undefined];
      for (const s of snapshots)
        out += csvLine([
          ...EXPORT_COLUMNS.map((c) => record[c]),
          ...HISTORY_COLUMNS.map((c) => s?.[c] ?? null),
        ]);
    }
  }
  return out;
}

async function write(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    // Whichever comes first; the other listener is removed, so listeners never pile up.
    const settled = new AbortController();
    await Promise.race([
      once(res, 'drain', { signal: settled.signal }),
      once(res, 'close', { signal: settled.signal }),
    ]).finally(() => settled.abort());
  }
  return !res.destroyed;
}

export interface ExportDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  guard: RequestHandler[];
  logger: Logger;
}

export function exportRoute(deps: ExportDeps): RouteSpec {
  const query = z.object({
    format: z
      .enum(['ndjson', 'csv'], 'must be ndjson or csv')
      .default('ndjson')
      .describe('ndjson (default) or csv'),
    ...proFilterShape(deps.knownChainIds),
    include_history: includeFlag(false).describe(
      `default false: up to ${EXPORT_HISTORY_LIMIT} snapshots per token (CSV: one line per snapshot)`,
    ),
  });
  return route({
    method: 'get',
    path: '/api/pro/export',
    tag: 'PRO',
    auth: 'pro',
    guard: deps.guard,
    query,
    summary: 'Every token the PRO list filters match, streamed as NDJSON or CSV (PRO key)',
    description:
      "Newest first. One request against the key's limits, however many rows. NDJSON: one export record per line (with token_history when asked). CSV: a header line, then one line per token, or per snapshot with include_history=true.",
    responses: {
      200: {
        description: 'The stream',
        content: {
          'application/x-ndjson': { description: 'one JSON export record per line' },
          'text/csv': {
            description: `header: ${EXPORT_COLUMNS.join(',')} (then ${HISTORY_COLUMNS.map((c) => `snapshot_${c}`).join(',')} with history)`,
          },
        },
      },
      403: { description: '`PRO plan required`' },
    },
    async handler({ query: q }, req, res) {
      const withHistory = q.include_history;
      res.status(200);
      res.type(
        q.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      );
      res.set('Content-Disposition', `attachment; filename="tokens.${q.format}"`);
      res.set('Cache-Control', 'no-store');
      res.flushHeaders();
      if (q.format === 'csv') {
        const header = [
          ...EXPORT_COLUMNS,
          ...(withHistory ? HISTORY_COLUMNS.map((c) => `snapshot_${c}`) : []),
        ];
        if (!(await write(res, csvLine(header)))) return undefined;
      }
      const batches = deps.tokens.listBatches(toProListQuery(q), EXPORT_BATCH_SIZE);
      try {
        for await (const rows of batches) {
          const histories = withHistory
            ? await deps.tokens.histories(
                rows.map((r) => ({ chainId: r.chainId, address: r.address })),
                EXPORT_HISTORY_LIMIT,
              )
            : undefined;
          // A client that went away ends the cursor (the for-await's return closes it).
          if (!(await write(res, encodeBatch(q.format, rows, histories, Date.now())))) break;
        }
        res.end();
      } catch (error) {
        // Headers are out: the only honest signal left is a truncated stream.
        deps.logger.error({ err: error, path: req.path }, 'export failed mid-stream');
        res.destroy(error as Error);
      }
      return undefined;
    },
  });
}
