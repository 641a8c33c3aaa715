import { score } from '../../test/support/backdoors.ts';
import { startTestChain } from '../../test/support/chain.ts';
import { deployCorpus, FLAGS, flagScores, observedFlags } from '../../test/support/token-corpus.ts';
import { type BenchRow, progress, round } from '../report.ts';
import { runPipeline } from './analysis-pipeline.ts';

/** Precision and recall of every flag on the corpus (each kind `replicas` times), through the real pipeline. */
export async function accuracyTable(options: { replicas?: number } = {}): Promise<BenchRow[]> {
  const chain = await startTestChain();
  try {
    progress('accuracy: deploying the corpus');
    const corpus = await deployCorpus(chain, { replicas: options.replicas ?? 1 });
    const { rows } = await runPipeline(chain, corpus);
    const results = corpus.map((t) => ({
      truth: t.truth,
      observed: observedFlags(rows.get(t.address)!),
    }));
    const scores = flagScores(results);
    const out: BenchRow[] = [];
    for (const s of scores) {
      const support = `${s.tp + s.fn} of ${corpus.length} tokens have it; tp ${s.tp}, fp ${s.fp}, fn ${s.fn}`;
      out.push({
        suite: 'accuracy',
        metric: `${s.flag} precision`,
        value: round(s.precision, 3),
        unit: 'ratio',
        note: support,
      });
      out.push({
        suite: 'accuracy',
        metric: `${s.flag} recall`,
        value: round(s.recall, 3),
        unit: 'ratio',
      });
      const f1 =
        s.precision + s.recall === 0 ? 0 : (2 * s.precision * s.recall) / (s.precision + s.recall);
      out.push({ suite: 'accuracy', metric: `${s.flag} F1`, value: round(f1, 3), unit: 'ratio' });
    }
    // The three owner capabilities of the real-world study, on the project's own corpus.
    const capability = {
      mint: (f: Record<string, boolean>) => f.mintable === true,
      leak: (f: Record<string, boolean>) => f.balance_change === true,
      limit: (f: Record<string, boolean>) =>
        f.blacklist === true || f.pause === true || f.trading_restricted === true,
    };
    for (const [name, of] of Object.entries(capability)) {
      const s = score(
        name,
        results.map((r) => ({
          truth: of(r.truth as unknown as Record<string, boolean>),
          observed: of(r.observed),
        })),
      );
      const note = `tp ${s.tp}, fp ${s.fp}, fn ${s.fn} of ${corpus.length} tokens`;
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} precision`,
        value: round(s.precision, 3),
        unit: 'ratio',
        note,
      });
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} recall`,
        value: round(s.recall, 3),
        unit: 'ratio',
      });
      out.push({
        suite: 'accuracy',
        metric: `own corpus ${name} F1`,
        value: round(s.f1, 3),
        unit: 'ratio',
      });
    }
    // Taxes: the largest absolute error against the contract's configured rate.
    let worst = 0;
    for (const t of corpus) {
      const sim = rows.get(t.address)!.tradingSimulation as {
        buy_tax_pct: number | null;
        sell_tax_pct: number | null;
      } | null;
      if (!sim || t.truth.trading_restricted) continue;
      if (sim.buy_tax_pct !== null)
        worst = Math.max(worst, Math.abs(sim.buy_tax_pct - t.truth.buy_tax_pct));
      if (sim.sell_tax_pct !== null && t.truth.sell_tax_pct !== null && !t.truth.honeypot)
        worst = Math.max(worst, Math.abs(sim.sell_tax_pct - t.truth.sell_tax_pct));
    }
    out.push({
      suite: 'accuracy',
      metric: 'tax error, worst (percentage points)',
      value: round(worst, 2),
      unit: 'pp',
      note: `${FLAGS.length} flags, ${corpus.length} tokens`,
    });
    return out;
  } finally {
    await chain.stop();
  }
}
