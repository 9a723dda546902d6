import { diagnosisMessages, DIAGNOSIS_TASK, narrationMessages, NARRATION_TASK, synthesisMessages, SYNTHESIS_TASK, truncateText } from './analysis-prompts';

describe('truncateText', () => {
  it('keeps short texts and null, cuts long ones with a marker', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText(null, 3)).toBeNull();
    expect(truncateText('abcdef', 4)).toBe('abcd… [truncated, 2 more characters]');
  });
});

describe('analysis prompts', () => {
  const campaign = { id: 'c', name: 'March', line: 'production', target_name: 'bot' };
  const scenario = { scenario_id: 's', scenario_name: 'Refunds', scenario_version: 2, runs: 1, completed_runs: 1, total_cases: 2, passed_cases: 1, failed_cases: 1, errored_cases: 0, pass_rate: 0.5, latency_p50_ms: 10, latency_p95_ms: 20 };

  it('start with a task line per kind and carry the facts as JSON', () => {
    const failures = [{ run_id: 'r', case_id: 'c1', repeat_index: 0, status: 'failed' as const, input: 'hi', output: 'bye', failed_rules: [{ type: 'contains', reason: 'missing "refund"' }], error: null }];
    const diagnosis = diagnosisMessages({ campaign, scenario, failures, totalFailures: 7 });
    expect(diagnosis[0].content.split('\n')[0]).toBe(DIAGNOSIS_TASK);
    expect(JSON.parse(diagnosis[1].content).failure_sample).toEqual({ shown: 1, total_failed_or_errored_results: 7, cases: failures });

    const synthesis = synthesisMessages({ campaign, overall: scenario, scenarios: [{ ...scenario, run_ids: ['r'] }], diagnoses: [], earlierProblems: [{ id: 'p1', title: 'T', severity: 'low' }] });
    expect(synthesis[0].content.startsWith(SYNTHESIS_TASK)).toBe(true);
    expect(synthesis[0].content).toContain('"problem_ids"');
    expect(JSON.parse(synthesis[1].content)).toMatchObject({ scenarios: [{ scenario_id: 's', run_ids: ['r'] }], earlier_problems: [{ id: 'p1' }] });

    const narration = narrationMessages({ campaign, baseline: { ...campaign, id: 'b' }, comparison: { trend: 'stable' } as never });
    expect(narration[0].content.startsWith(NARRATION_TASK)).toBe(true);
  });
});
