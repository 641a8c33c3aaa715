import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderChainsTables } from './render-chains.ts';
import type { BenchMachine, BenchRow, SuiteOutcome } from './report.ts';

/**
 * `npm run bench:report`: renders the README's benchmark summary and the tables of
 * docs/benchmarks.md from bench/results.json, between marker comments, so the figures quoted in the
 * documentation are the measured ones and cannot drift. `--check` writes nothing and exits 1 when a
 * committed table differs from what this renders (bench/render-report.test.ts runs it in npm test).
 */

export interface BenchResults {
  generated_at: string;
  machine: BenchMachine;
  parameters: Record<string, unknown>;
  results: BenchRow[];
  /** Each suite's outcome, with the date and host of its run (files before them have none). */
  suites?: Record<string, SuiteOutcome>;
  notes?: string;
}

/** The figures the README shows, by suite and metric; one absent from the results is left out. */
export const HEADLINES: readonly { suite: string; metric: string }[] = [
  { suite: 'detection', metric: 'scanner catch-up blocks/s (scan → detect → bytecode)' },
  { suite: 'detection', metric: 'block → token.created on WS, p50' },
  { suite: 'chains', metric: 'bsc catch-up blocks/s (scan → detect → bytecode)' },
  { suite: 'bytecode-stages', metric: 'analyzeBytecode throughput (2000 mainnet contracts)' },
  { suite: 'analysis', metric: 'analysis tokens/s (selectors → simulate → risk)' },
  { suite: 'accuracy', metric: 'honeypot recall' },
  { suite: 'accuracy', metric: 'dev set (set-code) mint F1' },
  { suite: 'accuracy', metric: 'dev set (set-code) leak F1' },
  { suite: 'accuracy', metric: 'dev set (set-code) limit F1' },
  { suite: 'accuracy', metric: 'dev set (set-code) analysis per token, p99' },
  { suite: 'dex', metric: 'refresh tokens/s (Multicall3)' },
  { suite: 'dex', metric: 'RPC requests per token (Multicall3)' },
  { suite: 'api', metric: 'GET /api/pro/tokens/{address} req/s' },
  { suite: 'api', metric: 'GET /api/tokens?limit=100 req/s' },
  { suite: 'analysis', metric: 'JSON-RPC calls per token (pipeline)' },
  {
    suite: 'websocket',
    metric: 'steady fan-out latency p99 (10000 clients, 10 events/s for 60 s)',
  },
  { suite: 'websocket', metric: 'burst of 1000 events: the last client has them all after' },
  { suite: 'replay', metric: 'replay blocks/s with live scanning alongside' },
  { suite: 'replay', metric: 'replay blocks/s alone against the raw RPC ceiling' },
  { suite: 'holders', metric: 'replay with holder tracking, Transfer logs/s' },
  { suite: 'scale', metric: 'GET /api/tokens no filter, uncached p99' },
  { suite: 'scale', metric: 'GET /api/pro/tokens/{address} with 100 snapshots, uncached p99' },
  {
    suite: 'scale',
    metric: 'history growth per day at 10,000 active tokens, after (1 h rollups only)',
  },
  { suite: 'soak', metric: 'growth over the second half of the run' },
];

