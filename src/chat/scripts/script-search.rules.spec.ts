import { rankScripts, scoreScript, searchTerms, SearchableScript } from './script-search.rules';

const script = (id: string, overrides: Partial<SearchableScript> = {}): SearchableScript => ({ id, title: '', content: '', keywords: [], tags: [], updatedAt: 0, ...overrides });

describe('searchTerms', () => {
  it('lower-cases, splits on non-letters, drops terms under three characters, longest first', () => {
    expect(searchTerms('How do I get a REFUND? (order #12, hi)')).toEqual(['refund', 'order', 'get', 'how']);
  });

  it('adds two-character pieces of Han text', () => {
    expect(searchTerms('我想退货')).toEqual(['我想退货', '想退', '我想', '退货']);
  });

  it('keeps at most 24 distinct terms', () => {
    const text = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    expect(searchTerms(`${text} ${text}`)).toHaveLength(24);
  });
});

describe('scoreScript', () => {
  it('weighs keywords contained in the text above everything else', () => {
    const match = scoreScript(script('a', { keywords: ['Refund', 'money back', ''], title: 'Refunds', content: 'We refund within 7 days.' }), 'I want my MONEY BACK, refund please', searchTerms('I want my MONEY BACK, refund please'));
    expect(match.matchedKeywords).toEqual(['Refund', 'money back']);
    expect(match.matchedTerms).toEqual(['refund']);
    // 2 keywords (20) + the term "refund" in the title (3) and the content (1); "money", "back" appear in neither
    expect(match.score).toBe(24);
  });

  it('counts the whole title contained in the text and terms in tags', () => {
    const text = 'what are the opening hours';
    const match = scoreScript(script('b', { title: 'Opening hours', tags: ['store-hours'] }), text, searchTerms(text));
    // title in text (5) + "opening" in title (3) + "hours" in title (3) and tag (2)
    expect(match.score).toBe(13);
  });
});

describe('rankScripts', () => {
  it('drops non-matching scripts and orders by score, then most recent, then id', () => {
    const scripts = [
      script('low', { content: 'shipping takes a week', updatedAt: 5 }),
      script('none', { content: 'unrelated' }),
      script('high', { keywords: ['shipping'], updatedAt: 1 }),
      script('tie-old', { content: 'shipping', updatedAt: 1 }),
      script('tie-new', { content: 'shipping', updatedAt: 9 }),
    ];
    expect(rankScripts(scripts, 'shipping?', 10).map((match) => match.script.id)).toEqual(['high', 'tie-new', 'low', 'tie-old']);
    expect(rankScripts(scripts, 'shipping?', 2).map((match) => match.script.id)).toEqual(['high', 'tie-new']);
    expect(rankScripts(scripts, '', 10)).toEqual([]);
  });

  it('finds Chinese keywords inside unspaced text', () => {
    const ranked = rankScripts([script('zh', { keywords: ['退货'] }), script('other', { keywords: ['发票'] })], '你好，我想退货可以吗', 5);
    expect(ranked.map((match) => [match.script.id, match.matchedKeywords])).toEqual([['zh', ['退货']]]);
  });
});
