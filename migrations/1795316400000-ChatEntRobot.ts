import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, enterprise robot (issue 6, Messages: "Enterprise robot"): robot chat groups (webhook key stored as
 * given, write-only; name unique per tenant) and the operators' log of robot messages sent. No FKs; every index
 * leads with `tenant_id`.
 */
export class ChatEntRobot1795316400000 implements MigrationInterface {
  name = 'ChatEntRobot1795316400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_ent_robot_group (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        webhook_key text NOT NULL,
        key_hint varchar(16) NOT NULL,
        corp_id uuid,
        description varchar(500),
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_ent_robot_group_tenant_name ON chat_ent_robot_group (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_ent_robot_group_tenant_created ON chat_ent_robot_group (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_ent_robot_message_log (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        group_id uuid NOT NULL,
        msg_type varchar(16) NOT NULL,
        content_bytes integer NOT NULL,
        mention_count integer NOT NULL,
        status varchar(16) NOT NULL,
        platform_error_code integer,
        platform_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_ent_robot_message_log_tenant_group_created ON chat_ent_robot_message_log (tenant_id, group_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_ent_robot_message_log`);
    await queryRunner.query(`DROP TABLE chat_ent_robot_group`);
  }
}
