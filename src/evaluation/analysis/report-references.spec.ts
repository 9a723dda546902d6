import type { AnalysisReport } from './analysis-report.schema';
import { removeForeignReferences } from './report-references';

const RUN = '11111111-1111-4111-8111-111111111111';
const SCENARIO = '22222222-2222-4222-8222-222222222222';
const FOREIGN_RUN = '99999999-9999-4999-8999-999999999999';
const FOREIGN_SCENARIO = '88888888-8888-4888-8888-888888888888';

const report = (): AnalysisReport => ({
  summary: 's',
  problems: [
    {
      id: 'p1',
      title: 'Problem one',
      severity: 'high',
      description: 'd',
      evidence: [
        { run_id: RUN.toUpperCase(), scenario_id: SCENARIO, case_id: 'c1', note: 'all ours' },
        { run_id: FOREIGN_RUN, scenario_id: SCENARIO, note: 'foreign run, our scenario' },
        { run_id: FOREIGN_RUN, scenario_id: FOREIGN_SCENARIO, note: 'only foreign' },
        { case_id: 'ghost', note: 'unknown case only' },
        { note: 'no reference at all' },
      ],
      scenario_ids: [SCENARIO, FOREIGN_SCENARIO, SCENARIO.toUpperCase()],
    },
  ],
  recommendations: [{ id: 'r1', title: 't', description: 'd', problem_ids: ['p1', 'p-unknown'], priority: 'low' }],
});

describe('removeForeignReferences (spec Errors: foreign analysis references are removed before storage)', () => {
  it('removes runs, scenarios and cases that are not in the campaign, and items left with only foreign references', () => {
    const input = report();
    const { report: cleaned, removed } = removeForeignReferences(input, { runIds: [RUN], scenarioIds: [SCENARIO], caseIds: ['c1', 'c2'] });
    expect(cleaned.problems[0].evidence).toEqual([
      { run_id: RUN, scenario_id: SCENARIO, case_id: 'c1', note: 'all ours' },
      { scenario_id: SCENARIO, note: 'foreign run, our scenario' },
      { note: 'no reference at all' },
    ]);
    expect(cleaned.problems[0].scenario_ids).toEqual([SCENARIO]);
    expect(cleaned.recommendations[0].problem_ids).toEqual(['p1']);
    expect(removed).toEqual([
      { path: '/problems/0/evidence/1/run_id', kind: 'run', value: FOREIGN_RUN },
      { path: '/problems/0/evidence/2/run_id', kind: 'run', value: FOREIGN_RUN },
      { path: '/problems/0/evidence/2/scenario_id', kind: 'scenario', value: FOREIGN_SCENARIO },
      { path: '/problems/0/evidence/2', kind: 'evidence', value: 'only foreign' },
      { path: '/problems/0/evidence/3/case_id', kind: 'case', value: 'ghost' },
      { path: '/problems/0/evidence/3', kind: 'evidence', value: 'unknown case only' },
      { path: '/problems/0/scenario_ids/1', kind: 'scenario', value: FOREIGN_SCENARIO },
      { path: '/recommendations/0/problem_ids/1', kind: 'problem', value: 'p-unknown' },
    ]);
    // Pure: the input is untouched.
    expect(input).toEqual(report());
  });

  it('keeps case ids when no case list is given, and changes nothing in a clean report', () => {
    const clean: AnalysisReport = {
      summary: 's',
      problems: [{ id: 'p1', title: 't', severity: 'low', description: 'd', evidence: [{ run_id: RUN, case_id: 'any', note: 'n' }] }],
      recommendations: [],
    };
    expect(removeForeignReferences(clean, { runIds: [RUN], scenarioIds: [] })).toEqual({ report: clean, removed: [] });
  });
});
