import { startAnvil } from '../../app/embedded/index.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import {
  type EntryResult,
  type PlaceMode,
  runDevelopmentSet,
  scoreDevelopmentSet,
} from '../../test/support/backdoor-accuracy.ts';
import type { Score } from '../../test/support/backdoors.ts';
import { loadBackdoors } from '../../test/support/backdoors.ts';
import { startTestChain } from '../../test/support/chain.ts';
import { loadCorpus } from '../../test/support/corpus.ts';
import { recogniseCorpus } from '../../test/support/corpus-recognition.ts';
import {
  compileModernBuild,
  compileProxies,
  loadModernSet,
  MODERN_BUILDS,
  type ModernResult,
  runModernBuild,
  scoreModernSet,
} from '../../test/support/modern-set.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Accuracy on real mainnet code: precision, recall and F1 per capability (mint, leak, limit) and
 * per study label on the labelled development set (test/fixtures/backdoors), placed launched (its
 * constructor, then the launch setup its notes record replayed: the state the labels were
 * confirmed in) and as bare runtime code with only the owner slot written, beside the same run's
 * name-matching baseline (a capability whenever a catalogued name of its family is routed); the in-process
 * analysis time per token (selectors-stage analysis + score), p50 and p99; and token recognition
 * of the 2,000-contract mainnet fixture placed with anvil_setCode.
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

/** How much of the recorded launch setup went through; each reverted step is printed. */
function setupRow(set: string, results: readonly EntryResult[]): BenchRow {
  const steps = results.flatMap((r) => r.setup.map((s) => ({ id: r.id, ...s })));
  const failed = steps.filter((s) => !s.ok);
  for (const s of failed) progress(`launch setup step failed: ${s.id} ${s.text} (${s.error})`);
  const entries = results.filter((r) => r.setup.length > 0).length;
  return {
    suite: SUITE,
    metric: `${set} launch setup steps failed`,
    value: failed.length,
    unit: 'steps',
    note: `of ${steps.length} steps replayed for ${entries} entries; the entry is analysed regardless`,
  };
}

export async function developmentSetAccuracy(
  options: { modes?: PlaceMode[] } = {},
): Promise<BenchRow[]> {
  const entries = loadBackdoors();
  const chain = await startTestChain();
  const rows: BenchRow[] = [];
  try {
    for (const mode of options.modes ?? ['set-code', 'launched']) {
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
        ...scoreRows(`${set} names only`, scores.named),
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
      if (mode === 'launched') rows.push(setupRow(set, results));
      for (const m of scores.misses) progress(`${mode} ${m.kind}: ${m.id} ${m.name} ${m.label}`);
    }
  } finally {
    await chain.stop();
  }
  return rows;
}

/**
 * The modern development set (test/fixtures/modern): every token under every build, deployed with
 * its constructor (behind its proxy), scored per capability beside names only; each miss is
 * printed.
 */
export async function modernSetAccuracy(): Promise<BenchRow[]> {
  const manifest = loadModernSet();
  progress(
    `accuracy: modern set (${manifest.tokens.length} tokens × ${MODERN_BUILDS.length} builds)`,
  );
  const proxies = await compileProxies(manifest);
  const chain = await startTestChain();
  const results: ModernResult[] = [];
  try {
    for (const build of MODERN_BUILDS) {
      progress(`compiling and analysing: ${build.label}`);
      const contracts = await compileModernBuild(manifest, build);
      results.push(...(await runModernBuild(chain, manifest, build, contracts, proxies)));
    }
  } finally {
    await chain.stop();
  }
  const scores = scoreModernSet(results);
  for (const m of scores.misses) progress(`modern ${m.kind} ${m.label}: ${m.id}`);
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  return [
    ...scoreRows('modern set', scores.all),
    ...scoreRows('modern set names only', scores.named),
    {
      suite: SUITE,
      metric: 'modern set analysis per token, p50',
      value: round(percentile(times, 50)),
      unit: 'ms',
    },
    {
      suite: SUITE,
      metric: 'modern set analysis per token, p99',
      value: round(percentile(times, 99)),
      unit: 'ms',
      note: `${results.length} tokens × builds; analyzeStatic + score, in process`,
    },
  ];
}

/** Recognition of the 2,000 mainnet contracts: how many route the transfer surface, how many are tokens. */
export async function corpusRecognition(): Promise<BenchRow[]> {
  const corpus = loadCorpus();
  const anvil = await startAnvil();
  try {
    progress(`accuracy: recognition of ${corpus.length} mainnet contracts placed by set-code`);
    const rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
    const r = await recogniseCorpus(rpc, corpus, (n) => n % 400 === 0 && progress(`probed ${n}`));
    for (const refused of r.refusedRoutingSurface) progress(`refused although routing: ${refused}`);
    const refusedBy = Object.entries(r.refusedBy)
      .map(([call, n]) => `${n} without ${call}`)
      .join(', ');
    return [
      {
        suite: SUITE,
        metric: 'mainnet corpus routing the transfer surface',
        value: r.routingSurface,
        unit: 'contracts',
        note: `of ${r.contracts}; the dispatcher routes totalSupply, balanceOf and transfer`,
      },
      {
        suite: SUITE,
        metric: 'mainnet corpus recognised as tokens',
        value: r.recognised,
        unit: 'contracts',
        note: `refused: ${refusedBy}`,
      },
    ];
  } finally {
    await anvil.stop();
  }
}
