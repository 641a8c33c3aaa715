import { writeFileSync } from 'node:fs';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { createDb } from '../../db/client.ts';
import { assembleComplete } from '../../db/repositories/complete.ts';
import {
  createTokenRepository,
  type TokenListQuery,
  type TokenRepository,
} from '../../db/repositories/tokens.ts';
import * as schema from '../../db/schema.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';
import { activeIndex, type ScaleShape, scaleAddress, scaleChain } from './scale-seed.ts';

/**
 * The list and detail requests of the scale suite (bench/suites/scale.ts): every filter of
 * GET /api/tokens and the PRO list, timed over HTTP with a cache miss on every request and
 * through the repository in process (the Postgres share), the PRO detail, and EXPLAIN of each.
 */

const SUITE = 'scale';
const LIST_TARGET_MS = 50;
const DETAIL_TARGET_MS = 20;

/** Each kind of list request; `n` makes every request's cache key distinct (always a miss). */
const WORDS = [
  'pepe',
  'moon',
  'inu',
  'doge',
  'rocket',
  'safe',
  'baby',
  'turbo',
  'frog',
  'whale',
  'giga',
  'floki',
  'quantum',
  'degen',
  'gold',
  'cash',
  'swap',
  'dao',
];
const bust = (n: number) => `created_before=${new Date(Date.UTC(2100, 0, 1) + n).toISOString()}`;
export const LIST_KINDS: {
  name: string;
  path: (n: number) => string;
  query: TokenListQuery;
  pro?: boolean;
}[] = [
  {
    name: 'no filter',
    path: (n) => `/api/tokens?limit=100&page=${1 + (n % 5)}&${bust(n)}`,
    query: { page: 1, limit: 100 },
  },
  {
    name: 'chain_id',
    path: (n) => `/api/tokens?limit=100&chain_id=${scaleChain(n)}&page=${1 + (n % 5)}&${bust(n)}`,
    query: { page: 1, limit: 100, chainId: 56 },
  },
  {
    name: 'risk_level',
    path: (n) =>
      `/api/tokens?limit=100&risk_level=${['low', 'medium', 'high', 'honeypot'][n % 4]}&${bust(n)}`,
    query: { page: 1, limit: 100, riskLevel: 'honeypot' },
  },
  {
    name: 'has_liquidity',
    path: (n) => `/api/tokens?limit=100&has_liquidity=true&page=${1 + (n % 5)}&${bust(n)}`,
    query: { page: 1, limit: 100, hasLiquidity: true },
  },
  {
    name: 'is_actively_traded',
    path: (n) => `/api/tokens?limit=100&is_actively_traded=true&page=${1 + (n % 5)}&${bust(n)}`,
    query: { page: 1, limit: 100, isActivelyTraded: true },
  },
  {
    name: 'q (name or symbol)',
    path: (n) => `/api/tokens?limit=100&q=${WORDS[n % WORDS.length]}&${bust(n)}`,
    query: { page: 1, limit: 100, q: 'floki' },
  },
  {
    name: 'q (address prefix)',
    path: (n) => `/api/tokens?limit=100&q=${scaleAddress(n * 977).slice(0, 8)}&${bust(n)}`,
    query: { page: 1, limit: 100, q: '0x1f2e3d' },
  },
  {
    name: 'chain_id + risk_level + has_liquidity',
    path: (n) =>
      `/api/tokens?limit=100&chain_id=${scaleChain(n)}&risk_level=low&has_liquidity=true&${bust(n)}`,
    query: { page: 1, limit: 100, chainId: 1, riskLevel: 'low', hasLiquidity: true },
  },
  {
    // The PRO list's own filters (no risk_level, page or created_before there: unknown parameters
    // are dropped, so they would not make a distinct cache key); each request a distinct
    // (max_risk_score, limit, offset), hence a cache miss.
    name: 'PRO list (max_risk_score)',
    path: (n) =>
      `/api/pro/tokens?max_risk_score=${30 + (n % 70)}&limit=${100 - (Math.floor(n / 70) % 10)}&offset=${100 * (Math.floor(n / 700) % 5)}`,
    query: {
      page: 1,
      limit: 100,
      maxRiskScore: 60,
      sort: { field: 'detected_at', direction: 'desc' },
    },
    pro: true,
  },
];

