import solc from 'solc';

/**
 * The one compiler configuration of the project's Solidity: contracts/build.ts compiles
 * contracts/src with it, and tests that compile inline sources (test/support/solc.ts) use it too,
 * so that their bytecode has the shapes the committed artifacts have.
 */

// anvil 1.7 defaults to a post-Cancun hardfork; cancun opcodes (MCOPY, TSTORE) all run there.
export const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;

interface SolcContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

/** solc's standard JSON output, as far as it is read here. */
export interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  /** Source unit → contract name → its output. */
  contracts?: Record<string, Record<string, SolcContract>>;
}

export interface CompiledContract {
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
}

export type ImportResolver = (path: string) => { contents: string } | { error: string };

export const solcVersion = (): string => solc.version();

/** Compiles `sources` (unit name → source text); errors are in the output, not thrown. */
/** The standard-JSON input of a compile with the project's settings (the build's and the tests'). */
export function standardInput(
  sources: Record<string, string>,
  options: { viaIR?: boolean; optimize?: boolean; evmVersion?: string } = {},
) {
  return {
    language: 'Solidity',
    sources: Object.fromEntries(
      Object.entries(sources).map(([unit, content]) => [unit, { content }]),
    ),
    settings: {
      optimizer: { enabled: options.optimize ?? true, runs: OPTIMIZER_RUNS },
      evmVersion: options.evmVersion ?? EVM_VERSION,
      viaIR: options.viaIR ?? false,
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
}

export function compileSources(
  sources: Record<string, string>,
  options: { viaIR?: boolean; optimize?: boolean; findImport?: ImportResolver } = {},
): SolcOutput {
  const input = standardInput(sources, options);
  const callbacks = options.findImport ? { import: options.findImport } : undefined;
  return JSON.parse(solc.compile(JSON.stringify(input), callbacks)) as SolcOutput;
}

/** A contract's ABI and its creation and runtime code, 0x-prefixed. */
export const compiledContract = (c: SolcContract): CompiledContract => ({
  abi: c.abi,
  bytecode: `0x${c.evm.bytecode.object}`,
  deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
});
