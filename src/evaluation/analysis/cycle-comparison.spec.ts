import type { AnalysisReport } from './analysis-report.schema';
import { compareCycles, ComparedResults, metricDeltas, normaliseTitle, problemEvolution, ProblemSummary, trackRecommendations, trendIndicator } from './cycle-comparison';

const S1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const S2 = 'aaaaaaaa-0000-4000-8000-000000000002';

const metrics = (passed: number, total: number, p50: number | null = 100, p95: number | null = 200) => ({
  pass_rate: total ? Math.round((passed / total) * 10_000) / 10_000 : 0,
  passed_cases: passed,
  total_cases: total,
  latency_p50_ms: p50,
  latency_p95_ms: p95,
});

const results = (s1: [number, number], s2: [number, number] | null, latency: { p50: number; p95: number } = { p50: 100, p95: 200 }): ComparedResults => {
  const scenarios = [{ scenario_id: S1, scenario_name: 'Refunds', ...metrics(s1[0], s1[1], latency.p50, latency.p95) }];
  if (s2) scenarios.push({ scenario_id: S2, scenario_name: 'Orders', ...metrics(s2[0], s2[1], latency.p50, latency.p95) });
  const passed = scenarios.reduce((sum, s) => sum + s.passed_cases, 0);
  const total = scenarios.reduce((sum, s) => sum + s.total_cases, 0);
  return { ...metrics(passed, total, latency.p50, latency.p95), scenarios };
};

describe('metricDeltas', () => {
  it('gives current, baseline and delta overall and per scenario', () => {
    const deltas = metricDeltas(results([4, 4], [1, 4], { p50: 80, p95: 150 }), results([2, 4], [2, 4]));
    expect(deltas.overall.pass_rate).toEqual({ current: 0.625, baseline: 0.5, delta: 0.125 });
    expect(deltas.overall.passed_cases).toEqual({ current: 5, baseline: 4, delta: 1 });
    expect(deltas.overall.latency_p50_ms).toEqual({ current: 80, baseline: 100, delta: -20 });
    expect(deltas.overall.latency_p95_ms).toEqual({ current: 150, baseline: 200, delta: -50 });
    expect(deltas.scenarios.map((s) => [s.scenario_id, s.pass_rate.delta, s.passed_cases.delta])).toEqual([
      [S1, 0.5, 2],
      [S2, -0.25, -1],
    ]);
  });

  it('rounds float noise away and leaves latency deltas null when a side has no latency', () => {
    const current = results([1, 3], null);
    current.latency_p50_ms = null;
    const deltas = metricDeltas(current, results([0, 3], null));
    expect(deltas.overall.pass_rate.delta).toBe(0.3333);
    expect(deltas.overall.latency_p50_ms).toEqual({ current: null, baseline: 100, delta: null });
  });

  it('counts a scenario missing from the current campaign as 0 passed, never as unchanged', () => {
    const deltas = metricDeltas(results([3, 4], null), results([3, 4], [4, 4]));
    const missing = deltas.scenarios.find((s) => s.scenario_id === S2)!;
    expect(missing).toMatchObject({ missing_in_current: true, missing_in_baseline: false });
    expect(missing.pass_rate).toEqual({ current: 0, baseline: 1, delta: -1 });
    expect(missing.passed_cases).toEqual({ current: 0, baseline: 4, delta: -4 });
    expect(missing.total_cases).toEqual({ current: 4, baseline: 4, delta: 0 });
  });

  it('marks a scenario new in the current plan as missing in the baseline', () => {
    const deltas = metricDeltas(results([3, 4], [1, 2]), results([3, 4], null));
    expect(deltas.scenarios[1]).toMatchObject({ scenario_id: S2, missing_in_baseline: true, pass_rate: { current: 0.5, baseline: null, delta: null } });
  });
});

describe('problemEvolution', () => {
  const p = (id: string, title: string, severity: ProblemSummary['severity'] = 'medium'): ProblemSummary => ({ id, title, severity });

  it('matches by id first, then by normalised title; the rest are resolved or new', () => {
    const baseline = [p('refund', 'Wrong refund window', 'high'), p('tone', 'Rude tone'), p('p3', 'Dates: wrong format!', 'low')];
    const current = [p('refund', 'Refund window still wrong', 'critical'), p('p9', 'dates wrong  format', 'low'), p('new-1', 'Hallucinated order ids', 'high')];
    const evolution = problemEvolution(baseline, current);
    expect(evolution.resolved).toEqual([p('tone', 'Rude tone')]);
    expect(evolution.persisting).toEqual([
      { ...p('refund', 'Refund window still wrong', 'critical'), baseline_id: 'refund', baseline_title: 'Wrong refund window', baseline_severity: 'high', matched_by: 'id', severity_change: 'worse' },
      { ...p('p9', 'dates wrong  format', 'low'), baseline_id: 'p3', baseline_title: 'Dates: wrong format!', baseline_severity: 'low', matched_by: 'title', severity_change: 'same' },
    ]);
    expect(evolution.new).toEqual([p('new-1', 'Hallucinated order ids', 'high')]);
  });

  it('matches each baseline problem at most once', () => {
    const evolution = problemEvolution([p('a', 'Same title')], [p('x', 'Same title'), p('y', 'same TITLE')]);
    expect(evolution.persisting.map((item) => item.id)).toEqual(['x']);
    expect(evolution.new.map((item) => item.id)).toEqual(['y']);
    expect(evolution.resolved).toEqual([]);
  });

  it('normalises titles: case, punctuation, spacing, Unicode forms', () => {
    expect(normaliseTitle('  Refund — policy, WRONG!! ')).toBe('refund policy wrong');
    expect(normaliseTitle('ｆｕｌｌ width')).toBe('full width');
  });
});

