import { createRequire } from 'node:module';
import { type CompiledContract, compiledContract, compileSources } from '../../contracts/solc.ts';

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
  options: { viaIR?: boolean } = {},
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

/** The old releases installed as devDependencies (package.json `solc-<version>` aliases). */
export const LEGACY_SOLC = ['0.4.18', '0.4.26', '0.5.17', '0.6.12'] as const;
export type LegacySolc = (typeof LEGACY_SOLC)[number];

/**
 * The standard-JSON entry point of each wrapper: 0.4's `compile` is the legacy API (source text,
 * optimise flag) and standard JSON goes through `compileStandardWrapper`; from 0.5 `compile` is
 * standard JSON itself, and 0.6 no longer exports the wrapper's old name.
 */
interface SolcWrapper {
  compile: (input: string) => string;
  compileStandardWrapper?: (input: string) => string;
}

const require = createRequire(import.meta.url);
const compilers = new Map<LegacySolc, SolcWrapper>();
const compiled = new Map<string, Record<string, Compiled>>();

function compilerFor(version: LegacySolc): SolcWrapper {
  let solc = compilers.get(version);
  if (!solc) {
    solc = require(`solc-${version}`) as SolcWrapper;
    compilers.set(version, solc);
  }
  return solc;
}

/**
 * Compiles `source` with solc `version`, the optimizer on or off, with that release's default
 * EVM version (0.4.18 knows no `evmVersion` setting). Output is cached per process by version,
 * optimizer and source, so test files that share a fixture compile it once.
 */
export function compileLegacy(
  source: string,
  options: { version: LegacySolc; optimize: boolean },
): Record<string, Compiled> {
  const key = `${options.version}/${options.optimize}/${source}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const solc = compilerFor(options.version);
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
  const run = solc.compileStandardWrapper ?? solc.compile;
  const output = JSON.parse(run(JSON.stringify(input))) as ReturnType<typeof compileSources>;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result = Object.fromEntries(
    Object.entries(output.contracts?.['Test.sol'] ?? {}).map(([name, c]) => [
      name,
      compiledContract(c),
    ]),
  );
  compiled.set(key, result);
  return result;
}
