/** 8-4-4-4-12 hexadecimal digits, either case: the text form Postgres `uuid` columns accept. */
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` has the shape of a UUID (any version or variant). Checked before an id from a request reaches a
 * `uuid` column, where anything else makes Postgres fail the query: such an id is simply not found. Stricter than
 * nothing, looser than class-validator's isUUID (which also checks the version digit and refuses ids Postgres takes).
 */
export function isUuidShaped(value: unknown): value is string {
  return typeof value === 'string' && UUID_SHAPE.test(value);
}
