import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, conversations and channels (issue 6, Configuration resources): conversation groups with their event
 * definitions and triggers, conversations (at most one open conversation per contact, a partial unique index),
 * inbound channels (at most one per corp; widget keys unique) and chat groups (teams routing channels to staff).
 * References to other chat rows are plain uuid columns (no FK). Every row carries `tenant_id` and every index leads
 * with it.
 */
export class ChatConversationsAndChannels1795315500000 implements MigrationInterface {
  name = 'ChatConversationsAndChannels1795315500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_conversation_group (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        system_prompt text,
        reply_mode varchar(16) NOT NULL DEFAULT 'auto',
        reply_delay_seconds integer NOT NULL DEFAULT 0,
        history_message_count integer NOT NULL DEFAULT 20,
        max_reply_chars integer,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_conversation_group_tenant_name ON chat_conversation_group (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_conversation_group_tenant_created ON chat_conversation_group (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_conversation_event_definition (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        conversation_group_id uuid NOT NULL,
        name varchar(64) NOT NULL,
        description varchar(500),
        event_type varchar(32) NOT NULL,
        condition jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_conversation_event_definition_group_name ON chat_conversation_event_definition (tenant_id, conversation_group_id, name)`);

    await queryRunner.query(`
      CREATE TABLE chat_conversation_trigger (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        conversation_group_id uuid NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        event_definition_ids jsonb NOT NULL,
        action varchar(32) NOT NULL,
        action_config jsonb NOT NULL,
        target_conversation_group_id uuid,
        priority integer NOT NULL DEFAULT 100,
        cooldown_seconds integer NOT NULL DEFAULT 0,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_conversation_trigger_group_name ON chat_conversation_trigger (tenant_id, conversation_group_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_conversation_trigger_tenant_target ON chat_conversation_trigger (tenant_id, target_conversation_group_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_user_conversation (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        contact_id uuid NOT NULL,
        digital_staff_id uuid NOT NULL,
        conversation_group_id uuid NOT NULL,
        status varchar(16) NOT NULL,
        subject varchar(200),
        remark varchar(500),
        activated_at timestamptz,
        terminated_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_user_conversation_open_contact ON chat_user_conversation (tenant_id, contact_id) WHERE "status" <> 'terminated'`);
    await queryRunner.query(`CREATE INDEX ix_chat_user_conversation_tenant_contact_created ON chat_user_conversation (tenant_id, contact_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_user_conversation_tenant_group_status ON chat_user_conversation (tenant_id, conversation_group_id, status)`);
    await queryRunner.query(`CREATE INDEX ix_chat_user_conversation_tenant_status_created ON chat_user_conversation (tenant_id, status, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_user_conversation_tenant_created ON chat_user_conversation (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_channel (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        type varchar(20) NOT NULL,
        corp_id uuid,
        settings jsonb NOT NULL,
        widget_key varchar(40),
        secret text,
        digital_staff_id uuid,
        conversation_group_id uuid,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_channel_tenant_name ON chat_channel (tenant_id, name)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_channel_tenant_corp ON chat_channel (tenant_id, corp_id) WHERE "corp_id" IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_channel_tenant_widget_key ON chat_channel (tenant_id, widget_key) WHERE "widget_key" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX ix_chat_channel_tenant_conversation_group ON chat_channel (tenant_id, conversation_group_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_channel_tenant_created ON chat_channel (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_chat_group (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        channel_ids jsonb NOT NULL,
        member_user_ids jsonb NOT NULL,
        digital_staff_id uuid,
        routing_strategy varchar(16) NOT NULL DEFAULT 'round_robin',
        max_concurrent_chats_per_member integer,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_chat_group_tenant_name ON chat_chat_group (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_chat_group_tenant_created ON chat_chat_group (tenant_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_chat_group`);
    await queryRunner.query(`DROP TABLE chat_channel`);
    await queryRunner.query(`DROP TABLE chat_user_conversation`);
    await queryRunner.query(`DROP TABLE chat_conversation_trigger`);
    await queryRunner.query(`DROP TABLE chat_conversation_event_definition`);
    await queryRunner.query(`DROP TABLE chat_conversation_group`);
  }
}
