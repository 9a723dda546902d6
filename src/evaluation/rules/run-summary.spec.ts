import { type CaseOutcome, nearestRank, summariseRun } from './run-summary';

const outcome = (status: CaseOutcome['status'], latencyMs: number | null, rulesPassed = 1, rulesTotal = 1): CaseOutcome => ({
  status,
  latencyMs,
  rulesPassed,
  rulesTotal,
});

describe('nearestRank', () => {
  it.each<[number[], number, number | null]>([
    [[], 50, null],
    [[7], 95, 7],
    [[15, 20, 35, 40, 50], 5, 15],
    [[15, 20, 35, 40, 50], 30, 20],
    [[15, 20, 35, 40, 50], 40, 20],
    [[15, 20, 35, 40, 50], 50, 35],
    [[15, 20, 35, 40, 50], 100, 50],
    [[50, 15, 40, 20, 35], 50, 35],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 0, 1],
    [Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
    [Array.from({ length: 100 }, (_, i) => 100 - i), 95, 95],
  ])('%j at p%d is %p', (values, p, expected) => expect(nearestRank(values, p)).toBe(expected));
});

describe('summariseRun', () => {
  it('summarises cases, rules and latencies', () => {
    const cases = [
      outcome('passed', 120, 3, 3),
      outcome('passed', 80, 2, 2),
      outcome('failed', 300, 1, 3),
      outcome('errored', null, 0, 2),
    ];
    expect(summariseRun(cases, 4321.6)).toEqual({
      total_cases: 4,
      passed_cases: 2,
      failed_cases: 1,
      errored_cases: 1,
      passed_rules: 6,
      total_rules: 10,
      pass_rate: 0.5,
      latency_p50_ms: 120,
      latency_p95_ms: 300,
      duration_ms: 4322,
    });
  });

  it('rounds pass_rate to 4 decimals', () => {
    const cases = [outcome('passed', 1), outcome('failed', 2), outcome('failed', 3)];
    expect(summariseRun(cases, 10).pass_rate).toBe(0.3333);
  });

  it('handles no cases', () => {
    expect(summariseRun([], 0)).toEqual({
      total_cases: 0,
      passed_cases: 0,
      failed_cases: 0,
      errored_cases: 0,
      passed_rules: 0,
      total_rules: 0,
      pass_rate: 0,
      latency_p50_ms: null,
      latency_p95_ms: null,
      duration_ms: 0,
    });
  });

  it('gives null percentiles when every case errored without a reply', () => {
    const summary = summariseRun([outcome('errored', null, 0, 1), outcome('errored', null, 0, 1)], 50);
    expect(summary).toMatchObject({ errored_cases: 2, pass_rate: 0, latency_p50_ms: null, latency_p95_ms: null });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('throws RangeError for duration %p', (durationMs) => {
    expect(() => summariseRun([], durationMs)).toThrow(RangeError);
  });
});
