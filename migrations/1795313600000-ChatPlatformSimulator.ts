import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chat platform simulator's own tables (`chat_sim_*`, src/chat/platform/simulator): the platform's side of staff,
 * contact and join ways, customers and their followers, group chats, corp tags and messages. Rows are keyed by
 * tenant and platform corp id, indexes lead with the tenant.
 */
export class ChatPlatformSimulator1795313600000 implements MigrationInterface {
  name = 'ChatPlatformSimulator1795313600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_sim_staff (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        user_id varchar(64) NOT NULL,
        name varchar(128) NOT NULL,
        mobile varchar(32),
        department_ids jsonb NOT NULL,
        status smallint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_staff_user ON chat_sim_staff (tenant_id, platform_corp_id, user_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_contact_way (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        config_id varchar(64) NOT NULL,
        kind varchar(16) NOT NULL,
        type smallint,
        scene smallint NOT NULL,
        state varchar(64),
        remark varchar(255),
        skip_verify boolean NOT NULL,
        user_ids jsonb NOT NULL,
        department_ids jsonb NOT NULL,
        chat_ids jsonb NOT NULL,
        options jsonb NOT NULL,
        qr_code text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_contact_way_config ON chat_sim_contact_way (tenant_id, platform_corp_id, config_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_external_contact (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        external_user_id varchar(64) NOT NULL,
        name varchar(128) NOT NULL,
        type smallint NOT NULL,
        gender smallint NOT NULL,
        avatar_url text,
        union_id varchar(64),
        corp_name varchar(128),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_external_contact_user ON chat_sim_external_contact (tenant_id, platform_corp_id, external_user_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_follow (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        user_id varchar(64) NOT NULL,
        external_user_id varchar(64) NOT NULL,
        remark varchar(128),
        description text,
        remark_company varchar(128),
        remark_mobiles jsonb NOT NULL,
        tag_ids jsonb NOT NULL,
        state varchar(64),
        add_way smallint NOT NULL,
        added_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_follow_user_contact ON chat_sim_follow (tenant_id, platform_corp_id, user_id, external_user_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_sim_follow_contact ON chat_sim_follow (tenant_id, platform_corp_id, external_user_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_group_chat (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        chat_id varchar(64) NOT NULL,
        name varchar(128) NOT NULL,
        owner_user_id varchar(64) NOT NULL,
        notice text,
        status smallint NOT NULL,
        members jsonb NOT NULL,
        admin_user_ids jsonb NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_group_chat_chat ON chat_sim_group_chat (tenant_id, platform_corp_id, chat_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_sim_group_chat_owner ON chat_sim_group_chat (tenant_id, platform_corp_id, owner_user_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_tag (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64) NOT NULL,
        kind varchar(8) NOT NULL,
        tag_id varchar(64) NOT NULL,
        group_id varchar(64),
        name varchar(128) NOT NULL,
        sort_order integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_tag_tag ON chat_sim_tag (tenant_id, platform_corp_id, tag_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_sim_tag_group ON chat_sim_tag (tenant_id, platform_corp_id, group_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_sim_message (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(64) NOT NULL,
        platform_corp_id varchar(64),
        msg_id varchar(64) NOT NULL,
        direction varchar(8) NOT NULL,
        chat_type varchar(8) NOT NULL,
        user_id varchar(64),
        external_user_id varchar(64),
        chat_id varchar(64),
        robot_key_hash char(64),
        msg_type varchar(16) NOT NULL,
        content text,
        media jsonb,
        mentions jsonb,
        sent_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_sim_message_msg ON chat_sim_message (tenant_id, msg_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_sim_message_contact ON chat_sim_message (tenant_id, platform_corp_id, external_user_id, sent_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_sim_message_chat ON chat_sim_message (tenant_id, platform_corp_id, chat_id, sent_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_sim_message`);
    await queryRunner.query(`DROP TABLE chat_sim_tag`);
    await queryRunner.query(`DROP TABLE chat_sim_group_chat`);
    await queryRunner.query(`DROP TABLE chat_sim_follow`);
    await queryRunner.query(`DROP TABLE chat_sim_external_contact`);
    await queryRunner.query(`DROP TABLE chat_sim_contact_way`);
    await queryRunner.query(`DROP TABLE chat_sim_staff`);
  }
}
