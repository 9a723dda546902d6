import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * External contacts, group rooms and group members of the chat wing (issue 5, "External contacts";
 * src/chat/contacts, src/chat/group-rooms). Every index leads with the tenant. chat_group_member deliberately has no
 * unique (room, member) index: the deprecated dedup operation removes the duplicates legacy rows hold.
 */
export class ChatContactsAndGroupRooms1795314600000 implements MigrationInterface {
  name = 'ChatContactsAndGroupRooms1795314600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_external_contact (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        external_user_id varchar(64) NOT NULL,
        open_id varchar(128),
        union_id varchar(128),
        work_chat_user_id varchar(64) NOT NULL,
        name varchar(128) NOT NULL,
        avatar_url text,
        type smallint NOT NULL DEFAULT 1,
        gender smallint NOT NULL DEFAULT 0,
        customer_corp_name varchar(128),
        remark varchar(64),
        description varchar(255),
        remark_company varchar(64),
        mobile varchar(32),
        tags jsonb NOT NULL,
        state varchar(30),
        state_at timestamptz,
        add_way smallint NOT NULL DEFAULT 0,
        added_at timestamptz,
        ai_enabled boolean NOT NULL DEFAULT true,
        profile jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_message_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_external_contact_relation ON chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_staff_created ON chat_external_contact (tenant_id, work_chat_user_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_state_at ON chat_external_contact (tenant_id, corp_id, state, state_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_open_id ON chat_external_contact (tenant_id, open_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_external_user ON chat_external_contact (tenant_id, external_user_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_external_contact_tenant_created ON chat_external_contact (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_group_room (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        chat_id varchar(64) NOT NULL,
        name varchar(128) NOT NULL,
        owner_work_chat_user_id varchar(64) NOT NULL,
        notice text,
        status smallint NOT NULL DEFAULT 0,
        member_count integer NOT NULL DEFAULT 0,
        ai_enabled boolean NOT NULL DEFAULT true,
        platform_created_at timestamptz,
        synced_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_group_room_chat ON chat_group_room (tenant_id, corp_id, chat_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_room_owner ON chat_group_room (tenant_id, owner_work_chat_user_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_group_member (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        group_room_id uuid NOT NULL,
        chat_id varchar(64) NOT NULL,
        member_user_id varchar(64) NOT NULL,
        member_type smallint NOT NULL,
        name varchar(128),
        join_scene smallint NOT NULL DEFAULT 0,
        joined_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_member_room_member ON chat_group_member (tenant_id, group_room_id, member_user_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_group_member_chat ON chat_group_member (tenant_id, chat_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS chat_group_member`);
    await queryRunner.query(`DROP TABLE IF EXISTS chat_group_room`);
    await queryRunner.query(`DROP TABLE IF EXISTS chat_external_contact`);
  }
}
