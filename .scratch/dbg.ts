import { loadBackdoors } from '../test/support/backdoors.ts';
import { effectCalldata } from '../src/analysis/capabilities.ts';
import { prepareCode, walk } from '../src/analysis/interpreter.ts';
import { extractFunctions, normalizeCode } from '../src/analysis/selectors.ts';
import { slotShape } from '../src/analysis/storage-shapes.ts';
import { addressFromLabel } from '../src/analysis/calldata.ts';
import { Interface } from 'ethers';
const [id, fname] = process.argv.slice(2);
const e = loadBackdoors().find((x) => x.id === id)!;
const iface = new Interface(e.abi as any);
const ex = extractFunctions(e.runtime_bytecode);
console.log('args', Array.from({ length: 3 }, (_, i) => addressFromLabel(`token-monitor.effect.argument.${i}`)));
const show = (x: any, d = 0): string => typeof x === 'bigint' ? (x > 1n << 64n ? '0x' + x.toString(16).slice(0, 10) + '…' : '0x' + x.toString(16)) : d > 5 ? '…' : `${x.op}(${x.args.map((a: any) => show(a, d + 1)).join(',')})`;
iface.forEachFunction((f) => {
  if (!f.name.match(new RegExp(fname!))) return;
  const sel = f.selector.slice(2);
  const fn = ex.functions.find((g) => g.selector === sel);
  console.log(f.format('sighash'), sel, fn?.arguments, fn?.state_mutability);
  if (!fn) return;
  const r = walk(prepareCode(normalizeCode(e.runtime_bytecode)!), effectCalldata(sel, fn.arguments), { record: true, maxPaths: 160 });
  console.log('complete', r.complete, 'paths', r.paths, 'steps', r.steps);
  for (const t of r.traces) {
    if (t.writes.length === 0 && !process.argv.includes('-a')) continue;
    console.log(' END', t.end, t.returnedZero, 'guards', t.guards.map((g) => g.kind + ':' + (g.slot ?? g.address ?? g.mapping)).join(','));
    for (const c of t.conditions) if (c.cond.taint & 1) console.log('   cond', c.pc, c.taken, show(c.cond));
    for (const w of t.writes) console.log('   write', w.pc, show(w.slot), JSON.stringify(slotShape(w.slot), (k, v) => typeof v === 'bigint' ? '0x' + v.toString(16) : v?.op ? show(v) : v), '=', show(w.value));
    if (process.argv.includes('-a')) { const last = t.conditions.at(-1); if (last) console.log('   last', last.pc, last.taken, show(last.cond)); }
  }
});
