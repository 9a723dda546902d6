import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (a search costs the same at 1M rows as at 10k): the searches of the big chat lists read only
 * the posting lists of their own scope and term.
 *
 * `atrium_scoped_grams(scope, value)` is the lower-cased value's distinct characters, bigrams and trigrams, each
 * prefixed with 8 hex digits of md5(scope) (the scope: the tenant, or tenant `/` staff member). ONE single-column GIN
 * over it holds a posting list per scope and gram, so `@> atrium_scoped_term_grams(scope, term)` (the term's one
 * character, its one bigram, or its trigrams, under the same prefix) finds exactly this scope's candidates: its cost
 * follows the matches in the scope, not the table, nor the other tenants' or staff members' rows. The multi-column
 * btree_gin indexes of migration 1795600220000 intersected a posting list of the whole tenant and one of the whole
 * staff member with the term's, so a rare term still read every row id of the staff member. Two scopes with the same
 * prefix only add candidates: the tenant/staff equalities and the ILIKE stay as the final check
 * (src/database/like-contains.ts), so results are those of `ILIKE '%term%'`. Built-ins only in the function bodies:
 * PostgreSQL 17 evaluates index expressions with search_path = pg_catalog, pg_temp. No extension is needed.
 *
 * The grams come from regexp_replace passes (one per gram size and start offset), not from a subquery: no FROM, no
 * aggregate. atrium_grams (1795600200000, unscoped: characters and bigrams) gets such a body too, with the same grams,
 * and is inlined where it is called: a sort-index walk computes it on each row the ILIKE passes, and the old body ran
 * through the SQL-function executor at ~0.2 ms a row. atrium_scoped_grams is declared STRICT and costly instead, so it
 * is not inlined (see SCOPED_GRAMS_COST). A term common in its scope takes no grams index (like-contains.ts,
 * scopedTermIsCommon: the planner, multiplying the term's frequency by the tenant's, cannot tell).
 *
 * Replaced: the staff contact search indexes of 1795600220000 (or the whole-table ones where btree_gin was missing)
 * and the contact way name indexes of 1795600200000. Down restores them and the old atrium_grams body.
 */
