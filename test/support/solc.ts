import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import {
  type CompiledContract,
  compiledContract,
  compileSources,
  solcVersion,
  standardInput,
} from '../../contracts/solc.ts';

/**
 * Compiles small inline Solidity sources for tests that need contract shapes the project's own
 * contracts do not have (role tables, tx.origin checks, registries, via-IR output), with the
 * compiler configuration of contracts/build.ts (contracts/solc.ts).
 *
 * `compileLegacy` compiles with an old solc release instead (devDependencies `solc-0.4.18` …
 * `solc-0.6.12`, npm aliases of the registry's `solc` package, each bundling its soljson): most
 * real tokens were written for 0.4–0.6, whose bytecode has shapes 0.8 never emits (`throw` as an
 * invalid jump, no overflow checks, different dispatch and packing).
 */

export type Compiled = CompiledContract;

export function compileSolidity(
  source: string,
  /** `optimize: false` compiles without the optimizer, as some deployed tokens were. */
  options: { viaIR?: boolean; optimize?: boolean } = {},
): Record<string, Compiled> {
  const output = compileSources({ 'Test.sol': source }, options);
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    Object.entries(output.contracts?.['Test.sol'] ?? {}).map(([name, c]) => [
      name,
      compiledContract(c),
    ]),
  );
}

/**
 * compileSolidity in a child process, cached on disk like compileLegacy: a large source takes
 * seconds (a minute on a loaded machine) in solc-js, which must not block the test worker (its
 * reports to the runner time out past 60 s).
 *
 * `version` compiles with one of the 0.8 releases installed as devDependencies (MODERN_SOLC)
 * instead of the bundled one, with the newest EVM version that release and Anvil share. Imports
 * of library code (`@openzeppelin/contracts/…`, `solady/src/…`, `solmate/src/…` and the relative
 * imports inside them) are read from node_modules into the standard-JSON input before the child
 * starts, so the cache key covers the library's text too.
 */
export async function compileSolidityAsync(
  source: string,
  options: { viaIR?: boolean; optimize?: boolean; version?: ModernSolc } = {},
): Promise<Record<string, Compiled>> {
  const sources = { 'Test.sol': source, ...librarySources(source) };
  const input = standardInput(sources, {
    viaIR: options.viaIR,
    optimize: options.optimize,
    evmVersion: options.version ? evmVersionOf(options.version) : undefined,
  });
  const compiler = options.version ?? solcVersion();
  const key = createHash('sha256')
    .update(`${compiler}/${JSON.stringify(input)}`)
    .digest('hex');
  const hit = compiled.get(key) ?? readCached(key);
  if (hit) {
    compiled.set(key, hit);
    return hit;
  }
  const solcPath = require.resolve(options.version ? `solc-${options.version}` : 'solc');
  const output = JSON.parse(await runChild(solcPath, JSON.stringify(input))) as ReturnType<
    typeof compileSources
  >;
  return remember(key, output);
}

/** The 0.8 releases installed as devDependencies (package.json `solc-<version>` aliases). */
export const MODERN_SOLC = ['0.8.20', '0.8.24', '0.8.26', '0.8.30'] as const;
export type ModernSolc = (typeof MODERN_SOLC)[number];

/** Cancun (TSTORE, MCOPY) from 0.8.24; 0.8.20-0.8.23 know Shanghai at most. */
const CANCUN_FROM_MINOR = 24;
function evmVersionOf(version: ModernSolc): string {
  return Number(version.split('.')[2]) >= CANCUN_FROM_MINOR ? 'cancun' : 'shanghai';
}

const IMPORT = /import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/g;
const NODE_MODULES = new URL('../../node_modules/', import.meta.url);

/**
 * Every library file `source` imports, transitively, keyed by its import path (relative to
 * node_modules), so solc finds each unit by the name it asks for and needs no import callback.
 */
function librarySources(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (text: string, from: string | null) => {
    for (const [, spec] of text.matchAll(IMPORT)) {
      const unit =
        spec!.startsWith('.') && from
          ? posix.normalize(posix.join(posix.dirname(from), spec!))
          : spec!;
      if (unit in out) continue;
      out[unit] = readFileSync(new URL(unit, NODE_MODULES), 'utf8');
      visit(out[unit]!, unit);
    }
  };
  visit(source, null);
  return out;
}

