import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findOversized } from './size.ts';

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
});