describe('trendIndicator (documented rule)', () => {
  it('improving: +0.02 or more and no new critical or high problem', () => {
    expect(trendIndicator(0.02, []).trend).toBe('improving');
    expect(trendIndicator(0.3, [{ id: 'n', title: 't', severity: 'medium' }]).trend).toBe('improving');
  });

  it('regressing: −0.02 or worse, or any new critical problem (even with a better pass rate)', () => {
    expect(trendIndicator(-0.02, []).trend).toBe('regressing');
    const critical = trendIndicator(0.5, [{ id: 'boom', title: 't', severity: 'critical' }]);
    expect(critical.trend).toBe('regressing');
    expect(critical.reason).toMatch(/new critical problem: boom/);
  });

  it('stable otherwise: small changes, or a rise with a new high problem', () => {
    expect(trendIndicator(0.0199, []).trend).toBe('stable');
    expect(trendIndicator(-0.0199, []).trend).toBe('stable');
    expect(trendIndicator(null, []).trend).toBe('stable');
    const high = trendIndicator(0.1, [{ id: 'h', title: 't', severity: 'high' }]);
    expect(high).toEqual({ trend: 'stable', reason: expect.stringMatching(/new high problem appeared: h/) });
  });
});

describe('trackRecommendations', () => {
  const baselineReport: AnalysisReport = {
    summary: 's',
    problems: [
      { id: 'refund', title: 'Refund window', severity: 'high', description: 'd', evidence: [{ scenario_id: S1, note: 'n' }] },
      { id: 'orders', title: 'Order lookup', severity: 'medium', description: 'd', evidence: [], scenario_ids: [S2] },
    ],
    recommendations: [
      { id: 'r-refund', title: 'Fix refunds', description: 'd', problem_ids: ['refund'], priority: 'high' },
      { id: 'r-orders', title: 'Fix orders', description: 'd', problem_ids: ['orders'], priority: 'medium' },
      { id: 'r-none', title: 'Be nicer', description: 'd', problem_ids: [], priority: 'low' },
    ],
  };

  it('says which recommendations were followed by an improvement and why', () => {
    // Refunds improved (+0.5) and its problem persists; orders got worse and its problem persists.
    const deltas = metricDeltas(results([4, 4], [1, 4]), results([2, 4], [2, 4]));
    const evolution = problemEvolution(baselineReport.problems, [
      { id: 'refund', title: 'Refund window', severity: 'medium' },
      { id: 'orders', title: 'Order lookup', severity: 'medium' },
    ]);
    const outcomes = trackRecommendations(baselineReport, evolution, deltas);
    expect(outcomes.map((o) => [o.recommendation_id, o.followed_by_improvement])).toEqual([
      ['r-refund', true],
      ['r-orders', false],
      ['r-none', false],
    ]);
    expect(outcomes[0]).toMatchObject({ improved_scenario_ids: [S1], resolved_problem_ids: [], persisting_problem_ids: ['refund'] });
    expect(outcomes[0].why).toMatch(/pass rate rose in "Refunds" \(\+0\.5\)/);
    expect(outcomes[1].why).toMatch(/problem orders persists; the pass rate of its scenarios did not rise: "Orders" \(-0\.25\)/);
    expect(outcomes[2].why).toMatch(/named no problem/);
  });

  it('counts a resolved problem as an improvement even when the pass rate did not move', () => {
    const deltas = metricDeltas(results([2, 4], [2, 4]), results([2, 4], [2, 4]));
    const evolution = problemEvolution(baselineReport.problems, [{ id: 'refund', title: 'Refund window', severity: 'high' }]);
    const outcome = trackRecommendations(baselineReport, evolution, deltas).find((o) => o.recommendation_id === 'r-orders')!;
    expect(outcome).toMatchObject({ followed_by_improvement: true, resolved_problem_ids: ['orders'], why: 'Followed by an improvement: resolved problem orders.' });
  });
});

describe('compareCycles', () => {
  it('puts the parts together with the trend from the overall pass rate and the new problems', () => {
    const report = (problems: AnalysisReport['problems']): AnalysisReport => ({ summary: 's', problems, recommendations: [] });
    const comparison = compareCycles(
      { results: results([1, 4], null), report: report([{ id: 'x', title: 'X', severity: 'low', description: 'd', evidence: [] }]) },
      { results: results([4, 4], null), report: report([]) },
    );
    expect(comparison.trend).toBe('regressing');
    expect(comparison.metrics.overall.pass_rate.delta).toBe(-0.75);
    expect(comparison.problem_evolution.new.map((p) => p.id)).toEqual(['x']);
    expect(comparison.recommendation_tracking).toEqual([]);
  });
});
