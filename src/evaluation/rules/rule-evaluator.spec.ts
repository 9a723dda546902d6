import { evaluateRule, MAX_REGEX_INPUT_CHARS, validateRuleDefinition } from './rule-evaluator';
import { NEGATABLE_RULE_TYPES, type RubricJudge, type RuleDefinition, RULE_TYPES } from './rule.types';

const reply = (output: string, latencyMs = 100) => ({ output, latencyMs });

const ORDER_SCHEMA = {
  type: 'object',
  required: ['id', 'total'],
  properties: { id: { type: 'string' }, total: { type: 'number' } },
};

/** [description, rule, output, latencyMs, expected pass] — every deterministic type passes once and fails once. */
const DETERMINISTIC: [string, RuleDefinition, string, number, boolean][] = [
  ['contains: present', { type: 'contains', value: 'refund' }, 'Your refund is on its way', 100, true],
  ['contains: case differs', { type: 'contains', value: 'refund' }, 'Your REFUND is on its way', 100, false],
  ['icontains: case differs', { type: 'icontains', value: 'refund' }, 'Your REFUND is on its way', 100, true],
  ['icontains: absent', { type: 'icontains', value: 'refund' }, 'Your order shipped', 100, false],
  ['contains-any: one present', { type: 'contains-any', value: ['refund', 'return'] }, 'Start a return here', 100, true],
  ['contains-any: none present', { type: 'contains-any', value: ['refund', 'return'] }, 'Order shipped', 100, false],
  ['contains-any: icase', { type: 'contains-any', value: ['REFUND'], icase: true }, 'a refund', 100, true],
  ['contains-all: all present', { type: 'contains-all', value: ['order', '42'] }, 'order 42 shipped', 100, true],
  ['contains-all: one missing', { type: 'contains-all', value: ['order', '43'] }, 'order 42 shipped', 100, false],
  ['contains-all: icase', { type: 'contains-all', value: ['ORDER', 'Shipped'], icase: true }, 'order shipped', 100, true],
  ['contains-all: case-sensitive by default', { type: 'contains-all', value: ['ORDER'] }, 'order', 100, false],
  ['equals: text, outer whitespace trimmed', { type: 'equals', value: ' Paris ' }, '\nParis\n', 100, true],
  ['equals: text, case-sensitive', { type: 'equals', value: 'Paris' }, 'paris', 100, false],
  ['equals: JSON object, key order ignored', { type: 'equals', value: { a: 1, b: [1, 2] } }, '{"b":[1,2],"a":1}', 100, true],
  ['equals: JSON array order kept', { type: 'equals', value: { b: [2, 1] } }, '{"b":[1,2]}', 100, false],
  ['equals: JSON number', { type: 'equals', value: 42 }, ' 42 ', 100, true],
  ['equals: JSON value vs non-JSON output', { type: 'equals', value: { a: 1 } }, 'a is 1', 100, false],
  ['equals: JSON extra key', { type: 'equals', value: { a: 1 } }, '{"a":1,"b":2}', 100, false],
  ['starts-with: prefix after leading whitespace', { type: 'starts-with', value: 'Hello' }, '  Hello there', 100, true],
  ['starts-with: not a prefix', { type: 'starts-with', value: 'Hello' }, 'Oh, Hello', 100, false],
  ['regex: matches', { type: 'regex', value: '^order #\\d+$' }, 'order #123', 100, true],
  ['regex: no match', { type: 'regex', value: '^order #\\d+$' }, 'order #abc', 100, false],
  ['regex: flags', { type: 'regex', value: '^ORDER', flags: 'i' }, 'order 1', 100, true],
  ['regex: g flag has no effect', { type: 'regex', value: 'a', flags: 'g' }, 'a', 100, true],
  ['is-json: object', { type: 'is-json' }, ' {"a": 1} ', 100, true],
  ['is-json: prose', { type: 'is-json' }, 'Sure! {"a": 1}', 100, false],
  ['is-json: with schema, valid', { type: 'is-json', schema: ORDER_SCHEMA }, '{"id":"A1","total":3}', 100, true],
  ['is-json: with schema, invalid', { type: 'is-json', schema: ORDER_SCHEMA }, '{"id":"A1"}', 100, false],
  ['json-schema: valid', { type: 'json-schema', schema: ORDER_SCHEMA }, '{"id":"A1","total":3.5}', 100, true],
  ['json-schema: schema in value', { type: 'json-schema', value: ORDER_SCHEMA }, '{"id":"A1","total":3.5}', 100, true],
  ['json-schema: wrong type', { type: 'json-schema', schema: ORDER_SCHEMA }, '{"id":"A1","total":"3"}', 100, false],
  ['json-schema: not JSON', { type: 'json-schema', schema: ORDER_SCHEMA }, 'no', 100, false],
  ['word-count: within', { type: 'word-count', min: 2, max: 4 }, 'one two, three!', 100, true],
  ['word-count: too many', { type: 'word-count', max: 2 }, 'one two three', 100, false],
  ['word-count: too few', { type: 'word-count', min: 4 }, 'one two three', 100, false],
  ['word-count: Chinese words by Unicode segmentation', { type: 'word-count', min: 2, max: 2 }, '你好，世界', 100, true],
  ['word-count: punctuation is not a word', { type: 'word-count', max: 1 }, 'ok — !', 100, true],
  ['levenshtein: within default 5', { type: 'levenshtein', value: 'kitten' }, 'sitting', 100, true],
  ['levenshtein: over threshold', { type: 'levenshtein', value: 'kitten', threshold: 2 }, 'sitting', 100, false],
  ['levenshtein: length difference alone', { type: 'levenshtein', value: 'a', threshold: 3 }, 'abcdefgh', 100, false],
  ['levenshtein: exact, trimmed', { type: 'levenshtein', value: 'yes', threshold: 0 }, ' yes\n', 100, true],
  ['latency: at the max', { type: 'latency', threshold: 2000 }, 'x', 2000, true],
  ['latency: over the max', { type: 'latency', threshold: 2000 }, 'x', 2001, false],
  ['latency: unknown', { type: 'latency', threshold: 2000 }, 'x', Number.NaN, false],
  ['is-refusal: English', { type: 'is-refusal' }, "I'm sorry, but I can't help with that.", 100, true],
  ['is-refusal: Chinese', { type: 'is-refusal' }, '抱歉，我无法提供这方面的信息。', 100, true],
  ['is-refusal: empty output', { type: 'is-refusal' }, '  \n', 100, true],
  ['is-refusal: an answer', { type: 'is-refusal' }, 'Your refund was issued today.', 100, false],
];

