import { checkEvidence, checkPlanConsistency, checkReportConsistency, citedIds, IntelligentReport } from './intelligent-report';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const M1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const M2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

/** Factory: a consistent report citing session S1 and its message M1. */
function newReport(overrides: Partial<IntelligentReport> = {}): IntelligentReport {
  return {
    summary: 'Mostly fine.',
    verdict: 'partial',
    scores: [
      { dimension: 'accuracy', score: 0.8, rationale: null },
      { dimension: 'tone', score: 1, rationale: null },
    ],
    findings: [{ id: 'F1', title: 'Wrong refund window', severity: 'high', description: null, evidence: [{ session_id: S1, message_id: M1, note: null }] }],
    recommendations: [{ title: 'Fix the refund policy prompt', description: null, priority: 'high', finding_ids: ['F1'] }],
    ...overrides,
  };
}

describe('checkPlanConsistency', () => {
  it('accepts unique dimensions and step ids', () => {
    expect(checkPlanConsistency({ dimensions: ['accuracy', 'tone'], steps: [{ id: 's1', title: 'a', description: null }, { id: 's2', title: 'b', description: null }] })).toEqual([]);
  });

  it('names each repeated dimension and step id by its position', () => {
    const errors = checkPlanConsistency({
      dimensions: ['accuracy', 'tone', 'accuracy'],
      steps: [{ id: 's1', title: 'a', description: null }, { id: 's1', title: 'b', description: null }],
    });
    expect(errors).toEqual([
      { field: 'plan.dimensions[2]', messages: ['dimension "accuracy" appears more than once'] },
      { field: 'plan.steps[1].id', messages: ['step id "s1" appears more than once'] },
    ]);
  });
});

describe('checkReportConsistency', () => {
  it('accepts a consistent report covering the plan, with an extra dimension', () => {
    expect(checkReportConsistency(newReport(), ['accuracy'])).toEqual([]);
  });

  it('accepts a report when there is no planned dimension', () => {
    expect(checkReportConsistency(newReport({ findings: [], recommendations: [] }), [])).toEqual([]);
  });

  it('requires a score for every planned dimension', () => {
    expect(checkReportConsistency(newReport(), ['accuracy', 'safety', 'latency'])).toEqual([
      { field: 'scores', messages: ['dimension "safety" of the approved plan has no score', 'dimension "latency" of the approved plan has no score'] },
    ]);
  });

  it('refuses a dimension scored twice', () => {
    const report = newReport({ scores: [{ dimension: 'tone', score: 1, rationale: null }, { dimension: 'tone', score: 0, rationale: null }] });
    expect(checkReportConsistency(report, [])).toEqual([{ field: 'scores[1].dimension', messages: ['dimension "tone" appears more than once'] }]);
  });

  it('refuses repeated finding ids and recommendations citing unknown findings', () => {
    const finding = newReport().findings[0];
    const report = newReport({
      findings: [finding, { ...finding }],
      recommendations: [{ title: 'x', description: null, priority: 'low', finding_ids: ['F1', 'F9'] }],
    });
    expect(checkReportConsistency(report, [])).toEqual([
      { field: 'findings[1].id', messages: ['finding id "F1" appears more than once'] },
      { field: 'recommendations[0].finding_ids[1]', messages: ['"F9" is not the id of a finding in this report'] },
    ]);
  });
});

describe('evidence references', () => {
  it('lists each cited session and message once', () => {
    const finding = newReport().findings[0];
    const report = newReport({ findings: [finding, { ...finding, id: 'F2', evidence: [{ session_id: S1, message_id: null, note: null }, { session_id: S2, message_id: M2, note: null }] }] });
    expect(citedIds(report)).toEqual({ sessionIds: [S1, S2], messageIds: [M1, M2] });
  });

  it('accepts references to sessions and messages of the evaluation', () => {
    expect(checkEvidence(newReport(), new Set([S1]), new Map([[M1, S1]]))).toEqual([]);
  });

  it('accepts a session reference without a message', () => {
    const report = newReport({ findings: [{ ...newReport().findings[0], evidence: [{ session_id: S1, message_id: null, note: 'whole session' }] }] });
    expect(checkEvidence(report, new Set([S1]), new Map())).toEqual([]);
  });

  it('refuses an unknown session, an unknown message, and a message of another session', () => {
    const report = newReport({
      findings: [
        {
          ...newReport().findings[0],
          evidence: [
            { session_id: S2, message_id: M1, note: null },
            { session_id: S1, message_id: M2, note: null },
            { session_id: S1, message_id: M1, note: null },
          ],
        },
      ],
    });
    expect(checkEvidence(report, new Set([S1]), new Map([[M2, '33333333-3333-4333-8333-333333333333']]))).toEqual([
      { field: 'findings[0].evidence[0].session_id', messages: [`session ${S2} is not a session of this evaluation`] },
      { field: 'findings[0].evidence[1].message_id', messages: [`message ${M2} belongs to session 33333333-3333-4333-8333-333333333333, not to session ${S1}`] },
      { field: 'findings[0].evidence[2].message_id', messages: [`message ${M1} is not a message of this evaluation`] },
    ]);
  });
});