/** The old releases installed as devDependencies (package.json `solc-<version>` aliases). */
export const LEGACY_SOLC = ['0.4.18', '0.4.26', '0.5.17', '0.6.12'] as const;
export type LegacySolc = (typeof LEGACY_SOLC)[number];

/**
 * Runs one release's standard-JSON compile in a child process: an old solc with the optimizer
 * takes seconds per source (a minute on a loaded machine), which must not block the test worker.
 * 0.4's `compile` is the legacy API (source text, optimise flag) and standard JSON goes through
 * `compileStandardWrapper`; from 0.5 `compile` is standard JSON itself, and 0.6 no longer
 * exports the wrapper's old name.
 */
const CHILD = `
const solc = require(process.argv[1]);
let input = '';
process.stdin.on('data', (d) => { input += d; }).on('end', () => {
  process.stdout.write((solc.compileStandardWrapper || solc.compile)(input));
});`;
const MAX_OUTPUT = 256 * 1024 * 1024;

const require = createRequire(import.meta.url);
const compiled = new Map<string, Record<string, Compiled>>();
/**
 * Compiled output kept between runs, keyed by a hash of compiler, optimizer and source, so a
 * re-run compiles nothing. A changed source or version is a new key, so it cannot be stale.
 */
const CACHE_DIR = new URL('../../node_modules/.cache/solc/', import.meta.url);

/**
 * Compiles `source` with solc `version`, the optimizer on or off, with that release's default
 * EVM version (0.4.18 knows no `evmVersion` setting). Output is cached by version, optimizer and
 * source, in the process and on disk (CACHE_DIR).
 */
export async function compileLegacy(
  source: string,
  options: { version: LegacySolc; optimize: boolean },
): Promise<Record<string, Compiled>> {
  const key = createHash('sha256')
    .update(`${options.version}/${options.optimize}/${source}`)
    .digest('hex');
  const hit = compiled.get(key) ?? readCached(key);
  if (hit) {
    compiled.set(key, hit);
    return hit;
  }
  const input = {
    language: 'Solidity',
    sources: { 'Test.sol': { content: source } },
    settings: {
      optimizer: { enabled: options.optimize, runs: 200 },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const output = JSON.parse(
    await runChild(require.resolve(`solc-${options.version}`), JSON.stringify(input)),
  ) as ReturnType<typeof compileSources>;
  return remember(key, output);
}

/** Keeps a child compile's contracts, in the process and on disk; a compile error throws. */
function remember(
  key: string,
  output: ReturnType<typeof compileSources>,
): Record<string, Compiled> {
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result = Object.fromEntries(
    Object.entries(output.contracts?.['Test.sol'] ?? {}).map(([name, c]) => [
      name,
      compiledContract(c),
    ]),
  );
  compiled.set(key, result);
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(new URL(`${key}.json`, CACHE_DIR), JSON.stringify(result));
  return result;
}

function readCached(key: string): Record<string, Compiled> | null {
  try {
    return JSON.parse(readFileSync(new URL(`${key}.json`, CACHE_DIR), 'utf8'));
  } catch {
    return null;
  }
}

function runChild(solcPath: string, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['-e', CHILD, solcPath],
      { maxBuffer: MAX_OUTPUT },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
    child.stdin!.end(input);
  });
}

/** One way of compiling a source for the idiom tests, with a label for the test names. */
export interface Build {
  label: string;
  compile: () => Promise<Record<string, Compiled>>;
}

/**
 * The four builds of a source written for both dialects of the Uniswap era: solc 0.8 and
 * 0.6.12, each with the optimizer on and off (real tokens were deployed every way).
 */
export function modernBuilds(source: string): Build[] {
  return [
    { label: 'solc 0.8, optimizer on', compile: () => compileSolidityAsync(source) },
    {
      label: 'solc 0.8, optimizer off',
      compile: () => compileSolidityAsync(source, { optimize: false }),
    },
    {
      label: 'solc 0.6.12, optimizer on',
      compile: () => compileLegacy(source, { version: '0.6.12', optimize: true }),
    },
    {
      label: 'solc 0.6.12, optimizer off',
      compile: () => compileLegacy(source, { version: '0.6.12', optimize: false }),
    },
  ];
}
