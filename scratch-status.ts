import { hasCapability, loadBackdoors, CAPABILITIES } from './test/support/backdoors.ts';
import { runDevelopmentSet } from './test/support/backdoor-accuracy.ts';
import { startTestChain } from './test/support/chain.ts';

const FAMILY: Record<string, string> = {
  'admin:mint': 'mint', 'admin:balance-change': 'leak', 'admin:burn-from': 'leak',
  'admin:blacklist': 'limit', 'admin:pause': 'limit', 'admin:trading-switch': 'limit',
};
const entries = loadBackdoors();
const chain = await startTestChain();
try {
  for (const mode of ['constructor', 'set-code'] as const) {
    const results = await runDevelopmentSet(chain, entries, mode);
    const tally: Record<string, number> = {};
    for (const r of results) {
      if (r.error) continue;
      const e = entries.find((x) => x.id === r.id)!;
      for (const c of CAPABILITIES) {
        if (!r.observed[c]) continue;
        const statuses = r.factors.filter((f) => FAMILY[f.code] === c).map((f) => (f as { proof?: { status: string; detail: string } }).proof);
        const best = statuses.some((p) => p?.status === 'proven') ? 'proven' : statuses.some((p) => p?.status === 'observed') ? 'observed' : statuses.some((p) => /reverted/.test(p?.detail ?? '')) ? 'reverted' : statuses.some((p) => /without the effect/.test(p?.detail ?? '')) ? 'no-effect' : statuses.length ? 'not-executed' : 'other-factor';
        const truth = hasCapability(e, c) ? 'TP' : 'FP';
        const k = `${mode} ${c} ${truth} ${best}`;
        tally[k] = (tally[k] ?? 0) + 1;
        if (truth === 'TP' && best !== 'proven') console.log(mode, c, r.id, r.name, best, JSON.stringify(statuses.map((p) => p?.detail)).slice(0, 300));
      }
    }
    console.log(Object.entries(tally).sort().map(([k, v]) => `${k}: ${v}`).join('\n'));
  }
} finally {
  await chain.stop();
}
