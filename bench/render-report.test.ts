import { describe, expect, it } from 'vitest';
import {
  type BenchResults,
  HEADLINES,
  loadResults,
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
