import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  const body = rows.map((r) => [r.suite, r.metric, String(r.value), r.unit, r.baseline ? `${r.baseline.metric} = ${r.baseline.value}` : '', r.baseline ? `${round(r.baseline.ratio * 100, 1)}%` : '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of body) console.log(line(row));
}

/**
 * Writes the run's rows; rows of suites that did not run (`--only`) are kept from the previous
 * file, so a partial run updates its own figures without erasing the others.
 */
export function writeResults(path: string, rows: BenchRow[], parameters: Record<string, unknown>) {
  const machine = { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', memory_gib: round(totalmem() / 2 ** 30, 1), node: process.version };
  const ran = new Set(rows.map((r) => r.suite));
  let kept: BenchRow[] = [];
  if (existsSync(path)) {
    try {
      kept = (JSON.parse(readFileSync(path, 'utf8')) as { results?: BenchRow[] }).results?.filter((r) => !ran.has(r.suite)) ?? [];
    } catch {
      kept = [];
    }
  }
  writeFileSync(path, `${JSON.stringify({ generated_at: new Date().toISOString(), machine, parameters, results: [...kept, ...rows] }, null, 2)}\n`);
}
