import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 item 2, the script list's `keyword` (title, text or one of its keywords contains it) and the contact way
 * list's `userName`: the same search indexes as migration 1795600200000 — `pg_trgm` GIN where the extension exists,
 * and the character/bigram GIN (`atrium_grams`). A script's keywords are a JSON array: `atrium_jsonb_grams(keywords)`
 * indexes the grams of its elements (a trigram index cannot serve an ILIKE on array elements, so every term length
 * takes this path there).
 */
export class ScriptSearchIndexes1795600210000 implements MigrationInterface {
  name = 'ScriptSearchIndexes1795600210000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Built-ins only, atrium_grams' body inlined: PostgreSQL 17 (the embedded server) evaluates index expressions
    // with search_path = pg_catalog, pg_temp, where a call to our atrium_grams does not resolve.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION atrium_jsonb_grams(elements jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT gram), '{}') FROM (
          SELECT substr(l, i, n) AS gram
            FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(elements) = 'array' THEN elements ELSE '[]'::jsonb END) AS element,
                 LATERAL (SELECT lower(element) AS l) AS lowered, generate_series(1, length(l)) AS i, (VALUES (1), (2)) AS size(n)
           WHERE i + n - 1 <= length(l)
        ) AS grams
      $$`);
    const trigrams = ((await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[]).length > 0;
    for (const column of ['title', 'content']) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_script_content_${column} ON chat_script_content USING gin (atrium_grams(${column}))`);
      if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_script_content_${column} ON chat_script_content USING gin (${column} gin_trgm_ops)`);
    }
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_script_content_keywords ON chat_script_content USING gin (atrium_jsonb_grams(keywords))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_script_content_keywords`);
    for (const column of ['title', 'content']) {
      await queryRunner.query(`DROP INDEX IF EXISTS ix_tg_chat_script_content_${column}`);
      await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_script_content_${column}`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS atrium_jsonb_grams(jsonb)`);
  }
}
