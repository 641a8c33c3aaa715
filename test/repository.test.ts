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
        'DESIGN' + ' §4',
        'per INTERFACE' + '.md',
        'fixed in issue' + ' 12',
        'plain text',
      ];
      writeFileSync(join(dir, 'a.ts'), lines.join('\n'));
      execFileSync('git', ['add', 'a.ts'], { cwd: dir });
      expect(findForbiddenReferences(dir).map((f) => f.line)).toEqual([1, 2, 3, 4]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
