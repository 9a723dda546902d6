import { JudgeAnswerError } from './judge-answer';
import { parseCommaList } from './promptfoo-dialect';
import { evaluateRule, validateRuleDefinition } from './rule-evaluator';
import type { RuleDefinition } from './rule.types';

const pf = (rule: Record<string, unknown>) => ({ ...rule, dialect: 'promptfoo' }) as unknown as RuleDefinition;
const reply = (output: string, latencyMs = 10) => ({ output, latencyMs });

describe('parseCommaList', () => {
  it.each<[string, string[]]>([
    ['a, b', ['a', 'b']],
    ['"q, r", s', ['q, r', 's']],
    ['"say ""hi""", x', ['say "hi"', 'x']],
    [' , z', ['z']],
  ])('%j', (text, list) => expect(parseCommaList(text)).toEqual(list));

  it('refuses a quoted field not followed by a comma', () => expect(() => parseCommaList('"a" b')).toThrow(/comma/));
});

describe('dialect: "promptfoo" (issue 24 item 4)', () => {
  it('keeps whitespace and code units as promptfoo does, where the Atrium dialect trims and normalises', async () => {
    expect((await evaluateRule(pf({ type: 'equals', value: 'Paris' }), reply('Paris\n'))).pass).toBe(false);
    expect((await evaluateRule({ type: 'equals', value: 'Paris' }, reply('Paris\n'))).pass).toBe(true);
    expect((await evaluateRule(pf({ type: 'contains', value: 'caf\u00e9' }), reply('cafe\u0301'))).pass).toBe(false);
    expect((await evaluateRule(pf({ type: 'word-count', value: { min: 2, max: 2 } }), reply('你好，世界'))).pass).toBe(false);
  });

  it('reads promptfoo shapes: word-count value, is-json value schema, icontains-any, numbers', async () => {
    expect((await evaluateRule(pf({ type: 'word-count', value: 3 }), reply('one two three'))).pass).toBe(true);
    expect((await evaluateRule(pf({ type: 'is-json', value: { type: 'object', required: ['a'] } }), reply('{"b":1}'))).pass).toBe(false);
    expect((await evaluateRule(pf({ type: 'icontains-any', value: 'REFUND, return' }), reply('a refund'))).pass).toBe(true);
    expect((await evaluateRule(pf({ type: 'contains', value: 42 }), reply('order 42'))).pass).toBe(true);
  });

  it('refuses what promptfoo throws on, when saved', () => {
    expect(validateRuleDefinition(pf({ type: 'word-count', value: { min: 3, max: 1 } }))).toEqual(['word-count (promptfoo dialect): value.min must not exceed value.max']);
    expect(validateRuleDefinition(pf({ type: 'latency' }))).toEqual(['latency (promptfoo dialect): threshold is required: the max latency in ms']);
    expect(validateRuleDefinition(pf({ type: 'regex', value: '(a)\\1' }))[0]).toMatch(/regex \(promptfoo dialect\): invalid regex/);
  });

  it('llm-rubric: promptfoo threshold and inverse arithmetic over the strict reading; an unreadable answer is errored', async () => {
    const judge = async () => ({ pass: true, score: 0.6, reason: 'fine' });
    expect(await evaluateRule(pf({ type: 'llm-rubric', value: 'r', threshold: 0.7 }), reply('x'), judge)).toMatchObject({ pass: false, score: 0.6 });
    expect(await evaluateRule(pf({ type: 'not-llm-rubric', value: 'r' }), reply('x'), judge)).toMatchObject({ pass: false, score: 0.4 });
    const unreadable = async () => {
      throw new JudgeAnswerError('unreadable judge answer: no JSON object in it');
    };
    expect(await evaluateRule(pf({ type: 'llm-rubric', value: 'r' }), reply('x'), unreadable)).toMatchObject({ pass: false, errored: true });
    expect(await evaluateRule({ type: 'llm-rubric', value: 'r' }, reply('x'), unreadable)).toMatchObject({ pass: false, errored: true });
  });

  it('weight 0 is informational in both dialects (the case verdict ignores it)', async () => {
    const result = await evaluateRule(pf({ type: 'contains', value: 'absent', weight: 0 }), reply('x'));
    expect(result).toMatchObject({ pass: false, weight: 0 });
  });
});
