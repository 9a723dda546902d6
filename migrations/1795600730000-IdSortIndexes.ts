import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (page 0 of every accepted sort flat from 10k to 1M rows), for `sort=id` on the contact-way
 * and group-way lists. Their sort indexes (1795600200000) cover `createdAt`, `updatedAt` and `name` behind the tenant
 * (and corp) filter, but not `id`: PostgreSQL read the primary key backwards and filtered out other tenants' rows, so
 * a tenant whose ways are the oldest paid for every newer row of the table (data-scale bench, contact ways
 * `sort=id,desc`: 2.9 ms at 10k, 125 ms at 1M). `(tenant_id, id)` and `(tenant_id, corp_id, id)` serve both
 * directions. (`ix_ls_`: migration-owned, see test/database/migrations.e2e-spec.ts.)
 */
export class IdSortIndexes1795600730000 implements MigrationInterface {
  name = 'IdSortIndexes1795600730000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_contact_way_tenant_id_id ON chat_contact_way (tenant_id, id)`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_contact_way_tenant_id_corp_id_id ON chat_contact_way (tenant_id, corp_id, id)`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_ls_chat_group_way_tenant_id_id ON chat_group_way (tenant_id, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_group_way_tenant_id_id`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_contact_way_tenant_id_corp_id_id`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_ls_chat_contact_way_tenant_id_id`);
  }
}
