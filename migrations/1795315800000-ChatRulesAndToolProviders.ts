import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing configuration (issue 6, "Configuration resources"): human-intervention rules, keyword tag rules, intent
 * records and tool API providers. Names are unique per tenant; an intent record is unique per (message, intent) so
 * the pipeline's write is idempotent. Every row carries `tenant_id` and every index leads with it. No foreign keys:
 * contact and digital staff ids are referenced by column (DESIGN.md, Persistence).
 */
export class ChatRulesAndToolProviders1795315800000 implements MigrationInterface {
  name = 'ChatRulesAndToolProviders1795315800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_intervention_rule (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        match_type varchar(16) NOT NULL,
        patterns jsonb NOT NULL,
        all_contacts boolean NOT NULL DEFAULT true,
        digital_staff_ids jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        switch_ai_off boolean NOT NULL DEFAULT true,
        create_todo boolean NOT NULL DEFAULT true,
        reason varchar(500) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_intervention_rule_tenant_name ON chat_intervention_rule (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_intervention_rule_tenant_created ON chat_intervention_rule (tenant_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_intervention_rule_tenant_enabled ON chat_intervention_rule (tenant_id, enabled)`);

    await queryRunner.query(`
      CREATE TABLE chat_tag_rule (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        keywords jsonb NOT NULL,
        match_mode varchar(8) NOT NULL,
        tag_names jsonb NOT NULL,
        platform_tag_ids jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_tag_rule_tenant_name ON chat_tag_rule (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_tag_rule_tenant_created ON chat_tag_rule (tenant_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_tag_rule_tenant_enabled ON chat_tag_rule (tenant_id, enabled)`);

    await queryRunner.query(`
      CREATE TABLE chat_intention_record (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        contact_id uuid NOT NULL,
        intent_name varchar(100) NOT NULL,
        confidence double precision,
        message_id varchar(64),
        status varchar(16) NOT NULL DEFAULT 'open',
        source varchar(16) NOT NULL,
        operator_note varchar(1000),
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_intention_record_message_intent ON chat_intention_record (tenant_id, message_id, intent_name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_intention_record_contact_created ON chat_intention_record (tenant_id, contact_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_intention_record_tenant_status_created ON chat_intention_record (tenant_id, status, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_tool_provider (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        base_url varchar(2048) NOT NULL,
        auth_type varchar(16) NOT NULL,
        auth_header_name varchar(100),
        auth_username varchar(200),
        auth_secret text,
        operations jsonb NOT NULL,
        timeout_ms integer NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_tool_provider_tenant_name ON chat_tool_provider (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_tool_provider_tenant_created ON chat_tool_provider (tenant_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_tool_provider`);
    await queryRunner.query(`DROP TABLE chat_intention_record`);
    await queryRunner.query(`DROP TABLE chat_tag_rule`);
    await queryRunner.query(`DROP TABLE chat_intervention_rule`);
  }
}
