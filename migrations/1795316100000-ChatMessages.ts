import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat messages and their review comments (issue 6, "Messages"; src/chat/messages). Every index leads with the
 * tenant; inbound messages are idempotent by the platform message id (partial unique index).
 */
export class ChatMessages1795316100000 implements MigrationInterface {
  name = 'ChatMessages1795316100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_message (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        work_chat_user_id varchar(64) NOT NULL,
        direction varchar(3) NOT NULL,
        sender varchar(10) NOT NULL,
        msg_type varchar(10) NOT NULL,
        content text,
        attachment_key varchar(100),
        attachment_content_type varchar(127),
        attachment_size_bytes bigint,
        attachment_sha256 varchar(64),
        attachment_file_name varchar(255),
        quote_message_id uuid,
        original_ai_content text,
        agent_chat_id varchar(128),
        contact_type varchar(32),
        status varchar(10) NOT NULL,
        platform_msg_id varchar(128),
        failure_reason text,
        delivery_attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_message_contact_created ON chat_message (tenant_id, contact_id, created_at)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_message_platform_msg ON chat_message (tenant_id, corp_id, platform_msg_id) WHERE "platform_msg_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX ix_chat_message_status_created ON chat_message (tenant_id, status, created_at)`);
    await queryRunner.query(`
      CREATE TABLE chat_message_comment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        message_id uuid NOT NULL,
        reviewer varchar(255) NOT NULL,
        rating smallint,
        content text,
        tags jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_message_comment_reviewer ON chat_message_comment (tenant_id, message_id, reviewer)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_message_comment`);
    await queryRunner.query(`DROP TABLE chat_message`);
  }
}