describe('evaluateRule: deterministic types', () => {
  it.each(DETERMINISTIC)('%s', async (_name, rule, output, latencyMs, pass) => {
    const result = await evaluateRule(rule, reply(output, latencyMs));
    expect(result).toMatchObject({ type: rule.type, pass, score: pass ? 1 : 0, weight: 1 });
    expect(result.reason).not.toBe('');
  });

  it('covers every base type with a passing and a failing example (llm-rubric is tested below)', () => {
    const seen = new Map<string, Set<boolean>>();
    for (const [, rule, , , pass] of DETERMINISTIC) seen.set(rule.type, (seen.get(rule.type) ?? new Set()).add(pass));
    const bases = RULE_TYPES.filter((t) => !t.startsWith('not-') && t !== 'llm-rubric');
    for (const type of bases) expect([type, [...(seen.get(type) ?? [])].sort()]).toEqual([type, [false, true]]);
  });
});

describe('evaluateRule: not- negation', () => {
  const negatable = DETERMINISTIC.filter(([, rule]) => (NEGATABLE_RULE_TYPES as readonly string[]).includes(rule.type));

  it.each(negatable)('not- %s', async (_name, rule, output, latencyMs, pass) => {
    const result = await evaluateRule({ ...rule, type: `not-${rule.type}` as RuleDefinition['type'] }, reply(output, latencyMs));
    expect(result).toMatchObject({ type: `not-${rule.type}`, pass: !pass, score: pass ? 0 : 1 });
  });

  it('covers every negatable type with a passing and a failing example', () => {
    for (const type of NEGATABLE_RULE_TYPES) {
      const outcomes = new Set(negatable.filter(([, r]) => r.type === type).map(([, , , , pass]) => pass));
      expect([type, outcomes.size]).toEqual([type, 2]);
    }
  });

  it('reads naturally: not-contains fails with the evidence', async () => {
    const result = await evaluateRule({ type: 'not-contains', value: 'sorry' }, reply('So sorry!'));
    expect(result).toEqual({ type: 'not-contains', pass: false, score: 0, reason: 'output contains "sorry"', weight: 1 });
  });

  it('never turns an invalid rule into a pass', async () => {
    const result = await evaluateRule({ type: 'not-regex', value: '(' }, reply('anything'));
    expect(result).toMatchObject({ pass: false, score: 0 });
    expect(result.reason).toMatch(/^invalid rule: not-regex: invalid regex/);
  });
});

