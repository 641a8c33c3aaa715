import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * 2,000 real mainnet token contracts (runtime bytecode), committed under test/fixtures with their
 * attribution (test/fixtures/README.md). CORPUS_FILE overrides the location.
 */

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CORPUS_FILE =
  process.env.CORPUS_FILE ?? resolve(REPO_ROOT, 'test/fixtures/mainnet-tokens.ndjson.gz');

export interface CorpusContract {
  address: string;
  chain_id: number;
  runtime_bytecode: string;
}

export function loadCorpus(limit = Number.POSITIVE_INFINITY): CorpusContract[] {
  if (!existsSync(CORPUS_FILE)) {
    throw new Error(
      `mainnet corpus not found at ${CORPUS_FILE}: restore test/fixtures or set CORPUS_FILE`,
    );
  }
  return gunzipSync(readFileSync(CORPUS_FILE))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .slice(0, limit)
    .map((line) => JSON.parse(line) as CorpusContract);
}
