import { InterventionRuleInput, interventionPatternProblems, matchInterventionRules } from './intervention-rules.rules';

const rule = (overrides: Partial<InterventionRuleInput> & { id: string }): InterventionRuleInput => ({
  name: overrides.id,
  enabled: true,
  matchType: 'keywords',
  patterns: ['human'],
  allContacts: true,
  digitalStaffIds: [],
  switchAiOff: true,
  createTodo: true,
  reason: `reason ${overrides.id}`,
  ...overrides,
});

describe('matchInterventionRules', () => {
  it('matches keywords case-insensitively and lists every keyword found', () => {
    const decision = matchInterventionRules([rule({ id: 'k', patterns: ['complaint', 'manager', '投诉'] })], { text: 'I want the MANAGER, this is a complaint' });
    expect(decision).toEqual({
      matches: [{ ruleId: 'k', ruleName: 'k', matchType: 'keywords', matched: ['complaint', 'manager'], switchAiOff: true, createTodo: true, reason: 'reason k' }],
      switchAiOff: true,
      createTodo: true,
      reasons: ['reason k'],
    });
    expect(matchInterventionRules([rule({ id: 'k', patterns: ['投诉'] })], { text: '我要投诉' }).matches).toHaveLength(1);
    expect(matchInterventionRules([rule({ id: 'k', patterns: ['manager'] })], { text: 'hello' }).matches).toEqual([]);
  });

  it('matches regexes (case-insensitive, RE2) and reports the source that matched', () => {
    const decision = matchInterventionRules([rule({ id: 'r', matchType: 'regex', patterns: ['^zzz', '\\b1\\d{10}\\b'] })], { text: 'call me at 13800138000' });
    expect(decision.matches).toEqual([expect.objectContaining({ ruleId: 'r', matchType: 'regex', matched: ['\\b1\\d{10}\\b'] })]);
    expect(matchInterventionRules([rule({ id: 'r', matchType: 'regex', patterns: ['LAWYER'] })], { text: 'my lawyer' }).matches).toHaveLength(1);
  });

  it('matches intents against the detected intent only (case-insensitive)', () => {
    const rules = [rule({ id: 'i', matchType: 'intent', patterns: ['cancel_order', 'Complaint'] })];
    expect(matchInterventionRules(rules, { text: 'anything' }, 'complaint').matches).toEqual([expect.objectContaining({ matched: ['Complaint'] })]);
    expect(matchInterventionRules(rules, { text: 'complaint' }).matches).toEqual([]);
    expect(matchInterventionRules(rules, { text: 'x' }, 'greeting').matches).toEqual([]);
  });

  it('applies rules limited to digital staff only to messages answered by one of them', () => {
    const rules = [rule({ id: 'scoped', allContacts: false, digitalStaffIds: ['ds-1'] })];
    expect(matchInterventionRules(rules, { text: 'human please', digitalStaffId: 'ds-1' }).matches).toHaveLength(1);
    expect(matchInterventionRules(rules, { text: 'human please', digitalStaffId: 'ds-2' }).matches).toEqual([]);
    expect(matchInterventionRules(rules, { text: 'human please' }).matches).toEqual([]);
  });

  it('skips disabled rules and combines the actions and reasons of all matches in order', () => {
    const rules = [
      rule({ id: 'off', enabled: false }),
      rule({ id: 'a', switchAiOff: false, createTodo: true, reason: 'needs a person' }),
      rule({ id: 'b', switchAiOff: true, createTodo: false, reason: 'needs a person' }),
      rule({ id: 'c', switchAiOff: false, createTodo: false, reason: 'log only' }),
    ];
    const decision = matchInterventionRules(rules, { text: 'a human!' });
    expect(decision.matches.map((match) => match.ruleId)).toEqual(['a', 'b', 'c']);
    expect(decision).toMatchObject({ switchAiOff: true, createTodo: true, reasons: ['needs a person', 'log only'] });
    const quiet = matchInterventionRules([rule({ id: 'c', switchAiOff: false, createTodo: false })], { text: 'human' });
    expect(quiet).toMatchObject({ switchAiOff: false, createTodo: false });
  });

  it('looks only at the first maxChars characters', () => {
    const rules = [rule({ id: 'k', patterns: ['human'] }), rule({ id: 'r', matchType: 'regex', patterns: ['human$'] })];
    const text = `${'x'.repeat(50)}human`;
    expect(matchInterventionRules(rules, { text }).matches).toHaveLength(2);
    expect(matchInterventionRules(rules, { text }, null, { maxChars: 50 }).matches).toEqual([]);
  });

  it('evaluates catastrophic-backtracking shapes correctly and quickly (RE2, issue 19 item 3)', () => {
    const rules = [
      rule({ id: 'nested', matchType: 'regex', patterns: ['^(a+)+$'] }),
      rule({ id: 'alt', matchType: 'regex', patterns: ['(a|aa)+$'] }),
      rule({ id: 'star', matchType: 'regex', patterns: ['(?:a|b|ab)*c'] }),
      rule({ id: 'k', patterns: ['aaa'] }),
    ];
    const started = Date.now();
    expect(matchInterventionRules(rules, { text: `${'a'.repeat(50_000)}!` }).matches.map((match) => match.ruleId)).toEqual(['k']);
    expect(matchInterventionRules(rules, { text: 'a'.repeat(50_000) }).matches.map((match) => match.ruleId)).toEqual(['nested', 'alt', 'k']);
    expect(matchInterventionRules(rules, { text: `${'ab'.repeat(25_000)}c` }).matches.map((match) => match.ruleId)).toEqual(['star']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('interventionPatternProblems', () => {
  const limits = { maxPatterns: 3, maxPatternLength: 20 };

  it('accepts good keywords, regexes and intent names', () => {
    expect(interventionPatternProblems('keywords', ['complaint', '投诉'], limits)).toEqual([]);
    expect(interventionPatternProblems('regex', ['^refund', '\\d{11}'], limits)).toEqual([]);
    expect(interventionPatternProblems('intent', ['cancel_order', 'after-sales: refund'], limits)).toEqual([]);
  });

  it('refuses empty and over-long lists', () => {
    expect(interventionPatternProblems('keywords', [], limits)).toEqual([{ index: null, message: 'needs at least one entry' }]);
    expect(interventionPatternProblems('keywords', ['a', 'b', 'c', 'd'], limits)).toEqual([{ index: null, message: 'has 4 entries; at most 3 are allowed' }]);
  });

  it('names each bad entry by index: blank, padded, too long, repeated (keywords case-insensitively), bad intent names', () => {
    expect(interventionPatternProblems('keywords', [' ', 'x '], limits)).toEqual([{ index: 0, message: 'is empty' }, { index: 1, message: 'must not start or end with spaces' }]);
    expect(interventionPatternProblems('keywords', ['x'.repeat(21)], limits)).toEqual([{ index: 0, message: 'is 21 characters long; at most 20 are allowed' }]);
    expect(interventionPatternProblems('keywords', ['Refund', 'REFUND'], limits)).toEqual([{ index: 1, message: 'repeats patterns[0]' }]);
    expect(interventionPatternProblems('intent', ['ok', 'bad!name'], limits)).toEqual([{ index: 1, message: 'an intent name has letters, digits, spaces, "_", ".", ":" or "-" only' }]);
  });

  it('runs every regex through the RE2 checks, naming unsupported constructs', () => {
    const problems = interventionPatternProblems('regex', ['ok', '(a+)+$', '(x', '(a)\\1', 'a(?=b)'], { ...limits, maxPatterns: 5 });
    expect(problems.map((problem) => problem.index)).toEqual([2, 3, 4]);
    expect(problems[0].message).toMatch(/^is not a valid regular expression for the RE2 engine/);
    expect(problems[1].message).toMatch(/backreference "\\1"/);
    expect(problems[2].message).toMatch(/lookahead "\(\?="/);
  });
});
