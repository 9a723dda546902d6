import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables of a staff member's group rooms, the generation row their writes bump, and the columns whose changes bump
 * nothing (src/common/paging/list-generation.ts, as of this migration).
 */
const TABLES: Array<[table: string, generation: string, unwatched: string[]]> = [
  ['chat_group_room', 'chat_group_room', ['notice', 'status', 'member_count', 'platform_created_at', 'synced_at', 'updated_at']],
  ['chat_group_room_access', 'chat_group_room', ['member_count', 'updated_at']],
];

/**
 * Issue 23 item 1 / issue 14 acceptance 1: a staff member's group rooms page counted its total (up to 10,000 rows) on
 * every request, joining their access rows with the tenant's rooms (2,875 rooms of a 100k-room tenant: 2.1 ms of
 * PostgreSQL time, twice the page's own). The rooms and their access rows now keep a per-tenant generation in
 * `list_generation` (migration 1795600790000), so the page counts once per change.
 * Both tables bump one row, `chat_group_room`: a room written with its access rows (their triggers run in the same
 * transaction) locks one row per tenant, so two writers cannot deadlock over two rows taken in opposite orders. The
 * trigger functions take that row's name as their argument; the functions of 1795600790000 (the table's own name) stay.
 */
export class GroupRoomListGenerations1795600800000 implements MigrationInterface {
  name = 'GroupRoomListGenerations1795600800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION list_generation_shared_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM list_generation_bump(TG_ARGV[0], ARRAY['*']);
        ELSE
          PERFORM list_generation_bump(TG_ARGV[0], ARRAY(SELECT DISTINCT tenant_id::text FROM changed));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION list_generation_shared_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM list_generation_bump(TG_ARGV[0], ARRAY[OLD.tenant_id::text, NEW.tenant_id::text]);
        RETURN NULL;
      END $$`);
    for (const [table, generation, unwatched] of TABLES) {
      const watched = (row: string) => `(to_jsonb(${row})${unwatched.map((column) => ` - '${column}'`).join('')})`;
      const statement = `EXECUTE FUNCTION list_generation_shared_statement('${generation}')`;
      await queryRunner.query(`CREATE TRIGGER list_generation_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS changed FOR EACH STATEMENT ${statement}`);
      await queryRunner.query(`CREATE TRIGGER list_generation_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS changed FOR EACH STATEMENT ${statement}`);
      await queryRunner.query(`CREATE TRIGGER list_generation_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT ${statement}`);
      await queryRunner.query(
        `CREATE TRIGGER list_generation_update AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${watched('OLD')} IS DISTINCT FROM ${watched('NEW')}) EXECUTE FUNCTION list_generation_shared_row('${generation}')`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table] of TABLES) {
      for (const trigger of ['insert', 'delete', 'truncate', 'update']) await queryRunner.query(`DROP TRIGGER list_generation_${trigger} ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION list_generation_shared_row()`);
    await queryRunner.query(`DROP FUNCTION list_generation_shared_statement()`);
  }
}
