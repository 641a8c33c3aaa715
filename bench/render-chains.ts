import type { BenchRow } from './report.ts';

/**
 * The `chains` suite's rows as docs/scale.md shows them: per chain, latency against the block
 * time, lag growth, the transactions per block carried, and the RPC bill; per process, CPU and
 * memory; the catch-up. Rows are found by the names bench/suites/chains.ts gives them.
 */

const CHAINS = ['ethereum', 'bsc', 'polygon', 'arbitrum', 'base'] as const;
const MODES = ['one process', 'split roles'] as const;

const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function renderChainsTables(rows: readonly BenchRow[], parameters: unknown): string {
  const chains = rows.filter((r) => r.suite === 'chains');
  if (chains.length === 0) return '_No `chains` run is recorded in `bench/results.json` yet._';
  const find = (metric: string) => chains.find((r) => r.metric === metric);
  const value = (metric: string, format = decimal) => {
    const row = find(metric);
    return row && Number.isFinite(row.value) ? format.format(row.value) : '–';
  };
  const out: string[] = [`Parameters: \`${JSON.stringify(parameters)}\``, ''];

  out.push(
    '| chain | block time | tx per block carried (planned) | token.created p50 / p99, one process | p50 / p99, split roles | lag growth, blocks/min (one / split) | tokens timed (one / split) |',
    '|---|---|---|---|---|---|---|',
  );
  for (const chain of CHAINS) {
    const latency = (mode: string, p: string) =>
      value(`${chain} (${mode}): block → token.created on WS, ${p}`, whole);
    const carried = find(`${chain} (one process): transactions per block`);
    const p50 = find(`${chain} (one process): block → token.created on WS, p50`);
    const tokens = (mode: string) =>
      /^(\d+) tokens/.exec(
        find(`${chain} (${mode}): block → token.created on WS, p50`)?.note ?? '',
      )?.[1] ?? '–';
    out.push(
      `| ${chain} | ${p50?.baseline ? `${decimal.format(p50.baseline.value / 1000)} s` : '–'} | ${carried ? `${decimal.format(carried.value)} (${carried.baseline?.value ?? '–'})` : '–'} | ${latency('one process', 'p50')} / ${latency('one process', 'p99')} ms | ${latency('split roles', 'p50')} / ${latency('split roles', 'p99')} ms | ${MODES.map((m) => value(`${chain} (${m}): lag growth (blocks per minute)`)).join(' / ')} | ${MODES.map(tokens).join(' / ')} |`,
    );
  }
  out.push(
    '',
    '**The RPC bill** (calls the service made, counted at the node, one-process run):',
    '',
  );
  out.push(
    '| chain | calls per block | calls per token | calls per day (extrapolated) | by method, per day |',
    '|---|---|---|---|---|',
  );
  for (const chain of CHAINS) {
    const day = find(`${chain}: RPC calls per day (extrapolated)`);
    const methods = day?.note?.split(': ').slice(1).join(': ') ?? '–';
    out.push(
      `| ${chain} | ${value(`${chain}: RPC calls per block`)} | ${value(`${chain}: RPC calls per token`)} | ${value(`${chain}: RPC calls per day (extrapolated)`, whole)} | ${methods.replaceAll(/(\d+)/g, (n) => whole.format(Number(n)))} |`,
    );
  }
  out.push('', '**CPU (% of one core) and peak memory per process** over the measured window:', '');
  out.push('| process | one process: CPU / RSS | split roles: CPU / RSS |', '|---|---|---|');
  const processes = [
    ...new Set(
      chains
        .map((r) => /^(?:one process|split roles): (.+) CPU$/.exec(r.metric)?.[1])
        .filter((p): p is string => p !== undefined),
    ),
  ];
  for (const p of processes) {
    const cpuRss = (mode: string) =>
      find(`${mode}: ${p} CPU`)
        ? `${value(`${mode}: ${p} CPU`)} % / ${value(`${mode}: ${p} peak RSS`, whole)} MiB`
        : '–';
    out.push(`| ${p} | ${cpuRss('one process')} | ${cpuRss('split roles')} |`);
  }
  const queue = MODES.map((m) => value(`${m}: detect queue growth (blocks per minute)`)).join(
    ' / ',
  );
  out.push('', `Detect queue growth (blocks per minute, every chain's; one / split): ${queue}.`);
  const back = find('bsc catch-up: time back at the head');
  const rate = find('bsc catch-up blocks/s (scan → detect → bytecode)');
  if (back && rate) {
    out.push(
      '',
      `**Catch-up** (${back.note ?? ''}): back at the head after ${decimal.format(back.value)} s; ${decimal.format(rate.value)} blocks/s against the raw RPC ceiling's ${decimal.format(rate.baseline?.value ?? Number.NaN)} blocks/s over the same blocks (${decimal.format(Math.round((rate.baseline?.ratio ?? 0) * 1000) / 10)} %).`,
    );
  }
  return out.join('\n');
}
