import { execFileSync, spawnSync } from 'node:child_process';

/**
 * `npm run check:size`: no source file over 400 lines, no function over 80 (Biome's
 * noExcessiveLinesPerFile and noExcessiveLinesPerFunction, whose limits biome.json sets; the rules
 * are off in `npm run lint` and enabled here). Tests are not held to it: a `describe` callback is a
 * function that holds a whole suite. Exits 1 when anything is over.
 */

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

if (import.meta.url === `file://${process.argv[1]}`) {
  const findings = findOversized(sourceFiles());
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.message}`);
  if (findings.length > 0) console.error(`${findings.length} over the limits`);
  process.exit(findings.length > 0 ? 1 : 0);
}
