import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * `npm run check:size`: no source file over 400 lines, no function over 80 (Biome's
 * noExcessiveLinesPerFile and noExcessiveLinesPerFunction, whose limits biome.json sets; the rules
 * are off in `npm run lint` and enabled here). Tests are not held to it: a `describe` callback is a
 * function that holds a whole suite.
 *
 * Code written before the limits still holds offenders: they are listed in size-baseline.json, and
 * the check is a ratchet over them. It fails on any offender the baseline does not list, and on a
 * listed one that grew; `--update` rewrites the baseline after offenders were fixed (never to admit
 * new ones: review the diff).
 */

const BASELINE_FILE = new URL('./size-baseline.json', import.meta.url);

const TESTS = /(\.test\.ts$|^test\/)/;
const RULES = ['style/noExcessiveLinesPerFile', 'complexity/noExcessiveLinesPerFunction'];

export interface SizeFinding {
  file: string;
  line: number;
  message: string;
}

interface BiomeReport {
  diagnostics: {
    message: string;
    category: string;
    location: { path: string; start: { line: number } };
  }[];
}

export function sourceFiles(root = process.cwd()): string[] {
  return execFileSync('git', ['ls-files', '-z', '*.ts', '*.mjs'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && !TESTS.test(file));
}

export function findOversized(files: string[], root = process.cwd()): SizeFinding[] {
  if (files.length === 0) return [];
  const only = RULES.map((rule) => `--only=${rule}`);
  // Biome reports these rules at "info" level (they are off in biome.json), so its exit code
  // says nothing: the JSON report is what counts.
  const run = spawnSync(
    'npx',
    ['biome', 'lint', '--reporter=json', '--max-diagnostics=none', ...only, ...files],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (!run.stdout.trim()) throw new Error(`biome lint gave no report: ${run.stderr || run.error}`);
  const report = JSON.parse(run.stdout) as BiomeReport;
  return report.diagnostics
    .filter((d) => RULES.some((rule) => d.category === `lint/${rule}`))
    .map((d) => ({ file: d.location.path, line: d.location.start.line, message: d.message }));
}

/** Per file, the sizes (lines) of its offenders, largest first. */
export type SizeBaseline = Record<string, number[]>;

const sizeOf = (finding: SizeFinding) => Number(/\((\d+)\)/.exec(finding.message)?.[1] ?? 0);

export function baselineOf(findings: SizeFinding[]): SizeBaseline {
  const baseline: SizeBaseline = {};
  for (const f of findings) baseline[f.file] = [...(baseline[f.file] ?? []), sizeOf(f)];
  for (const sizes of Object.values(baseline)) sizes.sort((a, b) => b - a);
  return baseline;
}

/**
 * The findings the baseline does not cover: per file, the n-th largest offender must be no larger
 * than the baseline's n-th largest, and a file has no more offenders than the baseline lists.
 */
export function beyondBaseline(findings: SizeFinding[], baseline: SizeBaseline): SizeFinding[] {
  const byFile = new Map<string, SizeFinding[]>();
  for (const f of findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const beyond: SizeFinding[] = [];
  for (const [file, list] of byFile) {
    const allowed = baseline[file] ?? [];
    const sorted = [...list].sort((a, b) => sizeOf(b) - sizeOf(a));
    sorted.forEach((f, i) => {
      if (i >= allowed.length || sizeOf(f) > allowed[i]!) beyond.push(f);
    });
  }
  return beyond;
}

function readBaseline(): SizeBaseline {
  return existsSync(BASELINE_FILE)
    ? (JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as SizeBaseline)
    : {};
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const findings = findOversized(sourceFiles());
  if (process.argv.includes('--update')) {
    writeFileSync(BASELINE_FILE, `${JSON.stringify(baselineOf(findings), null, 2)}\n`);
    console.error(`size-baseline.json: ${findings.length} known offenders`);
    process.exit(0);
  }
  const beyond = beyondBaseline(findings, readBaseline());
  for (const f of beyond) console.error(`${f.file}:${f.line}: ${f.message}`);
  console.error(
    `${findings.length} known offenders in size-baseline.json; ${beyond.length} new or grown`,
  );
  process.exit(beyond.length > 0 ? 1 : 0);
}