export class ScopedSearchGrams1795600700000 implements MigrationInterface {
  name = 'ScopedSearchGrams1795600700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_scoped_grams(scope text, value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST ${SCOPED_GRAMS_COST} AS $$
        SELECT string_to_array(rtrim(
             ${pieces("left(md5(scope), 8) || ")}, E'\\x1f'), E'\\x1f')
      $$`);
    // A term of 1 or 2 characters: itself; 3+: its distinct trigrams; each under the scope's prefix. Evaluated once per
    // statement (its arguments are the statement's parameters), so it need not be fast. Never called with an empty term
    // (every row would match: like-contains.ts leaves it out).
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_scoped_term_grams(scope text, term text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT ARRAY(SELECT DISTINCT prefix || substr(l, i, 3) FROM generate_series(1, greatest(length(l) - 2, 1)) AS i)
          FROM (SELECT lower(term) AS l, left(md5(scope), 8) AS prefix) AS v
      $$`);
    // atrium_grams (1795600200000) gives the same grams, now as one inlinable expression (no FROM, no aggregate, not
    // STRICT): where the planner walks a sort index, it evaluates atrium_grams(name) on each row the ILIKE passes, and
    // the old body (a subquery run through the SQL-function executor) cost ~0.2 ms a row — 2.2 s for a 10k-row count.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_grams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT string_to_array(rtrim(${pieces('', 2)}, E'\\x1f'), E'\\x1f')
      $$`);
    for (const [table, scope, column] of SCOPED_COLUMNS) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ${scopedIndexName(table, column)} ON ${table} USING gin (atrium_scoped_grams(${scope.join(` || '/' || `)}, ${column}))`);
      for (const replaced of REPLACED[`${table}.${column}`] ?? []) await queryRunner.query(`DROP INDEX IF EXISTS ${replaced}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const installed = async (name: string) => ((await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = $1`, [name])) as unknown[]).length > 0;
    const trigrams = await installed('pg_trgm');
    const btreeGin = await installed('btree_gin');
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_grams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT gram), '{}') FROM (
          SELECT substr(l, i, n) AS gram
            FROM (SELECT lower(value) AS l) AS lowered, generate_series(1, length(l)) AS i, (VALUES (1), (2)) AS size(n)
           WHERE i + n - 1 <= length(l)
        ) AS grams
      $$`);
    for (const column of ['name', 'remark']) {
      const lead = btreeGin ? 'tenant_id, work_chat_user_id, ' : '';
      const infix = btreeGin ? 'staff_' : '';
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_external_contact_${infix}${column} ON chat_external_contact USING gin (${lead}atrium_grams(${column}))`);
      if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_external_contact_${infix}${column} ON chat_external_contact USING gin (${lead}${column} gin_trgm_ops)`);
    }
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_contact_way_name ON chat_contact_way USING gin (atrium_grams(name))`);
    if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_contact_way_name ON chat_contact_way USING gin (name gin_trgm_ops)`);
    for (const [table, , column] of SCOPED_COLUMNS) await queryRunner.query(`DROP INDEX IF EXISTS ${scopedIndexName(table, column)}`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS atrium_scoped_term_grams(text, text)`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS atrium_scoped_grams(text, text)`);
  }
}

/**
 * The grams of the lower-cased `value` as SQL pieces joined by `||`, each gram followed by U+001F: its characters
 * (`(.)`), then for each gram size and each start offset one `regexp_replace` over the value cut to whole grams (a
 * leftover would glue onto the next piece). Built-ins only; every gram without U+001F comes out whole between two
 * separators (a value holding U+001F only adds broken grams; a term holding it takes no index, see like-contains.ts).
 * @param prefix SQL put before each gram (`left(md5(scope), 8) || `), or ''
 * @param sizes the largest gram size (2: characters and bigrams; 3: and trigrams)
 */
function pieces(prefix: string, sizes = 3): string {
  const l = 'lower(value)';
  const parts: string[] = [];
  for (let size = 1; size <= sizes; size++) {
    for (let offset = 0; offset < size; offset++) {
      const cut = size === 1 ? l : `substr(${l}, ${offset + 1}, (length(${l})${offset ? ` - ${offset}` : ''}) / ${size} * ${size})`;
      parts.push(`regexp_replace(${cut}, '(${'.'.repeat(size)})', ${prefix}E'\\\\1\\x1f', 'g')`);
    }
  }
  return parts.join('\n             || ');
}

/** `ix_gr_<table>_<column>_scoped` (the ix_gr_ prefix: a migration-owned search index, see test/database/migrations). */
function scopedIndexName(table: string, column: string): string {
  return `ix_gr_${table}_${column}_scoped`;
}

/**
 * atrium_scoped_grams' cost as declared to the planner (cpu_operator_cost units). It is a function call, not inlined,
 * so that the planner's statements stay small (inlined, its six regexp_replace calls per column made planning a search
 * take ~3 ms). A search computes it on no row (a bitmap scan takes the grams from the index; a common term takes no
 * grams: like-contains.ts), so the cost only weighs in the planner's estimate of a bitmap scan's recheck: at 1,000 it
 * made the planner AND the grams' bitmap with every row of the tenant, or run a parallel scan, to spare rechecks (1M
 * rows: 15–60 ms for a term with 100 matches, against 0.5 ms).
 */
const SCOPED_GRAMS_COST = 10;

/** [table, scope columns (joined with '/', as like-contains.ts's SearchScope writes them), searched column]. */
const SCOPED_COLUMNS: ReadonlyArray<[string, string[], string]> = [
  ['chat_external_contact', ['tenant_id', 'work_chat_user_id'], 'name'],
  ['chat_external_contact', ['tenant_id', 'work_chat_user_id'], 'remark'],
  ['chat_contact_way', ['tenant_id'], 'name'],
];

/** The indexes each scoped one replaces (of 1795600200000 and 1795600220000, whichever exist). */
const REPLACED: Record<string, string[]> = {
  'chat_external_contact.name': ['ix_gr_chat_external_contact_staff_name', 'ix_tg_chat_external_contact_staff_name', 'ix_gr_chat_external_contact_name', 'ix_tg_chat_external_contact_name'],
  'chat_external_contact.remark': ['ix_gr_chat_external_contact_staff_remark', 'ix_tg_chat_external_contact_staff_remark', 'ix_gr_chat_external_contact_remark', 'ix_tg_chat_external_contact_remark'],
  'chat_contact_way.name': ['ix_gr_chat_contact_way_name', 'ix_tg_chat_contact_way_name'],
};
