import { extractFunctions } from '../../src/analysis/bytecode/index.ts';
import { analyzeBytecode } from '../../src/analysis/static/index.ts';
import { bytecodeFacts } from '../../src/evm/bytecode.ts';
import { type CorpusContract, loadCorpus } from '../../test/support/corpus.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Bytecode-stage throughput on the 2,000 real mainnet contracts of
 * test/fixtures/mainnet-tokens.ndjson.gz. analyzeBytecode (evmole extraction, catalog match, symbolic caller-check walk
 * of every state-changing function, EIP-1167 detection, skeleton hash, template) against the
 * cheapest pass over the same code in the same run: bytecodeFacts (one keccak and a scan), the
 * work the bytecode stage already does. Single-threaded, in-process, warm; throughput counts the
 * time spent in the pass itself (timed per contract).
 */

const SUITE = 'bytecode-stages';
const WARM_UP = 50;

type Pass = (code: string) => unknown;
type Timing = { totalMs: number; each: { address: string; ms: number }[] };

/**
 * Times each pass on each contract, the passes interleaved contract by contract, so that load
 * from other processes (this machine is shared) weighs on the baseline and the measured pass alike.
 */
function timeInterleaved(corpus: readonly CorpusContract[], passes: readonly Pass[]): Timing[] {
  for (const c of corpus.slice(0, WARM_UP)) for (const pass of passes) pass(c.runtime_bytecode);
  const out: Timing[] = passes.map(() => ({ totalMs: 0, each: [] }));
  for (const c of corpus) {
    passes.forEach((pass, i) => {
      const t = performance.now();
      pass(c.runtime_bytecode);
      const ms = performance.now() - t;
      out[i]!.totalMs += ms;
      out[i]!.each.push({ address: c.address, ms });
    });
  }
  return out;
}

export async function bytecodeStages(options: { limit?: number } = {}): Promise<BenchRow[]> {
  const corpus = loadCorpus(options.limit);
  const n = corpus.length;
  progress(`${SUITE}: ${n} mainnet contracts`);
  const [baseline, selectors, full] = timeInterleaved(corpus, [
    bytecodeFacts,
    extractFunctions,
    analyzeBytecode,
  ]) as [Timing, Timing, Timing];

  const perSecond = (ms: number) => round(n / (ms / 1000), 1);
  const baselineRate = perSecond(baseline.totalMs);
  const sorted = full.each.map((e) => e.ms).sort((a, b) => a - b);
  const slowest = full.each.reduce((a, b) => (b.ms > a.ms ? b : a));
  return [
    {
      suite: SUITE,
      metric: `analyzeBytecode throughput (${n} mainnet contracts)`,
      value: perSecond(full.totalMs),
      unit: 'tokens/s',
      baseline: {
        metric: 'bytecodeFacts tokens/s',
        value: baselineRate,
        ratio: perSecond(full.totalMs) / baselineRate,
      },
    },
    {
      suite: SUITE,
      metric: 'evmole function extraction alone',
      value: perSecond(selectors.totalMs),
      unit: 'tokens/s',
      baseline: {
        metric: 'bytecodeFacts tokens/s',
        value: baselineRate,
        ratio: perSecond(selectors.totalMs) / baselineRate,
      },
    },
    {
      suite: SUITE,
      metric: 'analyzeBytecode p50',
      value: round(percentile(sorted, 50), 2),
      unit: 'ms',
    },
    {
      suite: SUITE,
      metric: 'analyzeBytecode p99',
      value: round(percentile(sorted, 99), 1),
      unit: 'ms',
    },
    {
      suite: SUITE,
      metric: 'analyzeBytecode slowest contract',
      value: round(slowest.ms, 1),
      unit: 'ms',
      note: slowest.address,
    },
  ];
}
