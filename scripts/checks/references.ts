import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The repository documents its own contract in docs/: no tracked file may send a reader to a
 * document beside the repository, or to an issue number a reader of the repository cannot see.
 * Run with `tsx scripts/checks/references.ts`; test/repository.test.ts runs it in `npm test`.
 */

/** Built from parts, so that this file does not match itself. */
const FORBIDDEN: { what: string; pattern: RegExp; skip?: RegExp }[] = [
  {
    what: 'a path beside the repository',
    pattern: new RegExp(['\\.\\./', 'shared'].join(''), 'i'),
  },
  { what: 'a path beside the repository', pattern: new RegExp(['/work/', 'shared'].join(''), 'i') },
  // The design document by its name, its sections, or as the source of a message: the word in
  // upper case, which nothing in the repository's own prose writes.
  { what: 'an external design document', pattern: new RegExp(['\\bDESIGN', '\\b'].join('')) },
  { what: 'an external interface document', pattern: new RegExp(['INTERFACE', '\\.md'].join('')) },
  { what: 'an issue number', pattern: new RegExp(['\\bissues?', '\\s+#?\\d+'].join(''), 'i') },
  // A number after a hash sign at the start of a word, as issues and pull requests are cited. Not
  // in style sheets, whose colours look the same.
  {
    what: 'an issue number',
    pattern: new RegExp(['(^|[\\s(])#', '\\d{1,5}(?![\\w;])'].join('')),
    skip: /\.css$/,
  },
];

/** Files that are not text (fixtures, images) are skipped. */
const BINARY = /\.(gz|png|jpe?g|gif|ico|woff2?)$/i;

export interface ReferenceFinding {
  file: string;
  line: number;
  what: string;
  text: string;
}

export function findForbiddenReferences(root = process.cwd()): ReferenceFinding[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !BINARY.test(f));
  const findings: ReferenceFinding[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(`${root}/${file}`, 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    text.split('\n').forEach((line, i) => {
      for (const { what, pattern, skip } of FORBIDDEN) {
        if (pattern.test(line) && !skip?.test(file))
          findings.push({ file, line: i + 1, what, text: line.trim().slice(0, 120) });
      }
    });
  }
  return findings;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const findings = findForbiddenReferences();
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.what}: ${f.text}`);
  process.exit(findings.length > 0 ? 1 : 0);
}
