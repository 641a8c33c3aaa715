import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findForbiddenReferences } from '../scripts/checks/references.ts';

describe('the repository stands alone', () => {
  it('no tracked file cites a document beside the repository or an issue number', () => {
    expect(findForbiddenReferences()).toEqual([]);
  });

  it('the check finds each kind of reference', () => {
    const dir = mkdtempSync(join(tmpdir(), 'references-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir });
      const lines = [
        'see ../' + 'shared/corpus',
        'DESI' + 'GN §4',
        'per INTERFACE' + '.md',
        'fixed in issue' + ' 12',
        '401 with the DESI' + 'GN message',
        'see (' + '#12)',
        'plain text: a design, an issue, colour #fff, line 12 of a.ts',
      ];
      writeFileSync(join(dir, 'a.ts'), lines.join('\n'));
      // Colours in a style sheet are not issue numbers.
      writeFileSync(join(dir, 'a.css'), 'a { color: ' + '#333; border: 1px solid ' + '#444 }');
      execFileSync('git', ['add', 'a.ts', 'a.css'], { cwd: dir });
      expect(findForbiddenReferences(dir).map((f) => `${f.file}:${f.line}`)).toEqual(
        [1, 2, 3, 4, 5, 6].map((line) => `a.ts:${line}`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Which layers each layer may not import (docs/architecture.md): data and imports flow one way. */
const FORBIDDEN_IMPORTS: Record<string, readonly string[]> = {
  src: ['infra', 'db', 'workers', 'api', 'app', 'scripts'],
  db: ['workers', 'api', 'app', 'scripts'],
  infra: ['workers', 'api', 'app', 'scripts'],
  workers: ['api', 'app', 'scripts'],
  api: ['app', 'scripts'],
  // scripts/ holds what a developer runs by hand: the running program never depends on it.
  app: ['scripts'],
};

function layerViolations(): string[] {
  const files = execFileSync('git', ['ls-files', '-z', '*.ts'], { encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !f.endsWith('.test.ts'));
  const violations: string[] = [];
  for (const file of files) {
    const layer = file.split('/')[0]!;
    const forbidden = FORBIDDEN_IMPORTS[layer];
    if (!forbidden) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '((?:\.\.\/)+)([a-z]+)\//g)) {
      // Only a path that climbs back to the repository root names a top-level layer.
      const depth = file.split('/').length - 1;
      if (match[1]!.length / 3 === depth && forbidden.includes(match[2]!))
        violations.push(`${file} imports ${match[2]}/`);
    }
  }
  return violations;
}

describe('the layers', () => {
  it('import one way: src/ nothing with I/O, db/ and infra/ no worker, route or entry point, nothing the program runs imports scripts/', () => {
    expect(layerViolations()).toEqual([]);
  });
});

/**
 * A folder with an index.ts is entered through it: the files beside it are its inside, free to
 * change without touching another folder. Returns `importer -> imported` for every import from
 * outside such a folder that names a file other than its door.
 */
function doorViolations(): string[] {
  const files = execFileSync('git', ['ls-files', '-z', '*.ts', '*.tsx'], { encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && existsSync(f));
  const violations: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(file), match[1]!));
      // The outermost folder with a door that holds the target but not the importer.
      for (let dir = dirname(target); dir !== '.' && dir !== ''; dir = dirname(dir)) {
        if (`${file}`.startsWith(`${dir}/`)) break;
        if (existsSync(join(dir, 'index.ts')) && target !== join(dir, 'index.ts')) {
          violations.push(`${file} -> ${target}`);
          break;
        }
      }
    }
  }
  return violations;
}

describe('the doors', () => {
  it('a folder with an index.ts is imported through it from outside', () => {
    expect(doorViolations()).toEqual([]);
  });
});
