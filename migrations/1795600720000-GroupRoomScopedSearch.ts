import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (a search costs the same at 1M rows as at 10k), for the group room keyword search: a tenant's
 * rooms are the platform's customer group chats, synced as they are made, so the table grows with the data like the
 * contacts. Its name search reads the tenant's own posting lists in a scoped grams index
 * (`atrium_scoped_grams(tenant_id, name)`, migration 1795600700000's function and pattern; see
 * src/database/like-contains.ts), replacing the whole-table trigram and character/bigram indexes of 1795600200000,
 * whose cost followed every tenant's matches of the term.
 *
 * The keyword also matches a room's chat id exactly; that arm gets `(tenant_id, chat_id)`: the unique index leads with
 * the corp, so without it the arm read every index entry of the tenant. (`ix_ls_`: migration-owned, see
 * test/database/migrations.e2e-spec.ts.)
 *
 * The other tenant-scoped chat searches stay on their whole-table indexes: group ways, digital staff and staff users
 * are configuration and organisation, not data (docs/lists-and-search.md).
 */
export class GroupRoomScopedSearch1795600720000 implements MigrationInterface {
  name = 'GroupRoomScopedSearch1795600720000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_group_room_name_scoped ON chat_group_room USING gin (atrium_scoped_grams(tenant_id, name))`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_room_tenant_chat ON chat_group_room (tenant_id, chat_id)`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_group_room_name`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_tg_chat_group_room_name`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const [trigrams] = (await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[];
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_group_room_name ON chat_group_room USING gin (atrium_grams(name))`);
    if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_group_room_name ON chat_group_room USING gin (name gin_trgm_ops)`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_room_tenant_chat`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_group_room_name_scoped`);
  }
}
