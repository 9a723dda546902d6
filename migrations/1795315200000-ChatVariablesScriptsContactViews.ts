import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing configuration (issue 6, Configuration resources): variable scopes, definitions and values
 * (src/chat/variables), script categories and contents (src/chat/scripts) and saved contact views
 * (src/chat/contact-views). Every row carries `tenant_id` and every index leads with it; references between these
 * tables are plain uuid columns kept consistent by the services (no FKs).
 */
export class ChatVariablesScriptsContactViews1795315200000 implements MigrationInterface {
  name = 'ChatVariablesScriptsContactViews1795315200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_variable_scope (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        source varchar(32) NOT NULL,
        description varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_variable_scope_tenant_source_name ON chat_variable_scope (tenant_id, source, name)`);

    await queryRunner.query(`
      CREATE TABLE chat_variable_definition (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        scope_id uuid NOT NULL,
        name varchar(64) NOT NULL,
        type varchar(16) NOT NULL,
        options jsonb,
        default_value jsonb,
        description varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_variable_definition_scope_name ON chat_variable_definition (tenant_id, scope_id, name)`);

    await queryRunner.query(`
      CREATE TABLE chat_variable_value (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        scope_id uuid NOT NULL,
        definition_id uuid NOT NULL,
        subject_id varchar(64) NOT NULL,
        value jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_variable_value_definition_subject ON chat_variable_value (tenant_id, definition_id, subject_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_variable_value_scope_subject ON chat_variable_value (tenant_id, scope_id, subject_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_script_category (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        parent_id uuid,
        name varchar(100) NOT NULL,
        sort_order integer NOT NULL DEFAULT 0,
        description varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_script_category_tenant_parent ON chat_script_category (tenant_id, parent_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_script_content (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        category_id uuid NOT NULL,
        title varchar(200) NOT NULL,
        content text NOT NULL,
        attachments jsonb NOT NULL,
        keywords jsonb NOT NULL,
        tags jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_script_content_tenant_category ON chat_script_content (tenant_id, category_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_script_content_tenant_updated ON chat_script_content (tenant_id, updated_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_contact_view (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        owner_subject varchar(255) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        filter jsonb NOT NULL,
        sort jsonb NOT NULL,
        shared boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_contact_view_owner_name ON chat_contact_view (tenant_id, owner_subject, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_view_tenant_shared ON chat_contact_view (tenant_id, shared, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_contact_view`);
    await queryRunner.query(`DROP TABLE chat_script_content`);
    await queryRunner.query(`DROP TABLE chat_script_category`);
    await queryRunner.query(`DROP TABLE chat_variable_value`);
    await queryRunner.query(`DROP TABLE chat_variable_definition`);
    await queryRunner.query(`DROP TABLE chat_variable_scope`);
  }
}
