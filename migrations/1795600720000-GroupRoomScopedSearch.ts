import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (a search costs the same at 1M rows as at 10k), for the group room keyword search: a tenant's
 * rooms are the platform's customer group chats, synced as they are made, so the table grows with the data like the
 * contacts. A staff member's rooms are those they own or are a staff member of, so the name search reads:
 * - the posting lists of the tenant and owner in a scoped grams index (`atrium_scoped_grams(tenant_id || '/' ||
 *   owner_work_chat_user_id, name)`, migration 1795600700000's function and pattern; see src/database/like-contains.ts):
 *   the rooms the staff member owns that may match. Scoped by the tenant alone, a term common in the tenant but absent
 *   from the staff member's rooms walked the whole tenant (1M rows: 650 ms);
 * - the rooms they are a staff member of, by id: `(tenant_id, member_user_id, group_room_id)` on the members;
 * - the room whose chat id is the keyword: `(tenant_id, chat_id)` (the unique index leads with the corp).
 * The whole-table trigram and character/bigram indexes of 1795600200000 are replaced. (`ix_ls_`: migration-owned, see
 * test/database/migrations.e2e-spec.ts.)
 *
 * The other tenant-scoped chat searches stay on their whole-table indexes: group ways, digital staff and staff users
 * are configuration and organisation, not data (docs/lists-and-search.md).
 */
export class GroupRoomScopedSearch1795600720000 implements MigrationInterface {
  name = 'GroupRoomScopedSearch1795600720000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_group_room_name_scoped ON chat_group_room USING gin (atrium_scoped_grams(tenant_id || '/' || owner_work_chat_user_id, name))`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_room_tenant_chat ON chat_group_room (tenant_id, chat_id)`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_member_tenant_member ON chat_group_member (tenant_id, member_user_id, group_room_id)`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_group_room_name`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_tg_chat_group_room_name`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const [trigrams] = (await queryRunner.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[];
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_gr_chat_group_room_name ON chat_group_room USING gin (atrium_grams(name))`);
    if (trigrams) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_tg_chat_group_room_name ON chat_group_room USING gin (name gin_trgm_ops)`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_member_tenant_member`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_room_tenant_chat`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_gr_chat_group_room_name_scoped`);
  }
}
