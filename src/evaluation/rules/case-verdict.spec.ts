import { caseVerdict } from './case-verdict';
import type { RuleResult } from './rule.types';

const rule = (pass: boolean, weight = 1, score = pass ? 1 : 0): RuleResult => ({ type: 'contains', pass, score, reason: '', weight });

describe('caseVerdict', () => {
  it('passes with no rules', () => expect(caseVerdict([])).toEqual({ pass: true, score: 1 }));
  it('passes with no rules even with a threshold', () => expect(caseVerdict([], 0.9)).toEqual({ pass: true, score: 1 }));

  it.each<[string, RuleResult[], number | undefined, { pass: boolean; score: number }]>([
    ['all pass, no threshold', [rule(true), rule(true)], undefined, { pass: true, score: 1 }],
    ['one fails, no threshold', [rule(true), rule(false)], undefined, { pass: false, score: 0.5 }],
    ['weighted mean', [rule(true, 3), rule(false, 1)], undefined, { pass: false, score: 0.75 }],
    ['weighted score reaches threshold', [rule(true, 3), rule(false, 1)], 0.75, { pass: true, score: 0.75 }],
    ['weighted score under threshold', [rule(true, 1), rule(false, 3)], 0.5, { pass: false, score: 0.25 }],
    ['rounding noise still meets threshold', [rule(true, 1, 0.7), rule(true, 1, 0.7), rule(true, 1, 0.7)], 0.7, { pass: true, score: 0.7 }],
    ['threshold 0 always passes', [rule(false)], 0, { pass: true, score: 0 }],
    ['threshold 1 needs every weighted rule', [rule(true, 1), rule(false, 0)], 1, { pass: true, score: 1 }],
    ['weight-0 failure is informational: it does not fail the case (issue 24)', [rule(true, 1), rule(false, 0)], undefined, { pass: true, score: 1 }],
    ['weight-0 rules alone never fail the case', [rule(false, 0)], undefined, { pass: true, score: 0 }],
    ['a weighted failure still fails beside a weight-0 pass', [rule(false, 1), rule(true, 0)], undefined, { pass: false, score: 0 }],
    ['all weights 0 → plain mean', [rule(true, 0), rule(false, 0)], 0.5, { pass: true, score: 0.5 }],
    ['judge scores count fractionally', [rule(true, 1, 0.8), rule(true, 1)], 0.9, { pass: true, score: 0.9 }],
    ['score rounded to 4 decimals', [rule(true), rule(false), rule(false)], undefined, { pass: false, score: 0.3333 }],
  ])('%s', (_name, results, threshold, expected) => expect(caseVerdict(results, threshold)).toEqual(expected));

  it.each([-0.1, 1.5, Number.NaN])('throws RangeError for threshold %p', (threshold) => {
    expect(() => caseVerdict([rule(true)], threshold)).toThrow(RangeError);
  });
});
