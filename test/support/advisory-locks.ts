/**
 * SQL of the count of pg_locks rows of a session-level advisory lock with a bigint key in the current database
 * (PostgreSQL shows such a key as classid = its high 32 bits, objid = its low 32 bits, objsubid = 1).
 * @param key the lock's key (decimal text, as src/database/advisory-lock.ts takes it)
 * @param which all rows, or only the sessions still waiting for it
 */
export function advisoryLockRowsSql(key: string, which: 'all' | 'waiting' = 'all'): string {
  const bigint = BigInt(key);
  return `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND classid = ${bigint >> 32n} AND objid = ${bigint & 0xffffffffn} AND objsubid = 1${which === 'waiting' ? ' AND NOT granted' : ''}`;
}
