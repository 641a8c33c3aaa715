import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createDb } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { analyses, tokenHistory, tokens } from '../../db/schema.ts';
import { createProAccount, RAISED_LIMITS } from '../../test/support/accounts.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * API benchmark: throughput and latency of the PRO detail and of the token list (limit 100)
 * through the whole API role (authentication by API key, three rate-limit windows, usage counting,
 * the token cache, Postgres), against a bare Express route answering the same body from memory,
 * in the same run. autocannon, 50 connections; server and load generator in separate processes.
 */

const SUITE = 'api';
const CONNECTIONS = 50;
const TOKEN_COUNT = 500;
const HISTORY = 100;
const SERVER_SCRIPT = fileURLToPath(new URL('./api-server.ts', import.meta.url));

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

export async function startServer(args: string[]): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return { port, child };
}

export async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

/** The machine is shared: measure A and B in alternating slices, so a slow spell hits both. */
const SLICES = 3;

function combine(parts: Measured[]): Measured {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    rps: parts.reduce((sum, p) => sum + p.rps, 0) / parts.length,
    p50: median(parts.map((p) => p.p50)),
    p99: median(parts.map((p) => p.p99)),
    requests: parts.reduce((sum, p) => sum + p.requests, 0),
  };
}

async function alternate(
  a: () => Promise<Measured>,
  b: () => Promise<Measured>,
): Promise<[Measured, Measured]> {
  const as: Measured[] = [];
  const bs: Measured[] = [];
  for (let i = 0; i < SLICES; i++) {
    as.push(await a());
    bs.push(await b());
  }
  return [combine(as), combine(bs)];
}

async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  uniquePath?: (n: number) => string,
): Promise<Measured> {
  let n = 0;
  const requests = uniquePath
    ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: uniquePath(n++) }) }]
    : undefined;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers,
    ...(requests ? { requests } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

async function seed(url: string): Promise<{ apiKey: string; target: string }> {
  const handle = createDb(url, { max: 2 });
  try {
    const now = Date.now();
    const rows = Array.from({ length: TOKEN_COUNT }, (_, i): typeof tokens.$inferInsert => ({
      chainId: 1,
      address: addr(0xb000 + i),
      name: `Bench Token ${i}`,
      symbol: `BT${i}`,
      decimals: 18,
      totalSupply: '1000000000000000000000000',
      creationTxHash: `0x${i.toString(16).padStart(64, '0')}`,
      creator: addr(0xc0ffee),
      creatorIsContract: false,
      creationBlockNumber: 1_000 + i,
      creationTimestamp: new Date(now - i * 60_000),
      detectionSource: 'receipt',
      stage: 'bytecode',
      bytecodeHash: `0x${'ee'.repeat(32)}`,
      codeLength: 4_000,
      proxyLike: false,
      currentRiskScore: i % 100,
      currentRiskLevel: i % 100 <= 30 ? 'low' : i % 100 <= 60 ? 'medium' : 'high',
      currentLiquidityUsd: String(1_000 + i),
      isActivelyTraded: true,
      detectedAt: new Date(now - i * 60_000),
    }));
    await handle.db.insert(tokens).values(rows);
    const target = addr(0xb000);
    await handle.db.insert(analyses).values({
      chainId: 1,
      address: target,
      inputHash: 'bench',
      riskScore: 0,
      riskLevel: 'low',
      riskFactors: [
        {
          code: 'renounced',
          points: -5,
          severity: 'info',
          message: 'ownership renounced',
          evidence: [{ kind: 'call', detail: 'owner() is 0x0' }],
        },
      ],
      details: {
        trading_simulation: {
          is_buyable: true,
          is_sellable: true,
          buy_tax_pct: 0,
          sell_tax_pct: 0,
          transfer_tax_pct: 0,
          max_tx_amount: null,
          simulated_at: new Date().toISOString(),
          error: null,
        },
        security_hints: {
          is_proxy: false,
          is_mintable: false,
          ownership_renounced: true,
          liquidity_lock: { locked_pct: 90, burned_pct: 10, lockers: [] },
        },
      },
    });
    await handle.db.insert(tokenHistory).values(
      Array.from({ length: HISTORY }, (_, i) => ({
        chainId: 1,
        address: target,
        bucketAt: new Date(now - i * 60_000),
        riskScore: 0,
        priceUsd: '1.5',
        liquidityUsd: '10000',
        volume24hUsd: '500',
        marketCapUsd: '1500000',
      })),
    );
    const key = await createProAccount(createAccountRepository(handle.db), {
      email: 'bench@example.com',
      keyName: 'bench',
      limits: RAISED_LIMITS,
    });
    return { apiKey: key.apiKey, target };
  } finally {
    await handle.close();
  }
}

/** req/s, p50 and p99 of a route beside the bare route answering the same body. */
function routeRows(
  label: string,
  measured: Measured,
  baseline: Measured,
  note: string,
): BenchRow[] {
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return [
    {
      suite: SUITE,
      metric: `${label} req/s`,
      value: round(measured.rps, 0),
      unit: 'req/s',
      baseline: {
        metric: 'bare Express, same body',
        value: round(baseline.rps, 0),
        ratio: measured.rps / baseline.rps,
      },
      note,
    },
    {
      suite: SUITE,
      metric: `${label} p50`,
      value: measured.p50,
      unit: 'ms',
      baseline: {
        metric: 'bare p50',
        value: baseline.p50,
        ratio: ratio(measured.p50, baseline.p50),
      },
    },
    {
      suite: SUITE,
      metric: `${label} p99`,
      value: measured.p99,
      unit: 'ms',
      baseline: {
        metric: 'bare p99',
        value: baseline.p99,
        ratio: ratio(measured.p99, baseline.p99),
      },
    },
  ];
}

interface Servers {
  api: number;
  bare: number;
  apiKey: string;
  payloads: Record<string, unknown>;
}

/** The API process, the bodies it answers, and the bare server that answers exactly those bodies. */
async function startServers(
  database: Awaited<ReturnType<typeof createTestDatabase>>,
  redis: Awaited<ReturnType<typeof createTestRedis>>,
  dir: string,
  children: ChildProcess[],
  routes: Record<'detail' | 'list', string>,
  apiKey: string,
): Promise<Servers> {
  const api = await startServer([
    'app',
    database.url,
    redis.url,
    redis.prefix,
    database.embedded ? '1' : '10',
  ]);
  children.push(api.child);
  const payloads: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(routes)) {
    const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
      headers: authFor(name, apiKey),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    payloads[name] = await response.json();
  }
  writeFileSync(join(dir, 'payloads.json'), JSON.stringify(payloads));
  const bare = await startServer(['bare', join(dir, 'payloads.json')]);
  children.push(bare.child);
  return { api: api.port, bare: bare.port, apiKey, payloads };
}

