import { boundedRegexTest, probeInputs, regexStructureProblems, ruleRegexProblems } from './regex-safety';

const LIMITS = { maxLength: 200, probeLength: 2000, probeTimeoutMs: 500 };

describe('rule regex safety (regex-safety.ts)', () => {
  it('accepts ordinary patterns', () => {
    for (const source of ['refund|money back', '\\d{11}', '^(hi|hello)\\b', 'order\\s*#?\\d+', '(\\d{3}-)+\\d{4}', '[\\p{Script=Han}]{2,}退款', 'a.*b', '(?<word>\\w+)@example\\.com']) {
      expect({ source, problems: ruleRegexProblems(source, LIMITS) }).toEqual({ source, problems: [] });
    }
  });

  it('refuses empty, over-long and invalid sources with a readable reason', () => {
    expect(ruleRegexProblems('', LIMITS)).toEqual(['is empty']);
    expect(ruleRegexProblems('a'.repeat(201), LIMITS)).toEqual(['is 201 characters long; at most 200 are allowed']);
    expect(ruleRegexProblems('(unclosed', LIMITS)[0]).toMatch(/^is not a valid regular expression: /);
    expect(ruleRegexProblems('a{', LIMITS)[0]).toMatch(/^is not a valid regular expression: /);
  });

  it('refuses patterns matching every message', () => {
    expect(ruleRegexProblems('x*', LIMITS)).toEqual(['matches an empty text, so it would match every message']);
  });

  it('refuses backreferences and nested unbounded repetition statically', () => {
    expect(regexStructureProblems('(a)\\1')).toEqual(['backreferences (\\1, \\k<name>) are not allowed']);
    expect(regexStructureProblems('(?<x>a)\\k<x>')).toEqual(['backreferences (\\1, \\k<name>) are not allowed']);
    for (const source of ['(a+)+$', '(\\w*\\s?)*x', '((ab)*c)+', '(x+){2,50}y', '(?:a|b+)*c']) {
      expect({ source, problems: regexStructureProblems(source) }).toEqual({ source, problems: ['a repeated group contains an unbounded quantifier (like (a+)+), which can take exponential time'] });
    }
    for (const source of ['(ab)+', '(a{2})+', '(x+){2}', '[(+)]+', '\\(a+\\)+', '\\u{1F600}+', '\\p{L}+']) {
      expect({ source, problems: regexStructureProblems(source) }).toEqual({ source, problems: [] });
    }
  });

  it('refuses patterns that are slow on adversarial input (bounded evaluation), within the time budget', () => {
    const started = Date.now();
    const problems = ruleRegexProblems('.*a.*b.*c', LIMITS);
    expect(problems).toEqual([expect.stringMatching(/^it takes longer than 500 ms on a 2000-character text \(catastrophic backtracking\)/)]);
    expect(ruleRegexProblems('(a|a)*b', LIMITS)[0]).toMatch(/catastrophic backtracking/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('builds probes from the pattern\'s characters and common ones, each as long as the text limit', () => {
    const probes = probeInputs('x+y', 10);
    expect(probes).toContain(`${'x'.repeat(9)}\u0000`);
    expect(probes).toContain(`${'y'.repeat(9)}\u0000`);
    expect(probes).toContain(`${'a'.repeat(9)}\u0000`);
    expect(probes.every((probe) => probe.length === 10)).toBe(true);
  });

  it('interrupts a runaway evaluation after the time limit', () => {
    const started = Date.now();
    expect(boundedRegexTest(/(a+)+$/, `${'a'.repeat(40)}!`, 30)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(boundedRegexTest(/refund/i, 'I want a REFUND', 30)).toBe(true);
    expect(boundedRegexTest(/refund/i, 'hello', 30)).toBe(false);
  });
});
