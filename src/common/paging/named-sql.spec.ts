import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { NamedSql } from './named-sql';

/** TypeORM's own binding, on a driver stand-in with the PostgreSQL driver's placeholder style. */
const driver = { parametersPrefix: '$', createParameter: PostgresDriver.prototype.createParameter } as unknown as PostgresDriver;
const typeorm = (sql: string, parameters: Record<string, unknown> | undefined) => PostgresDriver.prototype.escapeQueryWithParameters.call(driver, sql, parameters ?? {});

describe('NamedSql (named-sql.ts)', () => {
  const cases: Array<[string, string, Record<string, unknown> | undefined]> = [
    ['plain', 'SELECT "c"."id" AS "c_id" FROM "t" "c" WHERE "c"."tenant_id" = :tenantId AND "c"."x" = :x LIMIT :list_page_limit', { tenantId: 'a', x: 3, list_page_limit: 21 }],
    ['repeated names reuse their placeholder', 'WHERE a = :tenantId AND (b = :k OR (a = :tenantId AND c = :k))', { tenantId: 'a', k: 'kw' }],
    ['casts and unknown names stay as written', 'SELECT x::text, y::int FROM t WHERE z = :z AND w = :missing AND "a:b" = :text', { z: 1, text: 'T' }],
    ['arrays spread, each occurrence again', 'WHERE s IN (:...states) AND t = :tenantId AND u IN (:...states)', { states: ['a', 'b', null], tenantId: 't' }],
    ['an empty spread', 'WHERE s IN (:...states) AND t = :t', { states: [], t: 1 }],
    ['function values are SQL', 'WHERE at > :now AND id = :id', { now: () => 'now()', id: 'x' }],
    ['dotted names, no parameters at all', 'WHERE a = :a.b AND c = :c', undefined],
    ['no parameters: the text unchanged', 'SELECT 1 WHERE a = :a', {}],
    ['dates, null and objects pass as values', 'WHERE a >= :start AND b = :n AND c = :j', { start: new Date(0), n: null, j: { p: 1 } }],
    ['parameter at the very start and end', ':a = :b', { a: 1, b: 2 }],
  ];

  it.each(cases)('binds as TypeORM does: %s', (_name, sql, parameters) => {
    const named = new NamedSql(sql);
    expect(named.bind(driver, parameters)).toEqual(typeorm(sql, parameters));
    // Kept and bound again with other values: the same as binding the text afresh.
    const again = parameters ? Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key, typeof value === 'number' ? value + 1 : value])) : parameters;
    expect(named.bind(driver, again)).toEqual(typeorm(sql, again));
  });

  it('returns the same text object for binds of the same shape (maps keyed by it hash it once), another for another shape', () => {
    const named = new NamedSql('SELECT * FROM t WHERE tenant = :tenantId AND s IN (:...states) AND at > :now LIMIT :limit');
    const [first, firstValues] = named.bind(driver, { tenantId: 'a', states: ['x', 'y'], now: () => 'now()', limit: 21 });
    const [second, secondValues] = named.bind(driver, { tenantId: 'b', states: ['z', 'w'], now: () => 'now()', limit: 6 });
    expect(second).toBe(first);
    expect([firstValues, secondValues]).toEqual([['a', 'x', 'y', 21], ['b', 'z', 'w', 6]]);
    const [three] = named.bind(driver, { tenantId: 'b', states: ['z', 'w', 'v'], now: () => 'now()', limit: 6 });
    expect(three).toBe('SELECT * FROM t WHERE tenant = $1 AND s IN ($2, $3, $4) AND at > now() LIMIT $5');
    expect(named.bind(driver, { tenantId: 'b', states: ['z'], now: () => 'clock_timestamp()', limit: 6 })[0]).toBe('SELECT * FROM t WHERE tenant = $1 AND s IN ($2) AND at > clock_timestamp() LIMIT $3');
    expect(named.bind(driver, { tenantId: 'b', states: ['z'], now: () => 'now()' })[0]).toBe('SELECT * FROM t WHERE tenant = $1 AND s IN ($2) AND at > now() LIMIT :limit');
  });
});
