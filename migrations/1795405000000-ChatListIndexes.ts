import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat lists at a million rows (issue 5, acceptance 6; bench/chat-list.bench.mjs). Each list's index now matches its
 * ORDER BY exactly — the services sort `DESC NULLS LAST` with the id as tie-breaker, which a plain ascending index
 * read backwards (`DESC NULLS FIRST`) cannot serve, so every matching row was sorted — and INCLUDEs the columns the
 * lists filter on, so far pages and totals are index-only scans (src/chat/common/list-pager.ts reads a far page's
 * ids first). The entities declare these indexes with `synchronize: false`: TypeORM cannot express sort order or
 * INCLUDE, so this migration is their definition.
 */
export class ChatListIndexes1795405000000 implements MigrationInterface {
  name = 'ChatListIndexes1795405000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_chat_external_contact_state_at`);
    await queryRunner.query(`
      CREATE INDEX ix_chat_external_contact_state_at ON chat_external_contact
        (tenant_id, corp_id, state, state_at DESC NULLS LAST, id) INCLUDE (work_chat_user_id, sandbox)`);
    // Several states at once (byLastStates with states [a, b, c]) sorted by state_at: one walk of the corp's contacts
    // in state_at order, checking the state in the index, instead of fetching and sorting every row of each state.
    await queryRunner.query(`
      CREATE INDEX ix_chat_external_contact_corp_state_at ON chat_external_contact
        (tenant_id, corp_id, state_at DESC NULLS LAST, id) INCLUDE (state, work_chat_user_id, sandbox)`);
    // A corp belongs to one tenant, but the planner multiplies their selectivities (10 tenants x 10% = 1% instead of
    // 10%): it then expected a tenth of a corp's contacts, preferred sorting them, and sorted 33,000 rows per page.
    // Functional-dependency statistics tell it that corp_id determines tenant_id.
    await queryRunner.query(`CREATE STATISTICS stx_chat_external_contact_tenant_corp (dependencies) ON tenant_id, corp_id FROM chat_external_contact`);
    await queryRunner.query(`CREATE STATISTICS stx_chat_contact_way_tenant_corp (dependencies) ON tenant_id, corp_id FROM chat_contact_way`);
    await queryRunner.query(`DROP INDEX ix_chat_external_contact_staff_created`);
    await queryRunner.query(`
      CREATE INDEX ix_chat_external_contact_staff_created ON chat_external_contact
        (tenant_id, work_chat_user_id, created_at DESC NULLS LAST, id) INCLUDE (corp_id, ai_enabled, state, sandbox)`);
    await queryRunner.query(`DROP INDEX ix_chat_contact_way_tenant_corp_created`);
    await queryRunner.query(`
      CREATE INDEX ix_chat_contact_way_tenant_corp_created ON chat_contact_way
        (tenant_id, corp_id, created_at, id) INCLUDE (hidden, name)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP STATISTICS stx_chat_contact_way_tenant_corp`);
    await queryRunner.query(`DROP STATISTICS stx_chat_external_contact_tenant_corp`);
    await queryRunner.query(`DROP INDEX ix_chat_contact_way_tenant_corp_created`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_way_tenant_corp_created ON chat_contact_way (tenant_id, corp_id, created_at, id)`);
    await queryRunner.query(`DROP INDEX ix_chat_external_contact_staff_created`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_staff_created ON chat_external_contact (tenant_id, work_chat_user_id, created_at)`);
    await queryRunner.query(`DROP INDEX ix_chat_external_contact_corp_state_at`);
    await queryRunner.query(`DROP INDEX ix_chat_external_contact_state_at`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_state_at ON chat_external_contact (tenant_id, corp_id, state, state_at)`);
  }
}