/** The list takes the bearer form of the key, the PRO detail the x-api-key header. */
const authFor = (name: string, apiKey: string): Record<string, string> =>
  name === 'list' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };

/** Each cached route in alternating slices with the bare route answering its body. */
async function cachedRouteRows(
  servers: Servers,
  routes: Record<'detail' | 'list', string>,
  seconds: number,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const warm = Math.max(2, Math.round(seconds / 5));
  for (const [name, path] of Object.entries(routes) as [keyof typeof routes, string][]) {
    const auth = authFor(name, servers.apiKey);
    progress(`api: warm-up ${name}`);
    await load(`http://127.0.0.1:${servers.bare}/bare/${name}`, {}, warm);
    await load(`http://127.0.0.1:${servers.api}${path}`, auth, warm);
    progress(
      `api: bare route (${name} body) and GET ${path}, ${SLICES} alternating slices of ${seconds} s each`,
    );
    const [baseline, measured] = await alternate(
      () => load(`http://127.0.0.1:${servers.bare}/bare/${name}`, {}, seconds),
      () => load(`http://127.0.0.1:${servers.api}${path}`, auth, seconds),
    );
    const label = name === 'detail' ? 'GET /api/pro/tokens/{address}' : 'GET /api/tokens?limit=100';
    const bytes = JSON.stringify(servers.payloads[name]).length;
    rows.push(
      ...routeRows(
        label,
        measured,
        baseline,
        `${CONNECTIONS} connections, ${SLICES} × ${seconds} s alternating with the baseline, ${bytes} B body, ${measured.requests} requests`,
      ),
    );
  }
  return rows;
}

/** The list with a distinct (always empty-handed) cache key per request: the Postgres path. */
async function uncachedListRows(servers: Servers, seconds: number): Promise<BenchRow[]> {
  // A distinct millisecond per request (the filter is parsed to a Date, so finer digits would collide).
  const future = (n: number) =>
    `/api/tokens?limit=100&created_before=${new Date(Date.UTC(2100, 0, 1) + n).toISOString()}`;
  progress(
    `api: bare route (list body) and GET /api/tokens?limit=100 with a cache miss on every request, ${SLICES} alternating slices of ${seconds} s each`,
  );
  const [bareList, uncached] = await alternate(
    () => load(`http://127.0.0.1:${servers.bare}/bare/list`, {}, seconds),
    () =>
      load(
        `http://127.0.0.1:${servers.api}/api/tokens`,
        authFor('list', servers.apiKey),
        seconds,
        future,
      ),
  );
  const [rps, p50, p99] = routeRows(
    'GET /api/tokens?limit=100, uncached',
    uncached,
    bareList,
    'a distinct list-cache key per request: Postgres on every request',
  );
  // Only the req/s row compares with the bare route here.
  return [
    rps!,
    { suite: SUITE, metric: p50!.metric, value: p50!.value, unit: 'ms' },
    { suite: SUITE, metric: p99!.metric, value: p99!.value, unit: 'ms' },
  ];
}

/**
 * `npm run bench` suite: requests/s and p50/p99 latency of two API routes against a bare Express
 * route. `seconds` is the length of one slice; each measurement is SLICES slices.
 */
export async function apiThroughput(options: { seconds?: number } = {}): Promise<BenchRow[]> {
  const seconds = options.seconds ?? 5;
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const dir = mkdtempSync(join(tmpdir(), 'tm-bench-api-'));
  const children: ChildProcess[] = [];
  try {
    progress('api: seeding tokens, history and a PRO key with raised limits');
    const { apiKey, target } = await seed(database.url);
    const routes = {
      detail: `/api/pro/tokens/${target}?chain_id=1`,
      list: '/api/tokens?limit=100',
    };
    const servers = await startServers(database, redis, dir, children, routes, apiKey);
    return [
      ...(await cachedRouteRows(servers, routes, seconds)),
      ...(await uncachedListRows(servers, seconds)),
    ];
  } finally {
    await Promise.all(children.map(stopServer));
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([database.drop(), redis.cleanup()]);
  }
}
