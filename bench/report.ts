import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** Benchmark reporting: a table on stdout and bench/results.json. */

export interface BenchRow {
  suite: string;
  metric: string;
  value: number;
  unit: string;
  /** What the value is compared with, measured in the same run. */
  baseline?: { metric: string; value: number; ratio: number };
  note?: string;
  /** The `npm run bench` suite (its `--only` name) that produced the row. */
  group?: string;
}

/** How each suite of a run ended; a failed suite keeps the rows of the others. */
/** The host a benchmark ran on (each suite records its own: suites of one file may differ). */
export interface BenchMachine {
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  node: string;
}

export interface SuiteOutcome {
  status: 'ok' | 'failed';
  finished_at: string;
  seconds: number;
  error?: string;
  machine?: BenchMachine;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export function progress(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}

export function printTable(rows: BenchRow[]) {
  const header = ['suite', 'metric', 'value', 'unit', 'baseline', 'ratio'];
  const body = rows.map((r) => [
    r.suite,
    r.metric,
    String(r.value),
    r.unit,
    r.baseline ? `${r.baseline.metric} = ${r.baseline.value}` : '',
    r.baseline ? `${round(r.baseline.ratio * 100, 1)}%` : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of body) console.log(line(row));
}

interface ResultsFile {
  generated_at: string;
  machine: BenchMachine;
  parameters: Record<string, unknown>;
  results: BenchRow[];
  suites?: Record<string, SuiteOutcome>;
}

/** Rows of results files written before rows named their group. */
const LEGACY_GROUP_OF_SUITE: Record<string, string> = { 'bytecode-stages': 'bytecode' };
const groupOf = (row: BenchRow) => row.group ?? LEGACY_GROUP_OF_SUITE[row.suite] ?? row.suite;

function readResults(path: string): ResultsFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
  } catch {
    return undefined; // a damaged file is replaced, not fatal
  }
}

/**
 * Records one finished (or failed) suite in the results file at once: its rows replace the rows
 * an earlier run wrote for the same suite, every other suite's rows stay. Written to a temporary
 * file and renamed, so an interrupted run never leaves half a file.
 */
export function recordSuite(
  path: string,
  group: string,
  rows: BenchRow[],
  parameters: unknown,
  outcome: SuiteOutcome,
) {
  const machine: BenchMachine = {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_gib: round(totalmem() / 2 ** 30, 1),
    node: process.version,
  };
  const previous = readResults(path);
  const kept = (previous?.results ?? []).filter((row) => groupOf(row) !== group);
  const file: ResultsFile = {
    generated_at: new Date().toISOString(),
    machine,
    parameters: { ...(previous?.parameters ?? {}), [group]: parameters },
    results: [...kept, ...rows.map((row) => ({ ...row, group }))],
    suites: { ...(previous?.suites ?? {}), [group]: { ...outcome, machine } },
  };
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(temporary, path);
}
