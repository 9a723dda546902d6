import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, digital-staff customer to-dos (issue 6, "The inbound pipeline"; chat-management-api.md,
 * processDigitalStaffCustomerTodo): a person must look at a customer — opened by the pipeline, processed by an
 * operator. At most one to-do per (tenant, source message) when it has one. No FKs; every index leads with
 * `tenant_id`.
 */
export class ChatCustomerTodos1795401000000 implements MigrationInterface {
  name = 'ChatCustomerTodos1795401000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_customer_todo (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        contact_id uuid NOT NULL,
        digital_staff_id uuid,
        rule_id uuid,
        source_message_id uuid,
        reason text NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'open',
        processed_by varchar(255),
        processed_at timestamptz,
        note text,
        ai_re_enabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_customer_todo_tenant_source_message ON chat_customer_todo (tenant_id, source_message_id) WHERE "source_message_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX ix_chat_customer_todo_tenant_status_created ON chat_customer_todo (tenant_id, status, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_customer_todo_tenant_contact ON chat_customer_todo (tenant_id, contact_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_customer_todo`);
  }
}
