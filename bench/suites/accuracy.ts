import {
  type PlaceMode,
  runDevelopmentSet,
  scoreDevelopmentSet,
} from '../../test/support/backdoor-accuracy.ts';
import type { Score } from '../../test/support/backdoors.ts';
import { loadBackdoors } from '../../test/support/backdoors.ts';
import { startTestChain } from '../../test/support/chain.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Accuracy on real mainnet code: precision, recall and F1 per capability (mint, leak, limit) and
 * per study label on the labelled development set (test/fixtures/backdoors), placed with its
 * constructor and as bare runtime code with only the owner slot written; and the in-process
 * analysis time per token (selectors-stage analysis + score), p50 and p99.
 */

const SUITE = 'accuracy';

function scoreRows(set: string, scores: readonly Score[]): BenchRow[] {
  return scores.flatMap((s) => {
    const note = `tp ${s.tp}, fp ${s.fp}, fn ${s.fn}`;
    return [
      {
        suite: SUITE,
        metric: `${set} ${s.label} precision`,
        value: round(s.precision, 3),
        unit: 'ratio',
        note,
      },
      {
        suite: SUITE,
        metric: `${set} ${s.label} recall`,
        value: round(s.recall, 3),
        unit: 'ratio',
      },
      { suite: SUITE, metric: `${set} ${s.label} F1`, value: round(s.f1, 3), unit: 'ratio' },
    ];
  });
}

export async function developmentSetAccuracy(
  options: { modes?: PlaceMode[] } = {},
): Promise<BenchRow[]> {
  const entries = loadBackdoors();
  const chain = await startTestChain();
  const rows: BenchRow[] = [];
  try {
    for (const mode of options.modes ?? ['set-code', 'constructor']) {
      progress(`accuracy: development set (${entries.length} tokens) placed by ${mode}`);
      const results = await runDevelopmentSet(
        chain,
        entries,
        mode,
        (n) => n % 20 === 0 && progress(`analysed ${n}`),
      );
      const scores = scoreDevelopmentSet(entries, results);
      const set = `dev set (${mode})`;
      rows.push(
        ...scoreRows(set, scores.capabilities),
        ...scoreRows(`${set} label`, scores.labels),
      );
      const times = results
        .filter((r) => r.error === null)
        .map((r) => r.ms)
        .sort((a, b) => a - b);
      rows.push(
        {
          suite: SUITE,
          metric: `${set} analysis per token, p50`,
          value: round(percentile(times, 50)),
          unit: 'ms',
        },
        {
          suite: SUITE,
          metric: `${set} analysis per token, p99`,
          value: round(percentile(times, 99)),
          unit: 'ms',
          note: `${times.length} of ${entries.length} placed; analyzeStatic + score, in process`,
        },
      );
      for (const m of scores.misses) progress(`${mode} ${m.kind}: ${m.id} ${m.name} ${m.label}`);
    }
  } finally {
    await chain.stop();
  }
  return rows;
}
