import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 item 2 (acceptance 1: a search grows ≤ 2× from 10k to 1M rows): the staff contact keyword search
 * (`GET …/workChat/{userId}/contact/external?keyword=`) gets GIN indexes that lead with the tenant and the staff
 * member. The whole-table search indexes of migration 1795600200000 made a bitmap of every tenant's and every staff
 * member's matches before the tenant/staff filter, so a mid-frequency term grew with the table. `btree_gin` (a trusted
 * contrib extension since PostgreSQL 13) lets the equality columns join the GIN: `(tenant_id, work_chat_user_id,
 * name gin_trgm_ops)` for terms of 3+ characters and `(tenant_id, work_chat_user_id, atrium_grams(name))` for 1–2
 * (and the same for `remark`); the GIN intersects the three keys' posting lists, so only this staff member's
 * candidates reach the heap. The whole-table contact indexes are replaced (nothing else searches contacts). Where
 * `btree_gin` cannot be created, the migration warns and leaves the indexes of 1795600200000 as they are.
 */
export class StaffContactSearchIndexes1795600220000 implements MigrationInterface {
  name = 'StaffContactSearchIndexes1795600220000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $btree_gin$ BEGIN
        CREATE EXTENSION IF NOT EXISTS btree_gin;
      EXCEPTION WHEN others THEN
        RAISE WARNING 'btree_gin is not available (%): staff contact searches keep the whole-table search indexes', SQLERRM;
      END $btree_gin$`);
    const installed = async (name: string) => ((await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = $1`, [name])) as unknown[]).length > 0;
    if (!(await installed('btree_gin'))) return;
    const trigrams = await installed('pg_trgm');
    for (const column of ['name', 'remark']) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_external_contact_staff_${column} ON chat_external_contact USING gin (tenant_id, work_chat_user_id, atrium_grams(${column}))`);
      await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_external_contact_${column}`);
      if (!trigrams) continue;
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_external_contact_staff_${column} ON chat_external_contact USING gin (tenant_id, work_chat_user_id, ${column} gin_trgm_ops)`);
      await queryRunner.query(`DROP INDEX IF EXISTS ix_tg_chat_external_contact_${column}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const trigrams = ((await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[]).length > 0;
    for (const column of ['name', 'remark']) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_external_contact_${column} ON chat_external_contact USING gin (atrium_grams(${column}))`);
      await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_external_contact_staff_${column}`);
      if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_external_contact_${column} ON chat_external_contact USING gin (${column} gin_trgm_ops)`);
      await queryRunner.query(`DROP INDEX IF EXISTS ix_tg_chat_external_contact_staff_${column}`);
    }
  }
}