export interface Target {
  file: string;
  marker: string;
  render(results: BenchResults): string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = 'bench/results.json';

const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const cell = (text: string) => text.replaceAll('|', '\\|');
const valueCell = (row: { value: number; unit: string }) =>
  row.unit === 'ratio' ? decimal.format(row.value) : `${decimal.format(row.value)} ${row.unit}`;
const ratioOf = (row: BenchRow) =>
  row.baseline ? `${decimal.format(Math.round(row.baseline.ratio * 1000) / 10)} %` : '';
const noteOf = (row: BenchRow) => cell(row.note ?? '');
const baselineOf = (row: BenchRow) =>
  row.baseline ? `${cell(row.baseline.metric)}: ${decimal.format(row.baseline.value)}` : '';

const SOURCE = `Rendered from \`${RESULTS}\` by \`npm run bench:report\``;
const describeMachine = (m: BenchMachine) =>
  `${m.cpus} × ${m.cpu_model}, ${m.memory_gib} GiB, Node ${m.node}`;

/**
 * When and where a suite ran. Suites are re-run one at a time, so the file's own date and host
 * describe only the newest run; a suite's outcome carries its own (a file written before outcomes
 * existed has one run for everything).
 */
function runOf(results: BenchResults, suite: string): string {
  if (!results.suites)
    return `run of ${results.generated_at.slice(0, 10)} on ${describeMachine(results.machine)}`;
  const group = results.results.find((r) => r.suite === suite)?.group ?? suite;
  const outcome = results.suites[group];
  if (!outcome) return 'run date and host not recorded';
  const when = outcome.finished_at.slice(0, 10);
  return outcome.machine
    ? `run of ${when} on ${describeMachine(outcome.machine)}`
    : `run of ${when}, host not recorded`;
}

function provenance(results: BenchResults, suite?: string): string {
  const notes = results.notes ? ` (${results.notes})` : '';
  if (suite) return `_${SOURCE}: ${runOf(results, suite)}${notes}._`;
  if (!results.suites) return `_${SOURCE}: ${runOf(results, '')}${notes}._`;
  return `_${SOURCE}; each suite's run (date and host) is named in [docs/benchmarks.md](docs/benchmarks.md#results)${notes}._`;
}

export function renderSummary(results: BenchResults): string {
  const rows = HEADLINES.flatMap(({ suite, metric }) =>
    results.results.filter((r) => r.suite === suite && r.metric === metric),
  );
  const lines = [
    '| suite | metric | value | baseline in the same run | ratio |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.suite} | ${cell(r.metric)} | ${valueCell(r)} | ${baselineOf(r)} | ${ratioOf(r)} |`,
    ),
    '',
    provenance(results),
  ];
  return lines.join('\n');
}

export function renderResults(results: BenchResults): string {
  const suites = [...new Set(results.results.map((r) => r.suite))];
  const sections = suites.map((suite) => {
    const rows = results.results.filter((r) => r.suite === suite);
    const parameters = results.parameters[suite];
    return [
      `### ${suite}`,
      '',
      ...(results.suites ? [`_The ${runOf(results, suite)}._`, ''] : []),
      ...(parameters ? [`Parameters: \`${JSON.stringify(parameters)}\``, ''] : []),
      '| metric | value | baseline in the same run | ratio | note |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${cell(r.metric)} | ${valueCell(r)} | ${baselineOf(r)} | ${ratioOf(r)} | ${noteOf(r)} |`,
      ),
    ].join('\n');
  });
  const header = results.suites ? `_${SOURCE}; each suite names its run._` : provenance(results);
  return [header, '', ...sections.flatMap((s) => [s, ''])].join('\n').trimEnd();
}

/** Precision, recall and F1 per capability and study label, per set (docs/risk-model.md). */
/** The five-chain run (docs/scale.md): tables by chain and process, then where it ran. */
export function renderChains(results: BenchResults): string {
  const tables = renderChainsTables(results.results, results.parameters.chains);
  return results.results.some((r) => r.suite === 'chains')
    ? `${tables}\n\n${provenance(results, 'chains')}`
    : tables;
}

export function renderAccuracy(results: BenchResults): string {
  const value = (metric: string) =>
    results.results.find((r) => r.suite === 'accuracy' && r.metric === metric)?.value;
  const sets = [
    'dev set (set-code)',
    'dev set (set-code) names only',
    'dev set (launched)',
    'dev set (launched) names only',
    'modern set',
    'modern set names only',
    'own corpus',
  ];
  const labels = [
    'mint',
    'leak',
    'limit',
    'label mint',
    'label freeze',
    'label disable_transfer',
    'label burn_from',
    'label arbitrary_transfer',
  ];
  const rows: string[] = [];
  for (const set of sets) {
    for (const label of labels) {
      const [p, r, f] = ['precision', 'recall', 'F1'].map((m) => value(`${set} ${label} ${m}`));
      if (p === undefined || r === undefined || f === undefined) continue;
      const note =
        results.results.find(
          (x) => x.suite === 'accuracy' && x.metric === `${set} ${label} precision`,
        )?.note ?? '';
      rows.push(
        `| ${set} | ${label.replace('label ', 'study label ')} | ${decimal.format(p)} | ${decimal.format(r)} | ${decimal.format(f)} | ${note} |`,
      );
    }
  }
  const p99 = ['dev set (set-code)', 'dev set (launched)', 'modern set']
    .filter((set) => value(`${set} analysis per token, p99`) !== undefined)
    .map(
      (set) =>
        `${set}: ${decimal.format(value(`${set} analysis per token, p99`) ?? Number.NaN)} ms`,
    )
    .join(', ');
  return [
    '| set | label | precision | recall | F1 | counts |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Analysis per token in process (analyzeStatic + score), p99: ${p99}.`,
    '',
    ...recognitionLines(results),
    provenance(results, 'accuracy'),
  ].join('\n');
}

