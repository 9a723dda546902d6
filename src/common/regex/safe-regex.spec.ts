import Ajv from 'ajv';
import { toRe2Syntax, unsupportedRegexConstruct } from './regex-dialect';
import { ajvSafeRegExp, compileSafeRegex, regexFlagsProblem, RegexSyntaxError, safeRegexProblem } from './safe-regex';
import { schemaPatternProblems, schemaPatterns } from './schema-patterns';

const HOSTILE = `${'a'.repeat(50_000)}!`;

describe('unsupportedRegexConstruct (regex-dialect.ts)', () => {
  it('names each construct RE2 cannot run', () => {
    const cases: [string, string][] = [
      ['(a)\\1', 'backreference "\\1"'],
      ['(?<x>a)\\k<x>', 'named backreference "\\k<name>"'],
      ['(?P<x>a)(?P=x)', 'named backreference "(?P=name)"'],
      ['a(?=b)', 'lookahead "(?="'],
      ['a(?!b)', 'negative lookahead "(?!"'],
      ['(?<=a)b', 'lookbehind "(?<="'],
      ['(?<!a)b', 'negative lookbehind "(?<!"'],
      ['(?>a+)b', 'atomic group "(?>"'],
      ['a++b', 'possessive quantifier "++"'],
      ['a*+b', 'possessive quantifier "*+"'],
      ['a{2,5}+', 'possessive quantifier "{2,5}+"'],
      ['(?(1)a|b)', 'conditional "(?("'],
      ['(a(?R)?b)', 'recursion "(?R)"'],
      ['(a(?1)?b)', 'recursion "(?1)"'],
      ['(?|(a)|(b))', 'branch reset group "(?|"'],
    ];
    for (const [source, construct] of cases) {
      expect({ source, problem: unsupportedRegexConstruct(source) }).toEqual({ source, problem: expect.stringContaining(construct) });
      expect(unsupportedRegexConstruct(source)).toMatch(/which the linear-time RE2 engine does not support$/);
    }
  });

  it('does not mistake escaped or bracketed look-alikes for those constructs', () => {
    for (const source of ['\\(?=x\\)', '[(?=]', '[\\1]', 'a+?b', 'a*?', '(?:a|b)+', '(?<name>x)', '(?i)abc', '\\\\1', 'x}+', '[]a', '[^](?:b)']) {
      expect({ source, problem: unsupportedRegexConstruct(source) }).toEqual({ source, problem: null });
    }
  });
});

describe('toRe2Syntax (regex-dialect.ts)', () => {
  it('translates JavaScript escapes RE2 spells differently', () => {
    expect(toRe2Syntax('\\u00e9')).toBe('\\x{00e9}');
    expect(toRe2Syntax('\\u{1F600}')).toBe('\\x{1F600}');
    expect(toRe2Syntax('\\uD83D\\uDE00')).toBe('\\x{1F600}');
    expect(toRe2Syntax('\\cJ')).toBe('\\x{A}');
    expect(toRe2Syntax('\\p{Script=Han}\\P{sc=Latin}\\p{gc=Lu}')).toBe('\\p{Han}\\P{Latin}\\p{Lu}');
    expect(toRe2Syntax('a\\/b')).toBe('a/b');
    expect(toRe2Syntax('[[a]')).toBe('[\\[a]');
  });
});

