import { loadBackdoors } from './test/support/backdoors.ts';
import { runDevelopmentSet, scoreDevelopmentSet } from './test/support/backdoor-accuracy.ts';
import { startTestChain } from './test/support/chain.ts';

const only = (process.argv[3] ?? '').split(',').filter(Boolean);
const entries = loadBackdoors().filter((e) => only.length === 0 || only.includes(e.id));
const chain = await startTestChain();
try {
  const mode = (process.argv[2] ?? 'set-code') as 'set-code' | 'constructor';
  const results = await runDevelopmentSet(chain, entries, mode);
  const scores = scoreDevelopmentSet(entries, results);
  const byId = new Map(results.map((r) => [r.id, r]));
  for (const m of only.length ? results.map((r) => ({ id: r.id, name: r.name, label: '', kind: '' })) : scores.misses) {
    const r = byId.get(m.id)!;
    console.log(`\n== ${m.id} ${m.name} ${m.label} ${m.kind}`);
    for (const f of r.factors)
      console.log(`  ${f.code} ${f.points}: ${JSON.stringify((f as { proof?: unknown }).proof ?? null)}`);
  }
} finally {
  await chain.stop();
}