export async function timeRequests(
  base: string,
  headers: Record<string, string>,
  paths: string[],
): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers });
    const body = await response.text();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50), 1), p99: round(percentile(times, 99), 1) };
}

export interface ApiClient {
  base: string;
  bearer: Record<string, string>;
  proKey: Record<string, string>;
}

export type ListTimes = Map<string, { p50: number; p99: number; postgresP99: number }>;

/** The same queries in process, straight through the repository: the Postgres share of the time. */
async function timeRepository(
  repository: TokenRepository,
  kind: (typeof LIST_KINDS)[number],
  samples: number,
) {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const query = { ...kind.query, page: 1 + (i % 5) };
    const t = performance.now();
    await (kind.pro ? repository.listSummaries(query) : repository.listItems(query));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return round(percentile(times, 99), 1);
}

/** `offset` keeps each request's cache key distinct from every earlier measurement's. */
export async function measureLists(
  api: ApiClient,
  repository: TokenRepository,
  offset: number,
  samples: number,
): Promise<ListTimes> {
  const out: ListTimes = new Map();
  const headers = (kind: (typeof LIST_KINDS)[number]) => (kind.pro ? api.proKey : api.bearer);
  // Warm-up: the API process's first requests pay for connections and compilation.
  for (const kind of LIST_KINDS) {
    await timeRequests(
      api.base,
      headers(kind),
      Array.from({ length: 10 }, (_, i) => kind.path(offset + 1_000_000 + i)),
    );
  }
  for (const kind of LIST_KINDS) {
    const http = await timeRequests(
      api.base,
      headers(kind),
      Array.from({ length: samples }, (_, i) => kind.path(offset + i)),
    );
    out.set(kind.name, { ...http, postgresP99: await timeRepository(repository, kind, samples) });
  }
  return out;
}

/** `small` undefined (a run on reused data): no baseline at a tenth of the table. */
export function listRows(
  large: ListTimes,
  small: ListTimes | undefined,
  tenth: number,
  tokens: number,
): BenchRow[] {
  return LIST_KINDS.flatMap((kind) => {
    const at = large.get(kind.name)!;
    const before = small?.get(kind.name);
    const baseline = (value: number, of: number) =>
      before && {
        metric: `same at ${tenth} tokens`,
        value: of,
        ratio: of === 0 ? 0 : value / of,
      };
    const met = at.p99 <= LIST_TARGET_MS ? 'met' : 'missed';
    return [
      {
        suite: SUITE,
        metric: `GET ${kind.pro ? '/api/pro/tokens' : '/api/tokens'} ${kind.name}, uncached p99`,
        value: at.p99,
        unit: 'ms',
        baseline: baseline(at.p99, before?.p99 ?? 0),
        note: `limit 100, ${tokens} tokens; p50 ${at.p50} ms; target ≤ ${LIST_TARGET_MS} ms: ${met}`,
      },
      {
        suite: SUITE,
        metric: `Postgres share: ${kind.pro ? 'PRO list' : 'list'} ${kind.name} queries p99 (repository, in process)`,
        value: at.postgresP99,
        unit: 'ms',
        baseline: baseline(at.postgresP99, before?.postgresP99 ?? 0),
        note: 'page and total, as the route runs them; no HTTP, authentication, rate limit or cache',
      },
    ];
  });
}

