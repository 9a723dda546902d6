import type { CampaignPlanEntry } from './campaign.entity';
import { aggregateCampaignResults, CampaignCaseFact, CampaignRunFacts } from './campaign-results';

const A = '0f8fad5b-d9cb-469f-a165-70867728950e';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const C = '16fd2706-8baf-433b-82eb-8c7fada847da';

const entry = (scenarioId: string, scenarioName: string, scenarioVersion = 1): CampaignPlanEntry => ({ scenarioId, scenarioName, scenarioVersion, repeatCount: 1, concurrency: 1 });
const passed = (caseId: string, latencyMs: number | null = 100): CampaignCaseFact => ({ caseId, status: 'passed', latencyMs });
const failed = (caseId: string, latencyMs: number | null = 100): CampaignCaseFact => ({ caseId, status: 'failed', latencyMs });
const errored = (caseId: string): CampaignCaseFact => ({ caseId, status: 'errored', latencyMs: null });
const run = (runId: string, scenarioId: string | null, cases: CampaignCaseFact[], overrides: Partial<CampaignRunFacts> = {}): CampaignRunFacts => ({
  runId, scenarioId, status: 'completed', expectedCases: cases.length, cases, ...overrides,
});

describe('aggregateCampaignResults', () => {
  const plan = [entry(A, 'Refunds', 3), entry(B, 'Greetings', 1)];

  it('aggregates per scenario and overall', () => {
    const results = aggregateCampaignResults(plan, [
      run('r1', A, [passed('a1', 10), passed('a2', 20), failed('a3', 30), errored('a4')]),
      run('r2', B, [passed('b1', 40), failed('b2', 50)]),
    ]);
    expect(results).toMatchObject({
      runs: 2, completed_runs: 2, total_cases: 6, passed_cases: 3, failed_cases: 2, errored_cases: 1, pass_rate: 0.5, run_ids: ['r1', 'r2'],
    });
    expect(results.scenarios).toEqual([
      { scenario_id: A, scenario_name: 'Refunds', scenario_version: 3, runs: 1, completed_runs: 1, total_cases: 4, passed_cases: 2, failed_cases: 1, errored_cases: 1, pass_rate: 0.5, latency_p50_ms: 20, latency_p95_ms: 30, failed_case_ids: ['a3', 'a4'] },
      { scenario_id: B, scenario_name: 'Greetings', scenario_version: 1, runs: 1, completed_runs: 1, total_cases: 2, passed_cases: 1, failed_cases: 1, errored_cases: 0, pass_rate: 0.5, latency_p50_ms: 40, latency_p95_ms: 50, failed_case_ids: ['b2'] },
    ]);
  });

  it('counts a case missing from a run as not passed (and not as failed or errored)', () => {
    const results = aggregateCampaignResults(plan, [run('r1', A, [passed('a1'), passed('a2')], { status: 'cancelled', expectedCases: 4 })]);
    expect(results.scenarios[0]).toMatchObject({ runs: 1, completed_runs: 0, total_cases: 4, passed_cases: 2, failed_cases: 0, errored_cases: 0, pass_rate: 0.5, failed_case_ids: [] });
    expect(results).toMatchObject({ total_cases: 4, passed_cases: 2, pass_rate: 0.5 });
  });

  it('counts a failed run with no stored case as all cases not passed', () => {
    const results = aggregateCampaignResults(plan, [run('r1', B, [], { status: 'failed', expectedCases: 3 })]);
    expect(results.scenarios[1]).toMatchObject({ runs: 1, completed_runs: 0, total_cases: 3, passed_cases: 0, pass_rate: 0, latency_p50_ms: null, latency_p95_ms: null });
  });

  it('counts errored cases separately from failed ones and lists both in failed_case_ids, distinct and sorted', () => {
    const results = aggregateCampaignResults([entry(A, 'Refunds')], [
      run('r1', A, [errored('z'), failed('m'), passed('a')]),
      run('r2', A, [failed('z'), errored('m'), errored('b')]),
    ]);
    expect(results.scenarios[0]).toMatchObject({ runs: 2, total_cases: 6, passed_cases: 1, failed_cases: 2, errored_cases: 3, failed_case_ids: ['b', 'm', 'z'] });
  });

  it('lists every plan scenario in plan order, with zeros when it has no runs yet', () => {
    const results = aggregateCampaignResults([entry(B, 'Greetings'), entry(A, 'Refunds', 2)], [run('r1', A, [passed('a1')])]);
    expect(results.scenarios.map((item) => item.scenario_id)).toEqual([B, A]);
    expect(results.scenarios[0]).toEqual({
      scenario_id: B, scenario_name: 'Greetings', scenario_version: 1, runs: 0, completed_runs: 0, total_cases: 0, passed_cases: 0, failed_cases: 0, errored_cases: 0,
      pass_rate: 0, latency_p50_ms: null, latency_p95_ms: null, failed_case_ids: [],
    });
  });

  it('returns zeros for a campaign without runs', () => {
    expect(aggregateCampaignResults(plan, [])).toMatchObject({ runs: 0, completed_runs: 0, total_cases: 0, pass_rate: 0, latency_p50_ms: null, latency_p95_ms: null, run_ids: [] });
  });

  it('uses nearest-rank percentiles over all stored latencies, leaving out null ones', () => {
    const latencies = Array.from({ length: 20 }, (_, index) => (index + 1) * 10); // 10..200
    const results = aggregateCampaignResults([entry(A, 'Refunds')], [
      run('r1', A, latencies.slice(0, 10).map((ms, index) => passed(`c${index}`, ms))),
      run('r2', A, [...latencies.slice(10).map((ms, index) => passed(`d${index}`, ms)), errored('e')]),
    ]);
    // 20 values: p50 = rank 10 → 100; p95 = rank 19 → 190.
    expect(results).toMatchObject({ latency_p50_ms: 100, latency_p95_ms: 190 });
    expect(results.scenarios[0]).toMatchObject({ latency_p50_ms: 100, latency_p95_ms: 190 });
  });

  it('skips runs that are still queued or running', () => {
    const results = aggregateCampaignResults(plan, [run('r1', A, [passed('a1')]), run('r2', A, [failed('a2')], { status: 'running' }), run('r3', B, [], { status: 'queued', expectedCases: 2 })]);
    expect(results).toMatchObject({ runs: 1, total_cases: 1, passed_cases: 1, failed_cases: 0, run_ids: ['r1'] });
  });

  it('groups a scenario planned twice into one entry, and counts runs outside the plan in the totals only', () => {
    const results = aggregateCampaignResults([entry(A, 'Refunds'), entry(A, 'Refunds')], [
      run('r1', A, [passed('a1')]),
      run('r2', A, [failed('a1')]),
      run('r3', C, [passed('x')]),
      run('r4', null, [passed('y')]),
    ]);
    expect(results.scenarios).toHaveLength(1);
    expect(results.scenarios[0]).toMatchObject({ runs: 2, total_cases: 2, passed_cases: 1, failed_case_ids: ['a1'] });
    expect(results).toMatchObject({ runs: 4, total_cases: 4, passed_cases: 3, pass_rate: 0.75 });
  });

  it('rounds pass rates to 4 decimals', () => {
    const results = aggregateCampaignResults([entry(A, 'Refunds')], [run('r1', A, [passed('a'), failed('b'), failed('c')])]);
    expect(results.pass_rate).toBe(0.3333);
  });
});
