import { loadBackdoors, hasLabel } from '../test/support/backdoors.ts';
import { analyzeCapabilities } from '../src/analysis/capabilities.ts';
import { prepareCode } from '../src/analysis/interpreter.ts';
import { extractFunctions, normalizeCode } from '../src/analysis/selectors.ts';
import { Interface } from 'ethers';
for (const e of loadBackdoors()) {
  if (!hasLabel(e, 'disable_transfer')) continue;
  const iface = new Interface(e.abi as any); const names = new Map<string, string>();
  iface.forEachFunction((f) => names.set(f.selector.slice(2), f.format('sighash')));
  const rep = analyzeCapabilities(prepareCode(normalizeCode(e.runtime_bytecode)!), extractFunctions(e.runtime_bytecode).functions, (f) => names.get(f.selector) ?? f.selector);
  const lim = rep.findings.filter((f) => f.capability === 'limit');
  if (lim.some((f) => f.family !== 'blacklist')) continue;
  console.log(e.id, e.contract_name, 'via', JSON.stringify(e.verified_via.disable_transfer ?? e.also_observed_on_chain.disable_transfer), '| found:', lim.map((f) => f.evidence[0]!.detail.split(',')[0] + ' ' + f.family).join('; '));
}
