import type { PoolClient } from 'pg';
import { GuardedPool, prepareOnFirstUse, preparedNameOf } from '../../src/database/guarded-pg';
import { createSuiteDatabase, dropDatabase } from '../support/test-database';

/**
 * Named prepared statements on a real PostgreSQL (issue 14 acceptance 1; DATABASE_PREPARED_STATEMENTS): a registered
 * text is prepared once per connection and answers what it answers unnamed; the switch turns it off; a table that
 * changes its columns under a prepared statement (another instance migrated) is answered with its new columns: the
 * statement runs again unnamed on that connection (in a transaction the failure stands, as the transaction aborted).
 */
describe('prepared statements (guarded pg pool)', () => {
  let database: { name: string; url: string; serverUrl: string };
  const pools: GuardedPool[] = [];
  const poolOf = (preparedStatements: boolean) => {
    const pool = new GuardedPool({ connectionString: database.url, max: 1, preparedStatements });
    // As TypeORM's driver does: an idle client's error (its server session ended, e.g. by the suite's closing
    // DROP DATABASE … WITH (FORCE) racing the pool's own end) is the pool's event, not an unhandled one.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const preparedOn = async (client: PoolClient) =>
    (await client.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')).rows;

  beforeAll(async () => {
    database = await createSuiteDatabase('atrium_prepared');
    const setup = poolOf(false);
    await setup.query('CREATE TABLE prepared_probe (id int PRIMARY KEY, label text)');
    await setup.query("INSERT INTO prepared_probe SELECT i, 'row ' || i FROM generate_series(1, 50) AS i");
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await dropDatabase(database?.serverUrl, database?.name);
  });

  it('prepares a registered text once per connection, answering what the unnamed statement answers', async () => {
    const text = 'SELECT id, label FROM prepared_probe WHERE id > $1 ORDER BY id LIMIT $2';
    const unnamed = await poolOf(true).query(text, [10, 5]);
    prepareOnFirstUse(text);
    const pool = poolOf(true);
    const client = await pool.connect();
    try {
      for (let round = 0; round < 3; round++) expect((await client.query(text, [10, 5])).rows).toEqual(unnamed.rows);
      expect((await client.query(text, [45, 10])).rows.map((row) => row.id)).toEqual([46, 47, 48, 49, 50]);
      expect(await preparedOn(client)).toEqual([{ name: preparedNameOf(text), statement: text }]);
      // Another registered text on the same connection is a second statement; an unregistered one adds nothing.
      const other = 'SELECT count(*)::int AS total FROM prepared_probe WHERE id <= $1';
      prepareOnFirstUse(other);
      expect((await client.query(other, [7])).rows).toEqual([{ total: 7 }]);
      expect((await client.query('SELECT label FROM prepared_probe WHERE id = $1', [3])).rows).toEqual([{ label: 'row 3' }]);
      expect((await preparedOn(client)).map((row) => row.statement).sort()).toEqual([other, text].sort());
    } finally {
      client.release();
    }
  });

  it('prepares nothing with the switch off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const text = 'SELECT label FROM prepared_probe WHERE id = $1 /* switched off */';
    prepareOnFirstUse(text);
    const client = await poolOf(false).connect();
    try {
      expect((await client.query(text, [4])).rows).toEqual([{ label: 'row 4' }]);
      expect(await preparedOn(client)).toEqual([]);
    } finally {
      client.release();
    }
  });

  it('answers with the new columns when a table changed under a prepared statement (another instance migrated): run again unnamed on that connection', async () => {
    const text = 'SELECT * FROM prepared_probe WHERE id = $1';
    prepareOnFirstUse(text);
    const pool = poolOf(true);
    const client = await pool.connect();
    try {
      expect((await client.query(text, [1])).rows).toEqual([{ id: 1, label: 'row 1' }]);
      await poolOf(false).query('ALTER TABLE prepared_probe ALTER COLUMN label TYPE varchar(40), ADD COLUMN note text');
      for (let round = 0; round < 2; round++) {
        const answer = await client.query(text, [1]);
        expect(answer.rows).toEqual([{ id: 1, label: 'row 1', note: null }]);
        expect(answer.fields.map((field) => field.name)).toEqual(['id', 'label', 'note']);
      }
      // Inside a transaction the failure stands (the transaction is aborted): no retry that would fail anyway.
      const other = await poolOf(true).connect();
      try {
        expect((await other.query(text, [2])).rows).toEqual([{ id: 2, label: 'row 2', note: null }]);
        await poolOf(false).query('ALTER TABLE prepared_probe DROP COLUMN note');
        await other.query('BEGIN');
        await expect(other.query(text, [2])).rejects.toThrow('cached plan must not change result type');
        await other.query('ROLLBACK');
        expect((await other.query(text, [2])).rows).toEqual([{ id: 2, label: 'row 2' }]);
      } finally {
        other.release();
      }
    } finally {
      client.release();
    }
  });
});
