import { describe, expect, it } from 'vitest';
import {
  type BenchResults,
  HEADLINES,
  loadResults,
  renderAccuracySummary,
  renderResults,
  renderSummary,
  renderTargets,
  replaceBetweenMarkers,
} from './render-report.ts';

const sample: BenchResults = {
  generated_at: '2026-01-02T03:04:05.000Z',
  machine: { cpus: 2, cpu_model: 'Test CPU', memory_gib: 8, node: 'v20.0.0' },
  parameters: { api: { seconds: 5 } },
  results: [
    {
      suite: 'api',
      metric: 'GET /api/tokens?limit=100 req/s',
      value: 3336.4,
      unit: 'req/s',
      baseline: { metric: 'bare Express, same body', value: 3537, ratio: 0.9433 },
    },
    { suite: 'api', metric: 'not a headline | piped', value: 0.5, unit: 'ratio', note: 'a note' },
  ],
};

describe('bench:report', () => {
  it('renders the headline figures with their same-run baseline and ratio', () => {
    const summary = renderSummary(sample);
    expect(summary).toContain(
      '| api | GET /api/tokens?limit=100 req/s | 3,336.4 req/s | ' +
        'bare Express, same body: 3,537 | 94.3 % |',
    );
    expect(summary).not.toContain('not a headline');
    expect(summary).toContain('run of 2026-01-02 on 2 × Test CPU');
  });

  it('renders every result, grouped by suite, with parameters and notes', () => {
    const full = renderResults(sample);
    expect(full).toContain('### api');
    expect(full).toContain('Parameters: `{"seconds":5}`');
    expect(full).toContain('| not a headline \\| piped | 0.5 |  |  | a note |');
  });

  it('names the run of each suite when the suites ran on different days or hosts', () => {
    const other = { cpus: 4, cpu_model: 'Other CPU', memory_gib: 16, node: 'v22.0.0' };
    const twoRuns: BenchResults = {
      ...sample,
      results: [...sample.results, { suite: 'scale', metric: 'm', value: 1, unit: 'ms' }],
      suites: {
        api: { status: 'ok', finished_at: '2026-01-01T00:00:00.000Z', seconds: 1, machine: other },
        scale: { status: 'ok', finished_at: '2026-01-02T00:00:00.000Z', seconds: 1 },
      },
    };
    const full = renderResults(twoRuns);
    expect(full).toContain(
      '### api\n\n_The run of 2026-01-01 on 4 × Other CPU, 16 GiB, Node v22.0.0._',
    );
    expect(full).toContain('### scale\n\n_The run of 2026-01-02, host not recorded._');
    expect(full).not.toContain('Test CPU');
    expect(renderSummary(twoRuns)).toContain("each suite's run (date and host) is named");
  });

  it('renders precision, recall and F1 per capability as percentages, skipping absent sets', () => {
    const metric = (m: string, value: number) => ({
      suite: 'accuracy',
      metric: m,
      value,
      unit: '',
    });
    const accuracy: BenchResults = {
      ...sample,
      results: [
        metric('dev set (set-code) leak precision', 0.7917),
        metric('dev set (set-code) leak recall', 1),
        metric('dev set (set-code) leak F1', 0.8837),
      ],
    };
    const table = renderAccuracySummary(accuracy);
    expect(table).toContain('| dev set (set-code) | leak | 79.2 % | 100 % | 88.4 % |');
    expect(table).not.toContain('own corpus');
    expect(table).not.toContain('Recognition');
    const withRecognition = renderAccuracySummary({
      ...accuracy,
      results: [
        ...accuracy.results,
        metric('mainnet corpus routing the transfer surface', 1230),
        { ...metric('mainnet corpus recognised as tokens', 1230), note: 'refused: 28 without x' },
      ],
    });
    expect(withRecognition).toContain(
      '1,230 recognised as tokens, of 1,230 whose dispatcher routes the transfer surface (refused: 28 without x).',
    );
  });

  it('replaces only what lies between the markers, and refuses a file without them', () => {
    const text = 'before\n<!-- m -->\nold\n<!-- /m -->\nafter\n';
    expect(replaceBetweenMarkers(text, 'm', 'new')).toBe(
      'before\n<!-- m -->\nnew\n<!-- /m -->\nafter\n',
    );
    expect(() => replaceBetweenMarkers('no markers', 'm', 'x')).toThrow(/markers/);
  });

  it('names only headline metrics that the committed results hold', () => {
    const results = loadResults();
    const missing = HEADLINES.filter(
      (h) => !results.results.some((r) => r.suite === h.suite && r.metric === h.metric),
    );
    expect(missing).toEqual([]);
  });

  it('the committed README summary and docs/benchmarks.md tables are the rendered ones', () => {
    for (const { file, committed, rendered } of renderTargets()) {
      expect(committed, `${file} is stale: run npm run bench:report`).toBe(rendered);
    }
  });
});
