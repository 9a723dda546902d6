import { keywordListProblems, keywordsFound, normalizeForMatch } from './keyword-match';
import { TagRuleInput, tagsForMessage } from './tag-rules.rules';

const rule = (overrides: Partial<TagRuleInput> & { id: string }): TagRuleInput => ({
  enabled: true,
  keywords: ['price'],
  matchMode: 'any',
  tagNames: [],
  platformTagIds: [],
  ...overrides,
});

describe('keyword matching (tag-rules/keyword-match.ts)', () => {
  it('normalises with NFKC and lower case, so full-width and upper-case text match', () => {
    expect(normalizeForMatch('ＰＲＩＣＥ Price')).toBe('price price');
    expect(keywordsFound(normalizeForMatch('What is the ＰＲＩＣＥ?'), ['price', 'refund'])).toEqual(['price']);
  });

  it('finds keywords as substrings, also in text without spaces (Chinese)', () => {
    expect(keywordsFound(normalizeForMatch('我想退款可以吗'), ['退款', '投诉'])).toEqual(['退款']);
    expect(keywordsFound(normalizeForMatch('nothing here'), ['退款'])).toEqual([]);
  });

  it('reports empty, padded, too long, too many and repeated (case-insensitive) keywords by field', () => {
    const limits = { maxCount: 3, maxLength: 5 };
    expect(keywordListProblems(['a', 'b'], 'keywords', limits)).toEqual([]);
    expect(keywordListProblems([], 'keywords', limits)).toEqual([{ field: 'keywords', message: 'needs at least one entry' }]);
    expect(keywordListProblems(['a', 'b', 'c', 'd'], 'keywords', limits)).toEqual([{ field: 'keywords', message: 'has 4 entries; at most 3 are allowed' }]);
    expect(keywordListProblems(['  '], 'keywords', limits)).toEqual([{ field: 'keywords[0]', message: 'is empty' }]);
    expect(keywordListProblems([' a'], 'keywords', limits)).toEqual([{ field: 'keywords[0]', message: 'must not start or end with spaces' }]);
    expect(keywordListProblems(['abcdef'], 'tagNames', limits)).toEqual([{ field: 'tagNames[0]', message: 'is 6 characters long; at most 5 are allowed' }]);
    expect(keywordListProblems(['Price', 'ＰＲＩＣＥ'], 'keywords', limits)).toEqual([{ field: 'keywords[1]', message: 'repeats keywords[0] (compared case-insensitively)' }]);
  });
});

describe('tagsForMessage', () => {
  it('adds the tags of rules with any keyword found (mode any), case-insensitively', () => {
    const rules = [rule({ id: 'r1', keywords: ['price', 'cost'], tagNames: ['price-sensitive'], platformTagIds: ['et_1'] })];
    expect(tagsForMessage(rules, 'What does it COST?')).toEqual({ tagNames: ['price-sensitive'], platformTagIds: ['et_1'], matchedRuleIds: ['r1'] });
    expect(tagsForMessage(rules, 'Hello')).toEqual({ tagNames: [], platformTagIds: [], matchedRuleIds: [] });
  });

  it('needs every keyword in mode all', () => {
    const rules = [rule({ id: 'r1', keywords: ['refund', 'broken'], matchMode: 'all', tagNames: ['refund-risk'] })];
    expect(tagsForMessage(rules, 'It is broken').matchedRuleIds).toEqual([]);
    expect(tagsForMessage(rules, 'It is BROKEN, I want a refund').tagNames).toEqual(['refund-risk']);
  });

  it('skips disabled rules and rules without keywords, and gives each tag once in rule order', () => {
    const rules = [
      rule({ id: 'off', enabled: false, keywords: ['vip'], tagNames: ['never'] }),
      rule({ id: 'empty', keywords: [], tagNames: ['never'] }),
      rule({ id: 'a', keywords: ['vip'], tagNames: ['vip', 'hot'], platformTagIds: ['et_vip'] }),
      rule({ id: 'b', keywords: ['gold'], tagNames: ['hot', 'gold'], platformTagIds: ['et_vip', 'et_gold'] }),
    ];
    expect(tagsForMessage(rules, 'VIP gold member')).toEqual({ tagNames: ['vip', 'hot', 'gold'], platformTagIds: ['et_vip', 'et_gold'], matchedRuleIds: ['a', 'b'] });
  });

  it('looks only at the first maxChars characters when a limit is given', () => {
    const rules = [rule({ id: 'r', keywords: ['late'], tagNames: ['t'] })];
    const text = `${'x'.repeat(100)} late`;
    expect(tagsForMessage(rules, text).matchedRuleIds).toEqual(['r']);
    expect(tagsForMessage(rules, text, 100).matchedRuleIds).toEqual([]);
  });
});
