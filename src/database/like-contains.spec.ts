import { containsMatch, gramsMatch, likeContains, setTrigramSearch } from './like-contains';

describe('likeContains', () => {
  it('escapes LIKE wildcards and the escape character and wraps the text in %…%', () => {
    expect(likeContains('a%_\\b')).toBe('%a\\%\\_\\\\b%');
    expect(likeContains('plain')).toBe('%plain%');
  });
});

describe('containsMatch (issue 23: searches served by an index)', () => {
  afterEach(() => setTrigramSearch(true));

  it('3+ characters with pg_trgm: the ILIKE alone (the trigram index serves it)', () => {
    expect(containsMatch('c.name', 'p', 'Lily')).toEqual(["(c.name ILIKE :p ESCAPE '\\')", { p: '%Lily%' }]);
    expect(containsMatch('c.name', 'p', '陈明华')).toEqual(["(c.name ILIKE :p ESCAPE '\\')", { p: '%陈明华%' }]);
  });

  it('1–2 characters (counted as code points): the character/bigram candidates, the ILIKE kept as the check', () => {
    for (const term of ['陈', '陈明', 'Li', '%', '𠀋x']) {
      expect(containsMatch('c.name', 'p', term)).toEqual([`(c.name ILIKE :p ESCAPE '\\' AND atrium_grams(c.name) @> atrium_term_grams(:p_term))`, { p: likeContains(term), p_term: term }]);
    }
  });

  it('without pg_trgm every term takes the grams path; an empty term never does', () => {
    setTrigramSearch(false);
    expect(containsMatch('c.name', 'p', 'Lily')[0]).toContain('atrium_grams(c.name) @> atrium_term_grams(:p_term)');
    expect(containsMatch('c.name', 'p', '')).toEqual(["(c.name ILIKE :p ESCAPE '\\')", { p: '%%' }]);
  });

  it('gramsMatch can be asked for every term length (expressions without a trigram index)', () => {
    expect(gramsMatch('atrium_jsonb_grams(s.keywords)', 'k', 'refund')).toBeUndefined();
    expect(gramsMatch('atrium_jsonb_grams(s.keywords)', 'k', 'refund', { evenWithTrigrams: true })).toEqual(['atrium_jsonb_grams(s.keywords) @> atrium_term_grams(:k)', { k: 'refund' }]);
  });
});
