import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PlaceMode,
  runDevelopmentSet,
  scoreDevelopmentSet,
} from '../support/backdoor-accuracy.ts';
import { type BackdoorEntry, loadBackdoors } from '../support/backdoors.ts';
import { startTestChain, type TestChain } from '../support/chain.ts';

/**
 * Accuracy on real mainnet code: the 116 labelled backdoored tokens of test/fixtures/backdoors,
 * placed on Anvil both launched (deployed with their constructor, then the launch setup their
 * notes record replayed: the state the study's labels were confirmed in) and as bare runtime code
 * with only the owner slot written (empty storage), analysed as the selectors and risk stages do. The analyser never sees
 * ids, names or addresses of this set; the thresholds are the development-set targets of
 * docs/risk-model.md, and each capability's F1 must beat name matching on the same run.
 * `npm run bench -- --only accuracy` prints the full table.
 */

const MIN_RECALL = 0.95;
/** Dev-set precision counts flags the study did not label as false alarms, even when the code
 * shows the power (see docs/risk-model.md); this floor catches a collapse, not the last point. */
const MIN_PRECISION = 0.7;
const TIMEOUT_MS = 15 * 60_000;

let chain: TestChain;
let entries: BackdoorEntry[];

beforeAll(async () => {
  chain = await startTestChain();
  entries = loadBackdoors();
});
afterAll(async () => chain?.stop());

describe.each<PlaceMode>(['launched', 'set-code'])('development set placed by %s', (mode) => {
  it(
    `recall ≥ ${MIN_RECALL * 100} % per capability, precision ≥ ${MIN_PRECISION * 100} %`,
    async () => {
      const results = await runDevelopmentSet(chain, entries, mode);
      const scores = scoreDevelopmentSet(entries, results);
      for (const s of scores.capabilities) {
        console.log(
          `${mode} ${s.label}: tp ${s.tp} fp ${s.fp} fn ${s.fn} precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`,
        );
      }
      for (const s of scores.named) {
        console.log(
          `${mode} ${s.label} by names only: tp ${s.tp} fp ${s.fp} fn ${s.fn} F1 ${s.f1.toFixed(3)}`,
        );
      }
      for (const m of scores.misses) console.log(`${mode} ${m.kind}: ${m.id} ${m.name} ${m.label}`);
      const steps = results.flatMap((r) => r.setup);
      if (mode === 'launched')
        console.log(
          `launched: ${steps.length} setup steps replayed, ${steps.filter((s) => !s.ok).length} failed`,
        );
      // Every entry deploys from its own creation code and constructor arguments (fixture README).
      expect(scores.placed).toBe(entries.length);
      for (const [i, s] of scores.capabilities.entries()) {
        expect.soft(s.recall, `${s.label} recall`).toBeGreaterThanOrEqual(MIN_RECALL);
        expect.soft(s.precision, `${s.label} precision`).toBeGreaterThanOrEqual(MIN_PRECISION);
        // Reading the code must do better than reading the names.
        expect.soft(s.f1, `${s.label} F1 against names only`).toBeGreaterThan(scores.named[i]!.f1);
      }
    },
    TIMEOUT_MS,
  );
});
