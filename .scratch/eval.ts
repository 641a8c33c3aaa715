import { loadBackdoors, hasCapability, CAPABILITIES, score } from '../test/support/backdoors.ts';
import { analyzeCapabilities } from '../src/analysis/capabilities.ts';
import { prepareCode } from '../src/analysis/interpreter.ts';
import { extractFunctions, normalizeCode } from '../src/analysis/selectors.ts';
import { catalogEntry } from '../src/analysis/catalog.ts';
import { Interface } from 'ethers';
const entries = loadBackdoors();
const rows: any[] = [];
const verbose = process.argv.includes('-v');
const only = process.argv.find((a) => a.startsWith('pp-'));
let maxMs = 0;
for (const e of entries) {
  if (only && e.id !== only) continue;
  const t0 = performance.now();
  const ex = extractFunctions(e.runtime_bytecode);
  const model = prepareCode(normalizeCode(e.runtime_bytecode)!);
  const iface = new Interface(e.abi as any);
  const names = new Map<string, string>();
  iface.forEachFunction((f) => names.set(f.selector.slice(2), f.format('sighash')));
  const rep = analyzeCapabilities(model, ex.functions, (f) => names.get(f.selector) ?? `0x${f.selector}`);
  const ms = performance.now() - t0; maxMs = Math.max(maxMs, ms);
  const obs = Object.fromEntries(CAPABILITIES.map((c) => [c, rep.findings.some((f) => f.capability === c)]));
  const truth = Object.fromEntries(CAPABILITIES.map((c) => [c, hasCapability(e, c)]));
  rows.push({ e, obs, truth, rep });
  const bad = CAPABILITIES.filter((c) => obs[c] !== truth[c]);
  if (bad.length || verbose) {
    console.log(e.id, e.contract_name, e.compiler, 'layout', rep.layout.balances?.toString(16), rep.layout.totalSupply?.toString(16), bad.map((c) => `${c}:${truth[c] ? 'MISS' : 'FP'}`).join(' '), `${ms.toFixed(0)}ms steps ${rep.steps}`);
    for (const f of rep.findings) if (verbose || bad.includes(f.capability)) console.log('   ', f.capability, f.family, f.evidence[0]!.detail);
  }
}
for (const c of CAPABILITIES) {
  const s = score(c, rows.map((r) => ({ truth: r.truth[c], observed: r.obs[c] })));
  console.log(c, `tp ${s.tp} fp ${s.fp} fn ${s.fn} P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`);
}
console.log('max ms', maxMs.toFixed(0));
