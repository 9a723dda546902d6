import { Client } from 'pg';
import { likeContains, likeOperator } from '../../src/database/like-contains';
import { createSuiteDatabase, dropDatabase } from '../support/test-database';

/**
 * likeOperator on a real PostgreSQL (issue 23 acceptance 1): a term of characters without case is searched with LIKE,
 * which must select exactly ILIKE's rows. Checked against the server's own `lower()` (what ILIKE applies in a UTF-8
 * database) over every code point, and on names where case matters around the term.
 */
describe('likeOperator (LIKE for caseless terms) against PostgreSQL', () => {
  let database: { name: string; url: string; serverUrl: string };
  let client: Client;

  beforeAll(async () => {
    database = await createSuiteDatabase('atrium_like_operator');
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await dropDatabase(database?.serverUrl, database?.name);
  });

  it("no code point's lower() holds a caseless character it was not", async () => {
    const { rows } = await client.query<{ code_point: number; lowered: string }>(
      `SELECT code_point, lower(chr(code_point)) AS lowered FROM generate_series(1, 1114111) AS code_point
        WHERE code_point NOT BETWEEN 55296 AND 57343 AND lower(chr(code_point)) <> chr(code_point)`,
    );
    // The server's lower() changes the cased letters (about 1,400 of them): the check has something to check.
    expect(rows.length).toBeGreaterThan(1000);
    const intoCaseless = rows.filter(({ lowered }) => [...lowered].some((character) => likeOperator(character) === 'LIKE'));
    expect(intoCaseless).toEqual([]);
  });

  it('selects the same rows with LIKE as with ILIKE for caseless terms, and ILIKE stays for the others', async () => {
    await client.query('CREATE TABLE like_probe (id int PRIMARY KEY, name text NOT NULL)');
    const names = ['王伟明', '欧阳娜娜 7', 'ＡＢ王伟', 'İ王伟', 'Quinn 王', 'quinn', 'ひらがな', '한국어 2026', 'KELVIN K', '王 伟'];
    await client.query('INSERT INTO like_probe SELECT ordinality, name FROM unnest($1::text[]) WITH ORDINALITY AS name', [names]);
    const matches = async (operator: string, term: string) =>
      (await client.query<{ id: number }>(`SELECT id FROM like_probe WHERE name ${operator} $1 ESCAPE '\\' ORDER BY id`, [likeContains(term)])).rows.map(({ id }) => id);
    for (const term of ['王伟', '王', '欧阳娜娜 7', 'ひら', '한국', '2026', ' ']) {
      expect(likeOperator(term)).toBe('LIKE');
      const ilike = await matches('ILIKE', term);
      expect(ilike.length).toBeGreaterThan(0);
      expect(await matches('LIKE', term)).toEqual(ilike);
    }
    // Where case matters, the two differ, so the terms above were a real comparison: ILIKE is kept for these.
    for (const term of ['quinn', 'k']) {
      expect(likeOperator(term)).toBe('ILIKE');
      expect(await matches('LIKE', term)).not.toEqual(await matches('ILIKE', term));
    }
  });
});