/** Token recognition of the 2,000 mainnet contracts placed with anvil_setCode: a sentence and a blank line, when measured. */
function recognitionLines(results: BenchResults): string[] {
  const row = (metric: string) =>
    results.results.find((r) => r.suite === 'accuracy' && r.metric === metric);
  const routing = row('mainnet corpus routing the transfer surface');
  const recognised = row('mainnet corpus recognised as tokens');
  if (!routing || !recognised) return [];
  return [
    `Recognition of the 2,000 mainnet contracts placed with \`anvil_setCode\`: ` +
      `${decimal.format(recognised.value)} recognised as tokens, of ${decimal.format(routing.value)} ` +
      `whose dispatcher routes the transfer surface (${recognised.note}).`,
    '',
  ];
}

/** The README's accuracy table: precision, recall and F1 of the three capabilities per set. */
export function renderAccuracySummary(results: BenchResults): string {
  const value = (metric: string) =>
    results.results.find((r) => r.suite === 'accuracy' && r.metric === metric)?.value;
  const rows = [
    'dev set (set-code)',
    'dev set (set-code) names only',
    'dev set (launched)',
    'dev set (launched) names only',
    'own corpus',
  ].flatMap((set) =>
    ['mint', 'leak', 'limit'].flatMap((label) => {
      const [p, r, f] = ['precision', 'recall', 'F1'].map((m) => value(`${set} ${label} ${m}`));
      if (p === undefined || r === undefined || f === undefined) return [];
      const [pct, rct, fct] = [p, r, f].map(
        (x) => `${decimal.format(Math.round(x * 1000) / 10)} %`,
      );
      return [`| ${set} | ${label} | ${pct} | ${rct} | ${fct} |`];
    }),
  );
  return [
    '| set | capability | precision | recall | F1 |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    ...recognitionLines(results),
    provenance(results, 'accuracy'),
  ].join('\n');
}

/** The back-pressure runs (docs/scale.md): the `burst` suite's rows, then where it ran. */
export function renderBurst(results: BenchResults): string {
  const rows = results.results.filter((r) => r.suite === 'burst');
  if (rows.length === 0) return '_No `burst` run in bench/results.json yet._';
  return [
    '| metric | value | baseline in the same run | ratio | note |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.metric)} | ${valueCell(r)} | ${baselineOf(r)} | ${ratioOf(r)} | ${noteOf(r)} |`,
    ),
    '',
    provenance(results, 'burst'),
  ].join('\n');
}

export const TARGETS: readonly Target[] = [
  { file: 'README.md', marker: 'bench:summary', render: renderSummary },
  { file: 'README.md', marker: 'bench:accuracy-summary', render: renderAccuracySummary },
  { file: 'docs/benchmarks.md', marker: 'bench:results', render: renderResults },
  { file: 'docs/risk-model.md', marker: 'bench:accuracy', render: renderAccuracy },
  { file: 'docs/scale.md', marker: 'bench:chains', render: renderChains },
  { file: 'docs/scale.md', marker: 'bench:burst', render: renderBurst },
];

/** `text` with the block between `<!-- marker -->` and `<!-- /marker -->` replaced by `content`. */
export function replaceBetweenMarkers(text: string, marker: string, content: string): string {
  const open = `<!-- ${marker} -->`;
  const close = `<!-- /${marker} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`markers ${open} … ${close} not found`);
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}

export function loadResults(root = ROOT): BenchResults {
  return JSON.parse(readFileSync(`${root}/${RESULTS}`, 'utf8')) as BenchResults;
}

/** Each target's committed text and the text this renders. */
export function renderTargets(
  root = ROOT,
): { file: string; committed: string; rendered: string }[] {
  const results = loadResults(root);
  return TARGETS.map((target) => {
    const committed = readFileSync(`${root}/${target.file}`, 'utf8');
    return {
      file: target.file,
      committed,
      rendered: replaceBetweenMarkers(committed, target.marker, target.render(results)),
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { file, committed, rendered } of renderTargets()) {
    if (committed === rendered) continue;
    if (check) {
      stale++;
      console.error(`${file}: benchmark tables differ from ${RESULTS}; run npm run bench:report`);
    } else {
      writeFileSync(`${ROOT}/${file}`, rendered);
      console.log(`${file}: tables rendered from ${RESULTS}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}
