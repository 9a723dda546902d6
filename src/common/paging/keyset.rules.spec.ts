import { keysetPhases, type OrderKey } from './keyset.rules';
import { cursorKeyOf, invalidCursor, listFingerprint, ListFingerprints, openCursor, signCursor } from './cursor';

const key = (sql: string, desc: boolean, nullable = false, nullsFirst = desc): OrderKey => ({ sql, desc, nullable, nullsFirst });

describe('keysetPhases (issue 23: seek past the cursor row with a range on the first key)', () => {
  it('one ranged phase for a NOT NULL first key', () => {
    expect(keysetPhases([key('a', false), key('id', false)], ['5', 'x'])).toEqual([{ where: 'a >= :ks0 AND ((a > :ks0) OR (a = :ks0 AND (id > :ks1)))', parameters: { ks0: '5', ks1: 'x' } }]);
    expect(keysetPhases([key('a', true), key('id', true)], ['5', 'x'])[0].where).toBe('a <= :ks0 AND ((a < :ks0) OR (a = :ks0 AND (id < :ks1)))');
  });
  it('NULLs after the cursor: the non-NULL rest, then the NULLs', () => {
    const phases = keysetPhases([key('a', true, true, false), key('id', false)], ['5', 'x']);
    expect(phases.map((phase) => phase.where)).toEqual(['a <= :ks0 AND ((a < :ks0 OR a IS NULL) OR (a = :ks0 AND (id > :ks1)))', 'a IS NULL']);
  });
  it('a cursor row with a NULL key', () => {
    expect(keysetPhases([key('a', false, true), key('id', false)], [null, 'x']).map((phase) => phase.where)).toEqual(['a IS NULL AND (id > :ks1)']);
    expect(keysetPhases([key('a', true, true), key('id', true)], [null, 'x']).map((phase) => phase.where)).toEqual(['a IS NULL AND (id < :ks1)', 'a IS NOT NULL']);
  });
});

describe('cursor', () => {
  const secret = cursorKeyOf(Buffer.alloc(32, 7));
  const fingerprint = listFingerprint('SELECT 1 WHERE tenant = $1', ['acme']);
  it('round-trips and refuses tampering, other keys and other lists', () => {
    const cursor = signCursor({ q: fingerprint, p: 3, k: ['2026-01-01', null, 'id-1'] }, secret);
    expect(openCursor(cursor, [secret], fingerprint, 3)).toEqual({ q: fingerprint, p: 3, k: ['2026-01-01', null, 'id-1'] });
    const [body, signature] = cursor.split('.');
    const altered = Buffer.from(JSON.stringify({ q: fingerprint, p: 3, k: ['1999-01-01', null, 'id-1'] })).toString('base64url');
    expect(() => openCursor(`${altered}.${signature}`, [secret], fingerprint, 3)).toThrow(/bad signature/);
    expect(() => openCursor(cursor, [cursorKeyOf(Buffer.alloc(32, 8))], fingerprint, 3)).toThrow(/bad signature/);
    expect(() => openCursor(cursor, [secret], listFingerprint('SELECT 1 WHERE tenant = $1', ['globex']), 3)).toThrow(/another list, tenant/);
    expect(() => openCursor(cursor, [secret], fingerprint, 2)).toThrow(/malformed/);
    expect(() => openCursor(`${body}`, [secret], fingerprint, 3)).toThrow(/malformed/);
    expect(invalidCursor('x').getStatus()).toBe(400);
  });
});

describe('ListFingerprints (a kept statement\'s fingerprints, its text hashed once)', () => {
  it('gives what listFingerprint gives, for each parameter list and after its text changes and changes back', () => {
    const fingerprints = new ListFingerprints();
    const long = `SELECT ${'"c"."column", '.repeat(200)}1 FROM t WHERE tenant = $1 AND s IN ($2, $3)`;
    const inputs: Array<[string, unknown[]]> = [
      [long, ['acme', 'a', 'b']],
      [long, ['globex', 'a', 'b']],
      ['SELECT 1 WHERE tenant = $1', ['acme']],
      [long, ['acme', 'a', null]],
      [`${long} `, ['acme', 'a', 'b']],
    ];
    for (const [sql, parameters] of inputs) expect(fingerprints.of(sql, parameters)).toBe(listFingerprint(sql, parameters));
    expect(new Set(inputs.map(([sql, parameters]) => fingerprints.of(sql, parameters))).size).toBe(inputs.length);
  });
});