describe('compileSafeRegex (safe-regex.ts)', () => {
  it('matches as JavaScript does for ordinary patterns', () => {
    const samples: [string, string, string][] = [
      ['refund|money back', '', 'I want my money back'],
      ['\\b1\\d{10}\\b', '', 'call 13800138000 now'],
      ['^(hi|hello)\\b', 'i', 'HELLO there'],
      ['order\\s*#?\\d+', '', 'order #42'],
      ['[\\p{Script=Han}]{2,}退款', '', '我要退款'],
      ['(?<word>\\w+)@example\\.com', '', 'mail bob@example.com'],
      ['^b$', 'm', 'a\nb\nc'],
      ['a.b', 's', 'a\nb'],
      ['\\u00e9t\\u00e9', 'i', 'ÉTÉ'],
      ['\\s', '', 'full\u3000width'],
      ['x[^]y', '', 'x\ny'],
      ['😀+', '', 'yay 😀😀'],
    ];
    for (const [source, flags, text] of samples) {
      const native = new RegExp(source, `${flags}u`).exec(text);
      const safe = compileSafeRegex(source, flags).exec(text);
      expect({ source, match: safe }).toEqual({ source, match: native ? { text: native[0], index: native.index } : null });
    }
    expect(compileSafeRegex('^a$').test('a\n')).toBe(false);
    expect(compileSafeRegex('a.b').test('a\nb')).toBe(false);
    expect(compileSafeRegex('x[]y').test('xy')).toBe(false);
    expect(compileSafeRegex('\\S+').exec('\u3000ab\u3000')).toEqual({ text: 'ab', index: 1 });
  });

  it('runs the classic catastrophic patterns in linear time with correct verdicts', () => {
    // V8 needs seconds to years for these on 50,000 characters; RE2 finishes in milliseconds.
    const started = Date.now();
    expect(compileSafeRegex('^(a+)+$').test(HOSTILE)).toBe(false);
    expect(compileSafeRegex('^(a+)+$').test('a'.repeat(50_000))).toBe(true);
    expect(compileSafeRegex('(a|aa)+$').test(HOSTILE)).toBe(false);
    expect(compileSafeRegex('(a|aa)+$').test(`${HOSTILE}aa`)).toBe(true);
    expect(compileSafeRegex('(?:a|b|ab)*c').test('ab'.repeat(25_000))).toBe(false);
    expect(compileSafeRegex('(?:a|b|ab)*c').exec(`${'ab'.repeat(25_000)}c`)).toEqual({ text: `${'ab'.repeat(25_000)}c`, index: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses unsupported constructs, flags and bad syntax with a RegexSyntaxError naming them', () => {
    expect(() => compileSafeRegex('(a)\\1')).toThrow(new RegexSyntaxError('uses a backreference "\\1", which the linear-time RE2 engine does not support'));
    expect(() => compileSafeRegex('a(?=b)')).toThrow(/lookahead "\(\?="/);
    expect(() => compileSafeRegex('(unclosed')).toThrow(/^is not a valid regular expression for the RE2 engine: missing closing \)/);
    expect(() => compileSafeRegex('a{2,5000}')).toThrow(/invalid repeat count/);
    expect(() => compileSafeRegex('\\h')).toThrow(/invalid escape sequence/);
    expect(() => compileSafeRegex('a', 'x')).toThrow('flag "x" is not supported (use i, m, s; u, g, y and d have no effect)');
    expect(safeRegexProblem('a(?<!b)')).toMatch(/negative lookbehind/);
    expect(safeRegexProblem('ok', 'gimsuy')).toBeNull();
  });

  it('checks flag strings', () => {
    expect(regexFlagsProblem('')).toBeNull();
    expect(regexFlagsProblem('igu')).toBeNull();
    expect(regexFlagsProblem('ii')).toBe('flag "i" is repeated');
    expect(regexFlagsProblem('v')).toMatch(/flag "v" is not supported/);
    expect(compileSafeRegex('A', 'giu').flags).toBe('i');
  });
});

describe('ajvSafeRegExp (Ajv code.regExp)', () => {
  const ajv = () => new Ajv({ allErrors: true, strict: false, logger: false, code: { regExp: ajvSafeRegExp } });

  it('runs pattern, patternProperties and additionalProperties through RE2, with correct verdicts', () => {
    const validate = ajv().compile({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '(a|aa)+$' } },
      patternProperties: { '^x(?:a|b|ab)*c$': { type: 'number' } },
      additionalProperties: { not: {} },
    });
    const started = Date.now();
    expect(validate({ a: HOSTILE })).toBe(false);
    expect(validate({ a: 'a'.repeat(50_000), b: HOSTILE })).toBe(false);
    expect(validate({ a: 'aaa', b: 'baa' })).toBe(true);
    expect(validate({ xababc: 1 })).toBe(true);
    expect(validate({ xababc: 'one' })).toBe(false);
    expect(validate({ [`x${'ab'.repeat(25_000)}`]: 1 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keeps different patterns apart (Ajv keys compiled patterns by toString)', () => {
    const validate = ajv().compile({ type: 'object', properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } } });
    expect(validate({ a: 'a', b: 'b' })).toBe(true);
    expect(validate({ a: 'a', b: 'a' })).toBe(false);
  });

  it('makes the schema fail to compile on a pattern RE2 cannot run, naming the construct', () => {
    expect(() => ajv().compile({ type: 'string', pattern: '(a)\\1' })).toThrow(/backreference "\\1"/);
    expect(() => ajv().compile({ type: 'object', patternProperties: { '^(?=x)': { type: 'number' } } })).toThrow(/lookahead/);
  });
});

describe('schemaPatterns / schemaPatternProblems (schema-patterns.ts)', () => {
  const schema = {
    type: 'object',
    properties: { code: { type: 'string', pattern: '^[A-Z]+$' }, list: { type: 'array', items: [{ pattern: 'a(?=b)' }] } },
    patternProperties: { '^x(\\d)\\1$': { type: 'string' } },
    examples: [{ pattern: '(?=ignored: data, not schema)' }],
  };

  it('finds every pattern and patternProperties key outside data keywords, in document order', () => {
    expect(schemaPatterns(schema, 'inputSchema')).toEqual([
      { path: 'inputSchema.properties.code.pattern', source: '^[A-Z]+$' },
      { path: 'inputSchema.properties.list.items[0].pattern', source: 'a(?=b)' },
      { path: 'inputSchema.patternProperties', source: '^x(\\d)\\1$' },
    ]);
  });

  it('names the construct of each pattern RE2 cannot run', () => {
    expect(schemaPatternProblems(schema, 'schema')).toEqual([
      { path: 'schema.properties.list.items[0].pattern', message: '"a(?=b)" uses a lookahead "(?=", which the linear-time RE2 engine does not support' },
      { path: 'schema.patternProperties', message: '"^x(\\\\d)\\\\1$" uses a backreference "\\1", which the linear-time RE2 engine does not support' },
    ]);
  });

  it('walks a very deep schema without overflowing the stack', () => {
    let deep: Record<string, unknown> = { pattern: '(?!x)' };
    for (let i = 0; i < 20_000; i += 1) deep = { not: deep };
    expect(schemaPatternProblems(deep, 's')).toHaveLength(1);
  });
});
