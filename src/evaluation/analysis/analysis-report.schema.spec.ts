import { checkDiagnosisAnswer, checkReportAnswer, parseJsonAnswer } from './analysis-report.schema';

const validReport = {
  summary: 'Refunds fail.',
  problems: [
    { id: 'refund-policy', title: 'Wrong refund window', severity: 'high', description: 'Says 60 days.', evidence: [{ case_id: 'c1', note: 'said 60 days' }], scenario_ids: ['s1'] },
  ],
  recommendations: [{ id: 'R1', title: 'Fix the policy text', description: 'Update the prompt.', problem_ids: ['refund-policy'], priority: 'high' }],
};

describe('parseJsonAnswer', () => {
  it('reads plain JSON, fenced JSON and JSON inside prose', () => {
    expect(parseJsonAnswer('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonAnswer('Here:\n```json\n{"a":2}\n```\n')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseJsonAnswer('Sure! {"a":3} hope it helps')).toEqual({ ok: true, value: { a: 3 } });
  });

  it('refuses text that holds no JSON object, and arrays', () => {
    expect(parseJsonAnswer('no json here')).toEqual({ ok: false, errors: ['the answer is not one JSON object'] });
    expect(parseJsonAnswer('[1,2]').ok).toBe(false);
    expect(parseJsonAnswer('{"a": }').ok).toBe(false);
  });
});

describe('checkReportAnswer (the report schema)', () => {
  it('accepts a valid report and drops unknown fields', () => {
    const checked = checkReportAnswer(JSON.stringify({ ...validReport, extra: true, problems: [{ ...validReport.problems[0], confidence: 0.9 }] }));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toEqual(validReport);
  });

  it('names missing fields, bad enums and bad ids with their JSON path', () => {
    const broken = {
      summary: '',
      problems: [{ id: 'has space', title: 'x', severity: 'urgent', description: 'd', evidence: [{}] }],
    };
    const checked = checkReportAnswer(JSON.stringify(broken));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    const text = checked.errors.join('\n');
    expect(text).toMatch(/\/ must have required property 'recommendations'/);
    expect(text).toMatch(/\/summary must NOT have fewer than 1 characters/);
    expect(text).toMatch(/\/problems\/0\/id must match pattern/);
    expect(text).toMatch(/\/problems\/0\/severity must be equal to one of the allowed values \(critical, high, medium, low\)/);
    expect(text).toMatch(/\/problems\/0\/evidence\/0 must have required property 'note'/);
  });

  it('refuses repeated problem or recommendation ids', () => {
    const report = {
      ...validReport,
      problems: [validReport.problems[0], { ...validReport.problems[0], title: 'Other' }],
      recommendations: [validReport.recommendations[0], validReport.recommendations[0]],
    };
    const checked = checkReportAnswer(JSON.stringify(report));
    expect(checked).toEqual({
      ok: false,
      errors: ['/problems ids must be unique; repeated: refund-policy', '/recommendations ids must be unique; repeated: R1'],
    });
  });

  it('refuses an answer that is not JSON', () => {
    expect(checkReportAnswer('I think the agent is fine.')).toEqual({ ok: false, errors: ['the answer is not one JSON object'] });
  });
});

describe('checkDiagnosisAnswer', () => {
  it('accepts a diagnosis and refuses one without findings', () => {
    const diagnosis = { summary: 'Two cases fail on dates.', findings: [{ title: 'Dates', severity: 'medium', description: 'Wrong format.', case_ids: ['c1', 'c2'] }] };
    expect(checkDiagnosisAnswer(JSON.stringify(diagnosis))).toEqual({ ok: true, value: diagnosis });
    const checked = checkDiagnosisAnswer('{"summary":"ok"}');
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors).toEqual(["/ must have required property 'findings'"]);
  });
});
