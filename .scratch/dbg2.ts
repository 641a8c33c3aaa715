import { loadArtifact } from '../contracts/artifacts.ts';
import { effectCalldata } from '../src/analysis/capabilities.ts';
import { prepareCode, walk } from '../src/analysis/interpreter.ts';
import { normalizeCode } from '../src/analysis/selectors.ts';
import { flagReads, slotShape } from '../src/analysis/storage-shapes.ts';
const show = (x: any, d = 0): string => typeof x === 'bigint' ? (x > 1n << 64n ? '0x' + x.toString(16).slice(0, 10) + '…' : '0x' + x.toString(16)) : d > 6 ? '…' : `${x.op}(${x.args.map((a: any) => show(a, d + 1)).join(',')})`;
const code = loadArtifact(process.argv[2] as any).deployedBytecode;
const r = walk(prepareCode(normalizeCode(code)!), effectCalldata('a9059cbb', 'address,uint256'), { record: true });
for (const t of r.traces) {
  if (!(t.end === 'revert' || t.end === 'invalid')) continue;
  const last = t.conditions.at(-1)!;
  console.log(t.end, 'dist', t.steps - last.step, last.taken, show(last.cond), flagReads(last.cond).map((f) => JSON.stringify(slotShape(f.load.args[0]!), (k, v) => typeof v === 'bigint' ? v.toString(16) : v)));
}
