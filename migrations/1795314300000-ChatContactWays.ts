import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact ways and group ways (issue 5; chat-management-api.md, "Contact way (scene code)" and "Group way"):
 * int64 identity ids, the platform's config id and QR code, the scene `state` (unique per corp when set) and the
 * default flag with its scope (at most one default per scope: partial unique index). Indexes lead with `tenant_id`.
 */
export class ChatContactWays1795314300000 implements MigrationInterface {
  name = 'ChatContactWays1795314300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_contact_way (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        name varchar(100) NOT NULL,
        type smallint NOT NULL,
        scene smallint NOT NULL,
        state varchar(30),
        work_chat_user_ids jsonb NOT NULL,
        digital_staff_id uuid,
        config_id varchar(64) NOT NULL,
        qr_code text,
        remark varchar(30),
        skip_verify boolean NOT NULL DEFAULT true,
        channel_name varchar(100),
        relevance_code varchar(64),
        is_default boolean NOT NULL DEFAULT false,
        default_scope varchar(120),
        hidden boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_contact_way_tenant_corp_state ON chat_contact_way (tenant_id, corp_id, state) WHERE "state" IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_contact_way_tenant_corp_config ON chat_contact_way (tenant_id, corp_id, config_id)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_contact_way_tenant_default_scope ON chat_contact_way (tenant_id, default_scope) WHERE "is_default"`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_way_tenant_created ON chat_contact_way (tenant_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_way_tenant_corp_created ON chat_contact_way (tenant_id, corp_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_way_tenant_relevance ON chat_contact_way (tenant_id, relevance_code)`);
    await queryRunner.query(`CREATE INDEX ix_chat_contact_way_tenant_digital_staff ON chat_contact_way (tenant_id, digital_staff_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_group_way (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        name varchar(100) NOT NULL,
        scene smallint NOT NULL,
        state varchar(30),
        chat_ids jsonb NOT NULL,
        conversation_group_id varchar(64),
        digital_staff_id uuid,
        config_id varchar(64) NOT NULL,
        qr_code text,
        remark varchar(30),
        auto_create_room boolean NOT NULL DEFAULT false,
        room_base_name varchar(40),
        room_base_id integer,
        is_default boolean NOT NULL DEFAULT false,
        default_scope varchar(120),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_group_way_tenant_corp_state ON chat_group_way (tenant_id, corp_id, state) WHERE "state" IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_group_way_tenant_corp_config ON chat_group_way (tenant_id, corp_id, config_id)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_group_way_tenant_default_scope ON chat_group_way (tenant_id, default_scope) WHERE "is_default"`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_way_tenant_created ON chat_group_way (tenant_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_way_tenant_corp_created ON chat_group_way (tenant_id, corp_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_way_tenant_conversation_group ON chat_group_way (tenant_id, conversation_group_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_group_way`);
    await queryRunner.query(`DROP TABLE chat_contact_way`);
  }
}