describe('evaluateRule: reasons', () => {
  it('json-schema lists the first Ajv errors', async () => {
    const result = await evaluateRule({ type: 'json-schema', schema: ORDER_SCHEMA }, reply('{"total":"x"}'));
    expect(result.reason).toBe(
      "output JSON does not match the schema: / must have required property 'id'; /total must be number",
    );
  });

  it('regex and json-schema run catastrophic-backtracking shapes in linear time, with correct verdicts (RE2)', async () => {
    const hostile = `${'a'.repeat(50_000)}!`;
    const started = Date.now();
    expect((await evaluateRule({ type: 'regex', value: '^(a+)+$' }, reply(hostile))).pass).toBe(false);
    expect((await evaluateRule({ type: 'regex', value: '^(a+)+$' }, reply('a'.repeat(50_000)))).pass).toBe(true);
    expect((await evaluateRule({ type: 'not-regex', value: '(a|aa)+$' }, reply(hostile))).pass).toBe(true);
    const star = await evaluateRule({ type: 'regex', value: '(?:a|b|ab)*c', flags: 'i' }, reply(`${'ab'.repeat(25_000)}C`));
    expect(star.pass).toBe(true);
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    expect((await evaluateRule({ type: 'json-schema', schema }, reply(JSON.stringify({ s: hostile })))).pass).toBe(false);
    expect((await evaluateRule({ type: 'json-schema', schema }, reply(JSON.stringify({ s: 'aaa' })))).pass).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('regex examines at most the first 100k characters', async () => {
    const output = `${'a'.repeat(MAX_REGEX_INPUT_CHARS)}needle`;
    const result = await evaluateRule({ type: 'regex', value: 'needle' }, reply(output));
    expect(result.pass).toBe(false);
    expect(result.reason).toContain('first 100000 characters examined');
  });

  it('latency reports ms', async () => {
    const result = await evaluateRule({ type: 'latency', threshold: 1500 }, reply('x', 1800));
    expect(result.reason).toBe('latency 1800 ms, more than the max 1500 ms');
  });

  it('keeps the weight', async () => {
    expect((await evaluateRule({ type: 'contains', value: 'a', weight: 2.5 }, reply('a'))).weight).toBe(2.5);
    expect((await evaluateRule({ type: 'contains', value: 'a', weight: 0 }, reply('a'))).weight).toBe(0);
  });
});

describe('evaluateRule: llm-rubric', () => {
  const rubric = 'The reply apologises and offers a refund';
  const judgeReturning =
    (verdict: { pass: boolean; score: number; reason: string }): RubricJudge =>
    async () =>
      verdict;

  it('passes on the judge verdict and stores its reason and score', async () => {
    const judge = jest.fn(judgeReturning({ pass: true, score: 0.8, reason: 'Apologises and offers a refund.' }));
    const result = await evaluateRule({ type: 'llm-rubric', value: rubric, threshold: 0.7 }, reply('Sorry! Refund sent.'), judge);
    expect(result).toEqual({ type: 'llm-rubric', pass: true, score: 0.8, reason: 'Apologises and offers a refund.', weight: 1 });
    expect(judge).toHaveBeenCalledWith({ rubric, output: 'Sorry! Refund sent.', threshold: 0.7 });
  });

  it('fails when the judge fails', async () => {
    const judge = judgeReturning({ pass: false, score: 0.2, reason: 'No refund offered.' });
    expect(await evaluateRule({ type: 'llm-rubric', value: rubric }, reply('No.'), judge)).toMatchObject({
      pass: false,
      score: 0.2,
      reason: 'No refund offered.',
    });
  });

  it('fails when the score is under the rule threshold even if the judge passes', async () => {
    const judge = judgeReturning({ pass: true, score: 0.6, reason: 'Partly.' });
    expect((await evaluateRule({ type: 'llm-rubric', value: rubric, threshold: 0.7 }, reply('x'), judge)).pass).toBe(false);
  });

  it('clamps the judge score to 0..1', async () => {
    const judge = judgeReturning({ pass: true, score: 7, reason: 'ok' });
    expect((await evaluateRule({ type: 'llm-rubric', value: rubric }, reply('x'), judge)).score).toBe(1);
  });

  it('fails without a judge', async () => {
    expect(await evaluateRule({ type: 'llm-rubric', value: rubric }, reply('x'))).toMatchObject({
      pass: false,
      score: 0,
      reason: 'no judge model configured for llm-rubric',
    });
  });

  it('fails, without throwing, when the judge rejects', async () => {
    const judge: RubricJudge = async () => {
      throw new Error('model timeout');
    };
    expect(await evaluateRule({ type: 'llm-rubric', value: rubric }, reply('x'), judge)).toMatchObject({
      pass: false,
      score: 0,
      reason: 'judge failed: model timeout',
    });
  });
});

describe('evaluateRule: never throws', () => {
  it.each([
    ['unknown type', { type: 'containz', value: 'a' }],
    ['missing value', { type: 'contains' }],
    ['negative weight', { type: 'contains', value: 'a', weight: -1 }],
    ['not an object', null],
  ])('%s gives a failed result', async (_name, rule) => {
    const result = await evaluateRule(rule as unknown as RuleDefinition, reply('a'));
    expect(result).toMatchObject({ pass: false, score: 0, weight: 1 });
    expect(result.reason).toMatch(/^invalid rule: /);
  });
});

const LIST = 'value must be a non-empty array of non-empty strings, or a comma-separated string such as "refund, return" (double-quote an item holding a comma)';

describe('validateRuleDefinition', () => {
  it.each<[string, unknown]>([
    ['contains', { type: 'contains', value: 'refund', weight: 2 }],
    ['not-contains', { type: 'not-contains', value: 'sorry' }],
    ['contains-any with icase', { type: 'contains-any', value: ['a', 'b'], icase: true }],
    ['equals JSON null', { type: 'equals', value: null }],
    ['equals empty text', { type: 'equals', value: '' }],
    ['regex with flags', { type: 'regex', value: '\\d+', flags: 'iu' }],
    ['is-json without schema', { type: 'is-json' }],
    ['json-schema with unknown keyword and format', { type: 'json-schema', schema: { type: 'string', format: 'email', example: 'x' } }],
    ['word-count max only', { type: 'word-count', max: 10 }],
    ['levenshtein empty value', { type: 'levenshtein', value: '', threshold: 0 }],
    ['latency', { type: 'latency', threshold: 0 }],
    ['is-refusal', { type: 'not-is-refusal', weight: 0 }],
    ['llm-rubric', { type: 'llm-rubric', value: 'Polite', threshold: 1 }],
  ])('accepts %s', (_name, rule) => expect(validateRuleDefinition(rule)).toEqual([]));

  it.each<[unknown, string[]]>([
    [null, ['rule must be an object']],
    [['contains'], ['rule must be an object']],
    [{ value: 'x' }, ['rule type must be a non-empty string']],
    [{ type: 'containz', value: 'x' }, [expect.stringMatching(/^unknown rule type "containz" \(known: contains, icontains/)]],
    [{ type: 'not-latency', threshold: 10 }, ['"not-latency": latency has no negation']],
    [{ type: 'not-llm-rubric', value: 'x' }, ['"not-llm-rubric": llm-rubric has no negation']],
    [{ type: 'contains' }, ['contains: value must be a non-empty string (a number is read as its text)']],
    [{ type: 'contains', value: Number.NaN }, ['contains: value must be a non-empty string (a number is read as its text)']],
    [{ type: 'contains-all', value: ',' }, [`contains-all: ${LIST}`]],
    [{ type: 'contains', value: 'x', locale: 'not a locale!' }, ['locale must be a BCP 47 language tag such as "tr" or "de-DE"']],
    [{ type: 'contains', value: 'x', normalize: 'NFD' }, ['normalize must be one of NFC, NFKC']],
    [{ type: 'contains', value: 'x', dialect: 'jest' }, ['dialect must be one of atrium, promptfoo']],
    [{ type: 'json-schema', value: {}, dialect: 'promptfoo' }, ['json-schema (promptfoo dialect): json-schema is not a promptfoo type: write is-json with the schema as value']],
    [{ type: 'starts-with', value: '' }, ['starts-with: value must be a non-empty string']],
    [{ type: 'contains-any', value: [] }, [`contains-any: ${LIST}`]],
    [{ type: 'contains-any', value: ['a'], icase: 'yes' }, ['contains-any: icase must be a boolean']],
    [{ type: 'equals' }, ['equals: value is required']],
    [{ type: 'regex', value: '([a-z' }, [expect.stringMatching(/^regex: invalid regex: /)]],
    [{ type: 'regex', value: 'a', flags: 'q' }, [expect.stringMatching(/^regex: invalid regex: /)]],
    [{ type: 'regex', value: '(a)\\1' }, ['regex: invalid regex: uses a backreference "\\1", which the linear-time RE2 engine does not support']],
    [{ type: 'regex', value: 'a(?<=b)' }, [expect.stringMatching(/^regex: invalid regex: uses a lookbehind "\(\?<="/)]],
    [{ type: 'json-schema', schema: { type: 'string', pattern: '^(?!x)' } }, [expect.stringMatching(/^json-schema: invalid JSON schema: schema.pattern "\^\(\?!x\)" uses a negative lookahead/)]],
    [{ type: 'json-schema' }, ['json-schema: schema is required (in `schema` or `value`)']],
    [{ type: 'json-schema', schema: { type: 'nope' } }, [expect.stringMatching(/^json-schema: invalid JSON schema: schema is invalid/)]],
    [{ type: 'is-json', schema: 'string' }, ['is-json: invalid JSON schema: schema must be a JSON object']],
    [{ type: 'json-schema', schema: { $ref: 'https://example.com/s.json' } }, [expect.stringMatching(/^json-schema: invalid JSON schema: /)]],
    [{ type: 'word-count' }, ['word-count: min or max is required']],
    [{ type: 'word-count', min: 5, max: 2 }, ['word-count: min must not exceed max']],
    [{ type: 'word-count', min: 1.5 }, ['word-count: min must be an integer >= 0']],
    [{ type: 'levenshtein', value: 3 }, ['levenshtein: value must be a string']],
    [{ type: 'levenshtein', value: 'a', threshold: -1 }, ['levenshtein: threshold must be an integer >= 0 (max edit distance)']],
    [{ type: 'latency' }, ['latency: threshold is required: the max latency in ms, a number >= 0']],
    [{ type: 'latency', threshold: '500' }, ['latency: threshold is required: the max latency in ms, a number >= 0']],
    [{ type: 'llm-rubric', value: 'x', threshold: 1.5 }, ['llm-rubric: threshold must be a number between 0 and 1']],
    [{ type: 'llm-rubric' }, ['llm-rubric: value must be a non-empty string']],
    [{ type: 'contains', value: 'a', weight: -1 }, ['weight must be a number >= 0']],
    [{ type: 'contains', value: 'a', weight: '2' }, ['weight must be a number >= 0']],
    [{ type: 'contains', weight: Number.NaN }, ['contains: value must be a non-empty string (a number is read as its text)', 'weight must be a number >= 0']],
  ])('refuses %j', (rule, problems) => expect(validateRuleDefinition(rule)).toEqual(problems));
});
