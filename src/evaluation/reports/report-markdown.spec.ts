import { renderReportMarkdown } from './report-markdown';
import type { RunReport } from './report.types';

describe('renderReportMarkdown', () => {
  const report: RunReport = {
    run_id: 'r1',
    status: 'completed',
    header: { scenario_id: 's', scenario_name: 'Refunds | EU', scenario_version: 3, version: 'v3', target_id: 't', target_name: 'Bot', triggered_by: 'manual', campaign_id: null, created_at: '2026-01-01T00:00:00.000Z', started_at: '2026-01-01T00:00:01.000Z', finished_at: '2026-01-01T00:00:09.000Z' },
    summary: { total_cases: 3, passed_cases: 1, failed_cases: 1, errored_cases: 1, passed_rules: 2, total_rules: 4, pass_rate: 1 / 3, latency_p50_ms: 120, latency_p95_ms: 300, duration_ms: 8000 },
    cases: [
      { case_id: 'ok', repeat_index: 0, status: 'passed', input: 'hi', expected: null, output: 'hello', latency_ms: 120, score: 1, error: null, transcript: [], rules: [{ index: 0, type: 'contains', pass: true, score: 1, weight: 1, reason: 'found' }] },
      { case_id: 'bad', repeat_index: 0, status: 'failed', input: 'x', expected: null, output: 'line1\nline2 | pipe', latency_ms: 300, score: 0.5, error: null, transcript: [], rules: [{ index: 0, type: 'contains', pass: true, score: 1, weight: 1, reason: 'found' }, { index: 1, type: 'regex', pass: false, score: 0, weight: 1, reason: 'no match for ^a' }] },
      { case_id: 'down', repeat_index: 0, status: 'errored', input: 'y', expected: null, output: null, latency_ms: null, score: null, error: 'timeout after 500 ms', transcript: [], rules: [] },
    ],
  };

  it('renders the header, the summary and every failed rule and errored case', () => {
    const markdown = renderReportMarkdown(report);
    expect(markdown).toContain('# Evaluation report: Refunds \\| EU v3');
    expect(markdown).toContain('| Pass rate | 33.3% |');
    expect(markdown).toContain('| Rules | 2 / 4 passed |');
    expect(markdown).toContain('- **bad** rule 2 `regex` failed: no match for ^a');
    expect(markdown).toContain('- **down** errored: timeout after 500 ms');
    expect(markdown).toContain('| bad | failed | 0.5 | 300 | line1 line2 \\| pipe |');
    expect(markdown).not.toContain('rule 1 `contains` failed');
  });
});
