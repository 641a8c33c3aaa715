import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineOf, beyondBaseline, findOversized, type SizeFinding } from './size.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('check:size', () => {
  it('finds a file over 400 lines and a function over 80, and passes small ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-'));
    try {
      // biome.json reads .gitignore through git: the directory is a repository of its own.
      execFileSync('git', ['init', '-q'], { cwd: dir });
      copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(
        join(dir, 'long-function.ts'),
        `export function f() {\n${body}\n  return 0;\n}\n`,
      );
      const lines = Array.from({ length: 410 }, (_, i) => `export const c${i} = ${i};`).join('\n');
      writeFileSync(join(dir, 'long-file.ts'), `${lines}\n`);
      writeFileSync(join(dir, 'small.ts'), 'export const x = 1;\n');
      const findings = findOversized(['long-function.ts', 'long-file.ts', 'small.ts'], dir);
      expect(findings.map((f) => f.file).sort()).toEqual(['long-file.ts', 'long-function.ts']);
      expect(findings.find((f) => f.file === 'long-function.ts')?.message).toMatch(
        /too many lines \(\d+\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is a ratchet over the baseline: a new or grown offender fails, a shrunk one passes', () => {
    const finding = (file: string, size: number): SizeFinding => ({
      file,
      line: 1,
      message: `This function has too many lines (${size}). Maximum allowed is 80.`,
    });
    const baseline = baselineOf([finding('a.ts', 120), finding('a.ts', 90)]);
    expect(baseline).toEqual({ 'a.ts': [120, 90] });
    expect(beyondBaseline([finding('a.ts', 100), finding('a.ts', 85)], baseline)).toEqual([]);
    expect(beyondBaseline([finding('a.ts', 121)], baseline).map((f) => f.file)).toEqual(['a.ts']);
    const three = [finding('a.ts', 90), finding('a.ts', 90), finding('a.ts', 90)];
    expect(beyondBaseline(three, baseline)).toHaveLength(1);
    expect(beyondBaseline([finding('b.ts', 81)], baseline).map((f) => f.file)).toEqual(['b.ts']);
  });
});
