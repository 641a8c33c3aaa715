// Compiles every .sol file under contracts/src with solc-js (standard JSON) and writes
// contracts/artifacts/<ContractName>.json for each contract that has creation code.
// Run: npm run contracts:build. The artifacts are committed; runtime never compiles.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS_DIR, CONTRACT_NAMES } from './artifacts.ts';
import { compiledContract, compileSources, EVM_VERSION, solcVersion } from './solc.ts';

const SRC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src');

function listSolFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listSolFiles(full);
    return entry.name.endsWith('.sol') ? [full] : [];
  });
}

// Source units are named by their path relative to src/ with forward slashes, so that
// `import "./lib/X.sol"` resolves to "lib/X.sol" and is found among the sources; the callback
// is only a fallback for files outside that set.
function findImport(importPath: string): { contents: string } | { error: string } {
  const full = path.resolve(SRC_DIR, importPath);
  if (!full.startsWith(SRC_DIR + path.sep))
    return { error: `import outside contracts/src: ${importPath}` };
  try {
    return { contents: readFileSync(full, 'utf8') };
  } catch {
    return { error: `import not found: ${importPath}` };
  }
}

function main(): void {
  const files = listSolFiles(SRC_DIR);
  const sources: Record<string, string> = {};
  for (const file of files)
    sources[path.relative(SRC_DIR, file).split(path.sep).join('/')] = readFileSync(file, 'utf8');
  console.log(`solc ${solcVersion()}: compiling ${files.length} files (evm ${EVM_VERSION})`);
  const output = compileSources(sources, { findImport });

  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  for (const e of output.errors ?? []) if (e.severity !== 'error') console.warn(e.formattedMessage);
  if (errors.length > 0) {
    for (const e of errors) console.error(e.formattedMessage);
    process.exit(1);
  }

  const written = new Map<string, string>();
  for (const [unit, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      // Abstract contracts and interfaces have no creation code.
      if (!c.evm.bytecode.object) continue;
      const previous = written.get(contractName);
      if (previous)
        throw new Error(`contract name ${contractName} defined in both ${previous} and ${unit}`);
      written.set(contractName, unit);
    }
  }

  const expected = new Set<string>(CONTRACT_NAMES);
  const missing = [...expected].filter((n) => !written.has(n));
  const unlisted = [...written.keys()].filter((n) => !expected.has(n));
  if (missing.length || unlisted.length) {
    console.error(
      `CONTRACT_NAMES in contracts/artifacts.ts is out of date: missing artifacts [${missing.join(', ')}], ` +
        `unlisted contracts [${unlisted.join(', ')}]`,
    );
    process.exit(1);
  }

  rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  for (const [contractName, unit] of [...written.entries()].sort()) {
    const c = output.contracts![unit]![contractName]!;
    const artifact = { contractName, ...compiledContract(c) };
    writeFileSync(
      path.join(ARTIFACTS_DIR, `${contractName}.json`),
      `${JSON.stringify(artifact, null, 2)}\n`,
    );
    console.log(
      `  ${contractName.padEnd(20)} ${(c.evm.deployedBytecode.object.length / 2).toString().padStart(6)} bytes  (${unit})`,
    );
  }
  console.log(`wrote ${written.size} artifacts to ${path.relative(process.cwd(), ARTIFACTS_DIR)}`);
}

main();
