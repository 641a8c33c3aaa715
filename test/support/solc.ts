import { type CompiledContract, compiledContract, compileSources } from '../../contracts/solc.ts';

/**
 * Compiles small inline Solidity sources for tests that need contract shapes the project's own
 * contracts do not have (role tables, tx.origin checks, registries, via-IR output), with the
 * compiler configuration of contracts/build.ts (contracts/solc.ts).
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
