/**
 * Keyset ("seek") conditions of a list's ORDER BY (issue 23 item 1). Pure: SQL text with named parameters
 * (`:ks0`, `:ks1`, …) for TypeORM's query builder.
 */

/** One ORDER BY key of a list, the unique tie-breaker (the id) last. */
export interface OrderKey {
  /** Qualified column, e.g. `"contact"."created_at"`. */
  sql: string;
  desc: boolean;
  /** Where NULLs sort: PostgreSQL's default is last for ASC, first for DESC. */
  nullsFirst: boolean;
  /** Whether the column can hold NULL (a NOT NULL column needs no NULL branches). */
  nullable: boolean;
}

/** A keyset condition: SQL and the named parameters it uses. */
export interface KeysetCondition {
  where: string;
  parameters: Record<string, string>;
}

/**
 * The rows after the row whose sort keys are `values`, in `keys` order, as phases read one after the other: every
 * phase starts with a range on the first key (an index range scan, not a walk from the list's start), so a page deep
 * in the list costs what page 0 costs. Two phases when the first key is nullable and the NULLs lie on the far side of
 * the cursor (the non-NULL rest, then the NULLs); else one. Semantics per key: `a = v` / `a IS NULL`, and "after"
 * follows the key's direction and NULLS FIRST/LAST exactly as PostgreSQL sorts.
 * @param keys the ORDER BY keys, the unique tie-breaker last
 * @param values the last row's key values as PostgreSQL text, `null` for NULL (same length as `keys`)
 * @throws Error when the lengths differ (a programming error: the cursor's key count is checked before)
 */
export function keysetPhases(keys: readonly OrderKey[], values: ReadonlyArray<string | null>): KeysetCondition[] {
  if (keys.length !== values.length || keys.length === 0) throw new Error('keysetPhases: one value per key');
  const parameters: Record<string, string> = {};
  values.forEach((value, index) => {
    if (value !== null) parameters[`ks${index}`] = value;
  });
  const [first] = keys;
  const v0 = values[0];
  const rest = keys.length > 1 ? after(keys, values, 1) : 'FALSE';
  const bound = `${first.sql} ${first.desc ? '<=' : '>='} :ks0`;
  const phases: string[] = [];
  if (v0 !== null) {
    phases.push(`${bound} AND (${after(keys, values, 0)})`);
    if (first.nullable && !first.nullsFirst) phases.push(`${first.sql} IS NULL`);
  } else {
    phases.push(`${first.sql} IS NULL AND (${rest})`);
    if (first.nullsFirst) phases.push(`${first.sql} IS NOT NULL`);
  }
  return phases.map((where) => ({ where, parameters }));
}

/** Rows strictly after the cursor from key `index` on, given equality on the keys before it. */
function after(keys: readonly OrderKey[], values: ReadonlyArray<string | null>, index: number): string {
  const beyond = strictlyAfter(keys[index], values[index], index);
  if (index === keys.length - 1) return beyond;
  return `(${beyond}) OR (${equal(keys[index], values[index], index)} AND (${after(keys, values, index + 1)}))`;
}

function strictlyAfter(key: OrderKey, value: string | null, index: number): string {
  if (value === null) return key.nullsFirst ? `${key.sql} IS NOT NULL` : 'FALSE';
  const compare = `${key.sql} ${key.desc ? '<' : '>'} :ks${index}`;
  return key.nullable && !key.nullsFirst ? `${compare} OR ${key.sql} IS NULL` : compare;
}

function equal(key: OrderKey, value: string | null, index: number): string {
  return value === null ? `${key.sql} IS NULL` : `${key.sql} = :ks${index}`;
}