/** Deep pages (offset ~10,000) against the first pages, and the PRO detail of active tokens. */
export async function deepPageAndDetailRows(
  api: ApiClient,
  repository: TokenRepository,
  large: ListTimes,
  shape: ScaleShape,
  samples: number,
): Promise<BenchRow[]> {
  const deep = await timeRequests(
    api.base,
    api.bearer,
    Array.from(
      { length: 20 },
      (_, i) => `/api/tokens?limit=100&page=${100 + i}&${bust(20_000 + i)}`,
    ),
  );
  const first = large.get('no filter')!.p99;
  const detailPaths = Array.from({ length: samples }, (_, k) => {
    const i = activeIndex(shape, k % shape.activeTokens);
    return `/api/pro/tokens/${scaleAddress(i)}?chain_id=${scaleChain(i)}&include_history=true`;
  });
  await timeRequests(api.base, api.proKey, detailPaths.slice(-5));
  const detail = await timeRequests(api.base, api.proKey, detailPaths.slice(0, -5));
  // Same-run references: the same requests again (now cache hits: the route without Postgres), and
  // the reads alone in process for other active tokens not read before (the Postgres share).
  const cached = await timeRequests(api.base, api.proKey, detailPaths.slice(0, -5));
  const reads: number[] = [];
  for (let k = samples; k < 2 * samples; k++) {
    const i = activeIndex(shape, k % shape.activeTokens);
    const started = performance.now();
    await assembleComplete(repository, [{ chainId: scaleChain(i), address: scaleAddress(i) }]);
    reads.push(performance.now() - started);
  }
  reads.sort((a, b) => a - b);
  const readsP99 = round(percentile(reads, 99), 1);
  return [
    {
      suite: SUITE,
      metric: 'GET /api/tokens page 100-119 (offset ~10,000), uncached p99',
      value: deep.p99,
      unit: 'ms',
      baseline: { metric: 'pages 1-5 p99', value: first, ratio: deep.p99 / first },
      note: 'offset pagination: cost grows with the offset',
    },
    {
      suite: SUITE,
      metric: 'GET /api/pro/tokens/{address} with 100 snapshots, uncached p99',
      value: detail.p99,
      unit: 'ms',
      baseline: {
        metric: 'the same requests cached (no Postgres) p99',
        value: cached.p99,
        ratio: cached.p99 === 0 ? 0 : detail.p99 / cached.p99,
      },
      note: `p50 ${detail.p50} ms (cached p50 ${cached.p50} ms); each request a different active token (cache miss); target ≤ ${DETAIL_TARGET_MS} ms: ${detail.p99 <= DETAIL_TARGET_MS ? 'met' : 'missed'}`,
    },
    {
      suite: SUITE,
      metric:
        'Postgres share: PRO detail reads p99 (assembleComplete in process, tokens not read before)',
      value: readsP99,
      unit: 'ms',
      note: `p50 ${round(percentile(reads, 50), 1)} ms; the three parallel reads and the assembly; no HTTP, authentication, rate limit or cache`,
    },
  ];
}

export /** EXPLAIN (ANALYZE, BUFFERS) of the SQL each list filter and the PRO detail send. */
async function explainQueries(
  sql: ReturnType<typeof createDb>['sql'],
  shape: ScaleShape,
  path: string,
) {
  const captured: { query: string; params: unknown[] }[] = [];
  // Recorded at the client, not by drizzle's logger: the history read is sent to it directly (as a
  // prepared statement, db/repositories/token-details.ts).
  const recording = new Proxy(sql, {
    get(target, property, receiver) {
      if (property !== 'unsafe') return Reflect.get(target, property, receiver);
      return (query: string, params?: unknown[], options?: object) => {
        captured.push({ query, params: params ?? [] });
        return target.unsafe(query, params as never[], options);
      };
    },
  });
  const logged = drizzle(recording, { schema });
  const tokens = createTokenRepository(logged);
  const sections: string[] = [];
  const explain = async (title: string, run: () => Promise<unknown>) => {
    captured.length = 0;
    await run();
    const plans: string[] = [];
    for (const { query, params } of captured.filter((c) => !/^\s*explain/i.test(c.query))) {
      const plan = await sql.unsafe(
        `explain (analyze, buffers, costs off) ${query}`,
        params as never[],
      );
      plans.push(`${query}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    sections.push(`### ${title}\n\n${plans.join('\n\n')}`);
  };
  for (const kind of LIST_KINDS) {
    await explain(`${kind.pro ? 'PRO list' : 'list'}: ${kind.name}`, () =>
      kind.pro ? tokens.listSummaries(kind.query) : tokens.listItems(kind.query),
    );
  }
  const i = activeIndex(shape, 1);
  await explain('PRO detail with 100 snapshots', () =>
    assembleComplete(tokens, [{ chainId: scaleChain(i), address: scaleAddress(i) }]),
  );
  writeFileSync(path, `${sections.join('\n\n')}\n`);
  progress(`scale: EXPLAIN output written to ${path}`);
}
