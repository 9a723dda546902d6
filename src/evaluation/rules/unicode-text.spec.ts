import { evaluateRule } from './rule-evaluator';
import type { RuleDefaults, RuleDefinition } from './rule.types';
import { countWords, foldCase, graphemes, isValidLocale, MAX_LEVENSHTEIN_GRAPHEMES } from './unicode-text';

const reply = (output: string) => ({ output, latencyMs: 1 });

/** The Unicode table of issue 24 acceptance 3: [what, rule, output, pass, scenario defaults?]. */
const TABLE: [string, RuleDefinition, string, boolean, RuleDefaults?][] = [
  ['ß folds to ss', { type: 'icontains', value: 'straße' }, 'STRASSE 5', true],
  ['SS folds to ss (value upper)', { type: 'icontains', value: 'STRASSE' }, 'die straße', true],
  ['ẞ (capital sharp s) folds to ss', { type: 'icontains', value: 'ẞ' }, 'ss', true],
  ['final sigma: ΟΔΟΣ ~ οδος', { type: 'icontains', value: 'οδος' }, 'ΟΔΟΣ', true],
  ['final sigma: ΟΔΟΣ ~ οδοσ', { type: 'icontains', value: 'ΟΔΟΣ' }, 'οδοσ', true],
  ['contains-all icase folds too', { type: 'contains-all', value: ['STRASSE', 'οδος'], icase: true }, 'Straße, ΟΔΟΣ', true],
  ['İ without a locale folds to i + dot: not plain i', { type: 'icontains', value: 'istanbul' }, 'İstanbul', false],
  ['İ under locale tr is i', { type: 'icontains', value: 'istanbul', locale: 'tr' }, 'İstanbul', true],
  ['I under locale tr is ı, not i', { type: 'icontains', value: 'isparta', locale: 'tr' }, 'ISPARTA', false],
  ['I under locale tr matches ı', { type: 'icontains', value: 'ısparta', locale: 'tr' }, 'ISPARTA', true],
  ['locale from the scenario default', { type: 'icontains', value: 'istanbul' }, 'İSTANBUL', true, { locale: 'tr' }],
  ['the rule locale wins over the default', { type: 'icontains', value: 'istanbul', locale: 'en' }, 'İSTANBUL', false, { locale: 'tr' }],
  ['NFC vs NFD: equals', { type: 'equals', value: 'cafe\u0301' }, 'caf\u00e9', true],
  ['NFC vs NFD: contains', { type: 'contains', value: 'caf\u00e9' }, 'un cafe\u0301 noir', true],
  ['NFC vs NFD: icontains', { type: 'icontains', value: 'CAFE\u0301' }, 'caf\u00e9', true],
  ['full width without NFKC: no match', { type: 'contains', value: '123' }, '１２３', false],
  ['full width under NFKC', { type: 'contains', value: '123', normalize: 'NFKC' }, '１２３', true],
  ['full width under the scenario NFKC default', { type: 'equals', value: 'ABC' }, 'ＡＢＣ', true, { normalize: 'NFKC' }],
  ['NFKC with case folding', { type: 'icontains', value: 'abc', normalize: 'NFKC' }, 'ＡＢＣ', true],
  ['one emoji is one edit', { type: 'levenshtein', value: '👍', threshold: 1 }, '👎', true],
  ['two emoji are two edits', { type: 'levenshtein', value: '👍👍', threshold: 1 }, '👎👎', false],
  ['a flag is one edit', { type: 'levenshtein', value: '🇫🇷', threshold: 1 }, '🇩🇪', true],
  ['a family emoji is one grapheme', { type: 'levenshtein', value: 'ok', threshold: 1 }, 'ok👨‍👩‍👧', true],
  ['CJK words: 我喜欢吃苹果 is 4 words', { type: 'word-count', min: 4, max: 4 }, '我喜欢吃苹果', true],
  ['CJK words: mixed with English', { type: 'word-count', min: 4, max: 4 }, '我用 iPhone 拍照', true],
  ['Japanese words', { type: 'word-count', min: 2 }, '私は学生です', true],
  ['punctuation and emoji are not words', { type: 'word-count', max: 1 }, 'ok — ! 👍', true],
];

describe('Unicode table (issue 24 acceptance 3)', () => {
  // One rest parameter: with 4-item rows Jest would take a fifth named parameter for its `done` callback.
  it.each(TABLE)('%s', async (...row) => {
    const [, rule, output, pass, defaults] = row;
    const result = await evaluateRule(rule, reply(output), undefined, defaults);
    expect(result.pass).toBe(pass);
    expect(result.reason).not.toBe('');
  });
});

describe('unicode-text helpers', () => {
  it('folds case fully and by locale', () => {
    expect(foldCase('Straße')).toBe('strasse');
    expect(foldCase('ΟΔΟΣ')).toBe(foldCase('οδος'));
    expect(foldCase('İ', { locale: 'tr-TR' })).toBe('i');
    expect(foldCase('I', { locale: 'az' })).toBe('ı');
    expect(foldCase('İ')).toBe('i\u0307');
  });

  it('splits graphemes and counts words', () => {
    expect(graphemes('a👨‍👩‍👧🇫🇷e\u0301')).toHaveLength(4);
    expect(countWords("Don't stop, it's 3.5 km.")).toBe(5);
    expect(countWords('')).toBe(0);
  });

  it('validates locales', () => {
    expect(isValidLocale('tr')).toBe(true);
    expect(isValidLocale('zh-Hans-CN')).toBe(true);
    expect(isValidLocale('not a locale!')).toBe(false);
    expect(isValidLocale('')).toBe(false);
  });

  it('ATTACK: levenshtein over the grapheme cap fails with that reason instead of doing quadratic work', async () => {
    const long = 'a'.repeat(MAX_LEVENSHTEIN_GRAPHEMES + 1);
    const result = await evaluateRule({ type: 'levenshtein', value: long, threshold: 5 }, reply(`${long.slice(1)}b`));
    expect(result).toMatchObject({ pass: false, reason: `text longer than ${MAX_LEVENSHTEIN_GRAPHEMES} grapheme clusters is not compared` });
  });
});
