import solc from 'solc';

/**
 * Compiles small inline Solidity sources for tests that need contract shapes the project's own
 * contracts do not have (role tables, tx.origin checks, registries, via-IR output). Same compiler
 * and EVM version as contracts/build.ts.
 */

export interface Compiled {
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
      }
    >
  >;
}

export function compileSolidity(
  source: string,
  options: { viaIR?: boolean } = {},
): Record<string, Compiled> {
  const input = {
    language: 'Solidity',
    sources: { 'Test.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      viaIR: options.viaIR ?? false,
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const out: Record<string, Compiled> = {};
  for (const [name, c] of Object.entries(output.contracts?.['Test.sol'] ?? {})) {
    out[name] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    };
  }
  return out;
}
