import { commonCandidates, containsMatch, gramsMatch, likeContains, likeOperator, scopedContainsAny, scopedContainsMatch, scopedTermIsCommon, scopeEqualities, searchMatch, searchScope, searchScopeCondition, searchTermIsCommon, setTrigramSearch, termIsCommon, type ListSearch } from './like-contains';

describe('likeContains', () => {
  it('escapes LIKE wildcards and the escape character and wraps the text in %…%', () => {
    expect(likeContains('a%_\\b')).toBe('%a\\%\\_\\\\b%');
    expect(likeContains('plain')).toBe('%plain%');
  });
});

describe('likeOperator (LIKE where it selects what ILIKE selects, and costs less)', () => {
  it('LIKE for terms of characters without case: Chinese, kana, Hangul, digits, white space', () => {
    for (const term of ['王', '王伟', '欧阳娜娜 7', 'ひらがな', 'カタカナ', '한국어', '2026', '𠀋']) expect(likeOperator(term)).toBe('LIKE');
  });

  it('ILIKE as soon as one character has case, or could be the lower case of another (U+0307 of İ), and for an empty term', () => {
    for (const term of ['q', 'Quinn', '王a', 'Ä', 'ß', 'i\u0307', '%', '50%', '王_', '']) expect(likeOperator(term)).toBe('ILIKE');
  });

  it('no character\'s lower or upper case form holds a caseless character other than itself (every code point, JavaScript\'s full mappings)', () => {
    const caseless = (text: string) => likeOperator(text) === 'LIKE';
    const found: string[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      if (caseless(character) && (character.toLowerCase() !== character || character.toUpperCase() !== character)) found.push(character);
      for (const mapped of [character.toLowerCase(), character.toUpperCase()]) {
        if (mapped !== character && [...mapped].some(caseless)) found.push(character);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('containsMatch (issue 23: searches served by an index)', () => {
  afterEach(() => setTrigramSearch(true));

  it('3+ characters with pg_trgm: the ILIKE alone (the trigram index serves it)', () => {
    expect(containsMatch('c.name', 'p', 'Lily')).toEqual(["(c.name ILIKE :p ESCAPE '\\')", { p: '%Lily%' }]);
    expect(containsMatch('c.name', 'p', '陈明华')).toEqual(["(c.name LIKE :p ESCAPE '\\')", { p: '%陈明华%' }]);
  });

  it('1–2 characters (counted as code points): the character/bigram candidates, the ILIKE kept as the check', () => {
    for (const term of ['陈', '陈明', 'Li', '%', '𠀋x']) {
      expect(containsMatch('c.name', 'p', term)).toEqual([`(c.name ${likeOperator(term)} :p ESCAPE '\\' AND atrium_grams(c.name) @> atrium_term_grams(:p_term))`, { p: likeContains(term), p_term: term }]);
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

  it('a term holding U+001F (the grams separator) takes no grams index, only the ILIKE', () => {
    expect(containsMatch('c.name', 'p', 'a\u001f')).toEqual(["(c.name ILIKE :p ESCAPE '\\')", { p: '%a\u001f%' }]);
    expect(gramsMatch('atrium_jsonb_grams(s.keywords)', 'k', '\u001f', { evenWithTrigrams: true })).toBeUndefined();
  });
});

describe('scopedContainsAny (issue 23 acceptance 1: scoped grams, migration 1795600700000)', () => {
  const scope = { columns: ['c.tenant_id', 'c.staff'], values: ['acme', 'zhangsan'] };

  it('every term length: the scope\'s grams as one top-level condition, the ILIKEs as another', () => {
    for (const term of ['陈', 'Li', 'Lily', '%_\\']) {
      expect(scopedContainsMatch('c.name', scope, 'p', term)).toEqual([
        `((atrium_scoped_grams(c.tenant_id || '/' || c.staff, c.name) @> atrium_scoped_term_grams(:p_scope, :p_term)) AND (c.name ${likeOperator(term)} :p ESCAPE '\\'))`,
        { p: likeContains(term), p_scope: 'acme/zhangsan', p_term: term },
      ]);
    }
  });

  it('several columns and another condition: OR inside each half, the other condition in both', () => {
    const [sql, parameters] = scopedContainsAny(['c.name', 'c.remark'], scope, 'p', 'Li', ['c.ext = :k', { k: 'Li' }]);
    const grams = (column: string) => `atrium_scoped_grams(c.tenant_id || '/' || c.staff, ${column}) @> atrium_scoped_term_grams(:p_scope, :p_term)`;
    expect(sql).toBe(`((${grams('c.name')} OR ${grams('c.remark')} OR c.ext = :k) AND (c.name ILIKE :p ESCAPE '\\' OR c.remark ILIKE :p ESCAPE '\\' OR c.ext = :k))`);
    expect(parameters).toEqual({ p: '%Li%', k: 'Li', p_scope: 'acme/zhangsan', p_term: 'Li' });
  });

  it('an empty term or one holding U+001F: the ILIKEs alone', () => {
    expect(scopedContainsAny(['c.name', 'c.remark'], scope, 'p', '', ['c.ext = :k', { k: '' }])).toEqual([`(c.name ILIKE :p ESCAPE '\\' OR c.remark ILIKE :p ESCAPE '\\' OR c.ext = :k)`, { p: '%%', k: '' }]);
    expect(scopedContainsMatch('c.name', scope, 'p', 'x\u001fy')[0]).toBe(`(c.name ILIKE :p ESCAPE '\\')`);
  });
});

describe('scopedTermIsCommon (counts the scope\'s candidates, at most commonRows + 1, once per term and scope)', () => {
  const scope = { columns: ['tenant_id', 'work_chat_user_id'], values: ['acme', 'zhangsan'] };
  /** A database answering the count with `candidates`, and the statements it was sent. */
  const database = (candidates: number) => {
    const sent: Array<[string, unknown[] | undefined]> = [];
    const run = async (sql: string, parameters?: unknown[]) => {
      sent.push([sql, parameters]);
      return [{ candidates }];
    };
    return { run, sent };
  };

  it('common past commonRows: one bounded count over the scoped grams of every column', async () => {
    const { run, sent } = database(1_001);
    expect(await scopedTermIsCommon(run, 'chat_external_contact', scope, ['name', 'remark'], 'Cust', { commonRows: 1_000 })).toBe(true);
    const grams = (column: string) => `atrium_scoped_grams(tenant_id || '/' || work_chat_user_id, ${column}) @> atrium_scoped_term_grams($1, $2)`;
    expect(sent).toEqual([[`SELECT count(*)::int AS candidates FROM (SELECT 1 FROM chat_external_contact WHERE ${grams('name')} OR ${grams('remark')} LIMIT 1001) AS scoped`, ['acme/zhangsan', 'Cust']]]);
  });

  it('rare up to commonRows; the decision is kept per term and scope (one statement for every page of a search)', async () => {
    const { run, sent } = database(1_000);
    expect(await scopedTermIsCommon(run, 'chat_contact_way', { columns: ['tenant_id'], values: ['acme'] }, ['name'], 'q', { commonRows: 1_000 })).toBe(false);
    expect(await scopedTermIsCommon(run, 'chat_contact_way', { columns: ['tenant_id'], values: ['acme'] }, ['name'], 'q', { commonRows: 1_000 })).toBe(false);
    expect(sent).toHaveLength(1);
    await scopedTermIsCommon(run, 'chat_contact_way', { columns: ['tenant_id'], values: ['other'] }, ['name'], 'q', { commonRows: 1_000 });
    expect(sent).toHaveLength(2);
  });

  it('an empty term or one holding U+001F asks nothing: the ILIKE path, as for a common term', async () => {
    const { run, sent } = database(0);
    expect(await scopedTermIsCommon(run, 'chat_contact_way', scope, ['name'], '', { commonRows: 10 })).toBe(true);
    expect(await scopedTermIsCommon(run, 'chat_contact_way', scope, ['name'], 'a\u001f', { commonRows: 10 })).toBe(true);
    expect(sent).toEqual([]);
  });

  it('a failed count is not kept: the next search counts again', async () => {
    let calls = 0;
    const run = async () => {
      calls++;
      if (calls === 1) throw new Error('connection lost');
      return [{ candidates: 3 }];
    };
    await expect(scopedTermIsCommon(run, 'chat_contact_way', scope, ['name'], 'flaky', { commonRows: 10 })).rejects.toThrow('connection lost');
    expect(await scopedTermIsCommon(run, 'chat_contact_way', scope, ['name'], 'flaky', { commonRows: 10 })).toBe(false);
  });
});

describe('scopeEqualities', () => {
  it('indexable for the ILIKE path; plain filters (no btree serves `column || \'\'`) when the grams index finds the rows', () => {
    const equalities: Array<[string, string]> = [['c.tenant_id', 'tenantId'], ['c.staff', 'staff']];
    expect(scopeEqualities(equalities, true)).toBe('c.tenant_id = :tenantId AND c.staff = :staff');
    expect(scopeEqualities(equalities, false)).toBe("(c.tenant_id || '') = :tenantId AND (c.staff || '') = :staff");
  });
});

describe('termIsCommon / containsMatch common (a search without a scope)', () => {
  it('common past commonRows and the walk\'s break-even (√(21 × rows / 6)); counts the candidates of the term\'s own search index once', async () => {
    const sent: Array<[string, unknown[] | undefined]> = [];
    const answers: Record<string, { candidates: number; rows: number }> = {
      王: { candidates: 50_000, rows: 1_000_000 },
      王伟明: { candidates: 2_500, rows: 1_000_000 },
      Quinn: { candidates: 1_000, rows: 1_000_000 },
      'Quinn%': { candidates: 3, rows: 1_000_000 },
      e: { candidates: 900, rows: 1_000 },
    };
    const run = async (sql: string, parameters?: unknown[]) => {
      sent.push([sql, parameters]);
      const term = String(parameters?.[0]).replace(/^%|%$/g, '').replace(/\\%/g, '%');
      return [answers[term]];
    };
    const options = { commonRows: 1_000 };
    expect(commonCandidates(1_000_000, 1_000)).toBe(1_871);
    expect(commonCandidates(10_000, 1_000)).toBe(1_000);
    expect(commonCandidates(100_000_000, 1_000)).toBe(18_709);
    expect(await termIsCommon(run, 'eval_scenario', 'name', '王', options)).toBe(true);
    // 2,500 matches of a million rows: past the break-even (1,871), a walk finds a page after ~8,400 index tuples.
    expect(await termIsCommon(run, 'eval_scenario', 'name', '王伟明', options)).toBe(true);
    // 1,000: under it, the search index reads them.
    expect(await termIsCommon(run, 'eval_scenario', 'name', 'Quinn', options)).toBe(false);
    expect(await termIsCommon(run, 'eval_scenario', 'name', 'Quinn%', options)).toBe(false);
    // 900 of 1,000 rows: within the cap, the search index reads them all.
    expect(await termIsCommon(run, 'eval_scenario', 'name', 'e', options)).toBe(false);
    expect(await termIsCommon(run, 'eval_scenario', 'name', '王', options)).toBe(true);
    expect(sent).toHaveLength(5);
    expect(sent[0][0]).toContain('WHERE atrium_grams(name) @> atrium_term_grams($1)');
    expect(sent[0][0]).toContain("LIMIT (SELECT greatest(1000, ceil(sqrt(21 * greatest(reltuples, 0) / 6))) + 1 FROM pg_class WHERE oid = 'eval_scenario'::regclass)::bigint");
    expect(sent[1]).toEqual([expect.stringContaining("WHERE name LIKE $1 ESCAPE '\\'"), ['%王伟明%']]);
    expect(sent[2]).toEqual([expect.stringContaining("WHERE name ILIKE $1 ESCAPE '\\'"), ['%Quinn%']]);
  });

  it('a common term: the ILIKE alone on `column || \'\'` (no search index serves it), same pattern', () => {
    expect(containsMatch('s.name', 'q', '50%', { common: true })).toEqual([`((s.name || '') ILIKE :q ESCAPE '\\')`, { q: '%50\\%%' }]);
    expect(containsMatch('s.name', 'q', '王伟', { common: true })).toEqual([`((s.name || '') LIKE :q ESCAPE '\\')`, { q: '%王伟%' }]);
  });
});


describe('ListSearch: one description of a list\'s search for its statement and its decision', () => {
  const staff: ListSearch = {
    table: 'chat_external_contact',
    alias: 'contact',
    scope: [
      { column: 'tenant_id', parameter: 'tenantId', value: 'acme' },
      { column: 'work_chat_user_id', parameter: 'staff', value: 'zhangsan' },
    ],
    columns: ['name', 'remark'],
  };

  it('derives the aliased scope for the statement and the bare one for the candidate count', () => {
    expect(searchScope(staff, true)).toEqual({ columns: ['contact.tenant_id', 'contact.work_chat_user_id'], values: ['acme', 'zhangsan'] });
    expect(searchScope(staff, false)).toEqual({ columns: ['tenant_id', 'work_chat_user_id'], values: ['acme', 'zhangsan'] });
    expect(searchScopeCondition(staff, false)).toEqual(['contact.tenant_id = :tenantId AND contact.work_chat_user_id = :staff', { tenantId: 'acme', staff: 'zhangsan' }]);
    expect(searchScopeCondition(staff, true)[0]).toBe("(contact.tenant_id || '') = :tenantId AND (contact.work_chat_user_id || '') = :staff");
  });

  it('matches as scopedContainsAny on the aliased columns (grams unless common), or containsMatch without a scope', () => {
    const orElse: [string, Record<string, unknown>] = ['contact.ext = :k', { k: 'Li' }];
    expect(searchMatch(staff, 'p', 'Li', { common: false, orElse })).toEqual(scopedContainsAny(['contact.name', 'contact.remark'], searchScope(staff, true), 'p', 'Li', orElse));
    expect(searchMatch(staff, 'p', 'Li', { common: true })).toEqual(scopedContainsAny(['contact.name', 'contact.remark'], searchScope(staff, true), 'p', 'Li', undefined, { grams: false }));
    const scenarios: ListSearch = { table: 'eval_scenario', alias: 'scenario', scope: [], columns: ['name'] };
    expect(searchMatch(scenarios, 'q', '王', { common: true })).toEqual(containsMatch('scenario.name', 'q', '王', { common: true }));
    // A rare term: the search index's condition (its list's pager reads every candidate: a windowed statement).
    expect(searchMatch(scenarios, 'q', '王伟', { common: false })).toEqual(containsMatch('scenario.name', 'q', '王伟'));
    expect(searchMatch(scenarios, 'q', '王伟', { common: false })[0]).toMatch(/atrium_grams\(scenario\.name\) @> atrium_term_grams/);
    expect(() => searchMatch({ ...scenarios, columns: ['name', 'description'] }, 'q', 'x', { common: false })).toThrow('one column');
  });

  it('decides in the scope with the bare columns, or in the table without a scope', async () => {
    const sent: string[] = [];
    const run = async (sql: string) => {
      sent.push(sql);
      return [{ candidates: 7, rows: 10 }];
    };
    expect(await searchTermIsCommon(run, staff, 'ListSearch-term', 1)).toBe(true);
    expect(sent[0]).toContain("FROM chat_external_contact WHERE atrium_scoped_grams(tenant_id || '/' || work_chat_user_id, name)");
    expect(await searchTermIsCommon(run, { table: 'eval_scenario', alias: 's', scope: [], columns: ['name'] }, 'ListSearch-term', 1)).toBe(true);
    expect(sent[1]).toContain('FROM eval_scenario WHERE name ILIKE $1');
  });
});
