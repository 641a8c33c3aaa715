import { loadBackdoors } from '../test/support/backdoors.ts';
import { runDevelopmentSet } from '../test/support/backdoor-accuracy.ts';
import { startTestChain } from '../test/support/chain.ts';
const ids = process.argv.slice(2);
const chain = await startTestChain();
const entries = loadBackdoors().filter((e) => ids.includes(e.id));
for (const mode of ['constructor', 'set-code'] as const) {
  const r = await runDevelopmentSet(chain, entries, mode);
  for (const x of r) console.log(mode, x.id, x.error, JSON.stringify(x.observed), x.hints?.owner_address, x.hints?.ownership_renounced, x.ms.toFixed(0));
}
await chain.stop();
