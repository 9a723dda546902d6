import { compileRuleRegex, ruleRegexProblems } from './regex-safety';

const LIMITS = { maxLength: 200 };

describe('rule regexes (regex-safety.ts, RE2)', () => {
  it('accepts ordinary patterns', () => {
    for (const source of ['refund|money back', '\\d{11}', '^(hi|hello)\\b', 'order\\s*#?\\d+', '(\\d{3}-)+\\d{4}', '[\\p{Script=Han}]{2,}退款', 'a.*b', '(?<word>\\w+)@example\\.com']) {
      expect({ source, problems: ruleRegexProblems(source, LIMITS) }).toEqual({ source, problems: [] });
    }
  });

  it('accepts the classic catastrophic shapes: RE2 runs them in linear time', () => {
    for (const source of ['^(a+)+$', '(a|aa)+$', '(?:a|b|ab)*c', '.*a.*b.*c', '(\\w*\\s?)*x']) {
      expect({ source, problems: ruleRegexProblems(source, LIMITS) }).toEqual({ source, problems: [] });
    }
    const started = Date.now();
    expect(compileRuleRegex('^(a+)+$').test(`${'a'.repeat(50_000)}!`)).toBe(false);
    expect(compileRuleRegex('(?:a|b|ab)*c').test(`${'ab'.repeat(25_000)}C`)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses empty, over-long and invalid sources with a readable reason', () => {
    expect(ruleRegexProblems('', LIMITS)).toEqual(['is empty']);
    expect(ruleRegexProblems('a'.repeat(201), LIMITS)).toEqual(['is 201 characters long; at most 200 are allowed']);
    expect(ruleRegexProblems('(unclosed', LIMITS)[0]).toMatch(/^is not a valid regular expression for the RE2 engine: /);
  });

  it('refuses backreferences and lookaround, naming the construct', () => {
    expect(ruleRegexProblems('(a)\\1', LIMITS)).toEqual(['uses a backreference "\\1", which the linear-time RE2 engine does not support']);
    expect(ruleRegexProblems('(?<x>a)\\k<x>', LIMITS)[0]).toMatch(/named backreference/);
    expect(ruleRegexProblems('refund(?!ed)', LIMITS)[0]).toMatch(/negative lookahead "\(\?!"/);
    expect(ruleRegexProblems('(?<=my )refund', LIMITS)[0]).toMatch(/lookbehind "\(\?<="/);
  });

  it('refuses patterns matching every message', () => {
    expect(ruleRegexProblems('x*', LIMITS)).toEqual(['matches an empty text, so it would match every message']);
  });

  it('matches case-insensitively', () => {
    expect(compileRuleRegex('refund').test('I want a REFUND')).toBe(true);
    expect(compileRuleRegex('refund').test('hello')).toBe(false);
  });
});
