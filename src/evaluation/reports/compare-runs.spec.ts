import type { RunSummary } from '../rules/run-summary';
import { caseOutcome, compareRuns } from './compare-runs';

const summary = (passedCases: number, totalCases: number, passedRules: number): RunSummary => ({
  total_cases: totalCases,
  passed_cases: passedCases,
  failed_cases: totalCases - passedCases,
  errored_cases: 0,
  passed_rules: passedRules,
  total_rules: 10,
  pass_rate: passedCases / totalCases,
  latency_p50_ms: 10,
  latency_p95_ms: 20,
  duration_ms: 100,
});

describe('compareRuns', () => {
  it('computes deltas b − a and marks changed cases by id', () => {
    const result = compareRuns(
      { summary: summary(1, 4, 5), cases: [{ case_id: 'a', status: 'passed', score: 1 }, { case_id: 'b', status: 'failed', score: 0 }, { case_id: 'c', status: 'errored', score: null }, { case_id: 'gone', status: 'passed', score: 1 }] },
      { summary: summary(3, 4, 9), cases: [{ case_id: 'a', status: 'passed', score: 1 }, { case_id: 'b', status: 'passed', score: 1 }, { case_id: 'c', status: 'errored', score: null }, { case_id: 'new', status: 'failed', score: 0.5 }] },
    );
    expect(result.delta).toEqual({ pass_rate: 0.5, passed_cases: 2, passed_rules: 4 });
    expect(result.cases).toEqual([
      { case_id: 'a', status_a: 'passed', status_b: 'passed', score_a: 1, score_b: 1, changed: false },
      { case_id: 'b', status_a: 'failed', status_b: 'passed', score_a: 0, score_b: 1, changed: true },
      { case_id: 'c', status_a: 'errored', status_b: 'errored', score_a: null, score_b: null, changed: false },
      { case_id: 'gone', status_a: 'passed', status_b: null, score_a: 1, score_b: null, changed: true },
      { case_id: 'new', status_a: null, status_b: 'failed', score_a: null, score_b: 0.5, changed: true },
    ]);
  });

  it('folds repetitions: errored beats failed beats passed', () => {
    expect(caseOutcome([{ status: 'passed' }, { status: 'passed' }])).toBe('passed');
    expect(caseOutcome([{ status: 'passed' }, { status: 'failed' }])).toBe('failed');
    expect(caseOutcome([{ status: 'failed' }, { status: 'errored' }])).toBe('errored');
  });
});
