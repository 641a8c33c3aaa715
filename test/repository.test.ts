import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
