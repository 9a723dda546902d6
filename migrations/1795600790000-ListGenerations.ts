import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables with a generation, and the columns whose changes bump none (src/common/paging/list-generation.ts, as of this migration). */
const TABLES: Array<[table: string, unwatched: string[]]> = [
  ['chat_external_contact', ['last_message_at', 'updated_at']],
  ['chat_contact_way', []],
];

/**
 * Issue 14 acceptance 1 (a hot list's request close to the bare minimum) with issue 23's exact totals: a staff
 * member's contacts counted up to 10,000 rows per request (2,500 index entries, 0.45 ms of PostgreSQL CPU against
 * 0.08 ms for the page itself). `list_generation` holds one change generation per (table, tenant), bumped by triggers
 * in the writer's own transaction, so a page's statement reads the generation and counts only when it moved since
 * the total the app keeps (ListPager): the total stays exact, and unchanged data is not counted again.
 * - INSERT / DELETE: statement-level with transition tables (a bulk write bumps each tenant once, in tenant order).
 * - UPDATE: row-level, only when a watched column changed (every column but the unwatched: a message's
 *   `last_message_at` bumps nothing). A row moved to another tenant bumps both.
 * - TRUNCATE: the `*` row, which every tenant's generation adds.
 * Rows are never deleted: a generation only grows. Writers of one tenant's rows of a table wait for each other's commit
 * on its generation row.
 */
export class ListGenerations1795600790000 implements MigrationInterface {
  name = 'ListGenerations1795600790000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE list_generation (
        table_name text NOT NULL,
        tenant_id text NOT NULL,
        generation bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_list_generation PRIMARY KEY (table_name, tenant_id)
      )`);
    await queryRunner.query(`
      CREATE FUNCTION list_generation_bump(target text, tenants text[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO list_generation AS known (table_name, tenant_id, generation)
        SELECT target, tenant, 1 FROM (SELECT DISTINCT unnest(tenants) AS tenant) AS changed WHERE tenant IS NOT NULL ORDER BY tenant
        ON CONFLICT (table_name, tenant_id) DO UPDATE SET generation = known.generation + 1
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION list_generation_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM list_generation_bump(TG_TABLE_NAME, ARRAY['*']);
        ELSE
          PERFORM list_generation_bump(TG_TABLE_NAME, ARRAY(SELECT DISTINCT tenant_id::text FROM changed));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION list_generation_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM list_generation_bump(TG_TABLE_NAME, ARRAY[OLD.tenant_id::text, NEW.tenant_id::text]);
        RETURN NULL;
      END $$`);
    for (const [table, unwatched] of TABLES) {
      const watched = (row: string) => `(to_jsonb(${row})${unwatched.map((column) => ` - '${column}'`).join('')})`;
      await queryRunner.query(`CREATE TRIGGER list_generation_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION list_generation_statement()`);
      await queryRunner.query(`CREATE TRIGGER list_generation_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION list_generation_statement()`);
      await queryRunner.query(`CREATE TRIGGER list_generation_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION list_generation_statement()`);
      await queryRunner.query(
        `CREATE TRIGGER list_generation_update AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${watched('OLD')} IS DISTINCT FROM ${watched('NEW')}) EXECUTE FUNCTION list_generation_row()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table] of TABLES) {
      for (const trigger of ['insert', 'delete', 'truncate', 'update']) await queryRunner.query(`DROP TRIGGER list_generation_${trigger} ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION list_generation_row()`);
    await queryRunner.query(`DROP FUNCTION list_generation_statement()`);
    await queryRunner.query(`DROP FUNCTION list_generation_bump(text, text[])`);
    await queryRunner.query(`DROP TABLE list_generation`);
  }
}
