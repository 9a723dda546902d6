import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, staff and digital staff (issue 5, Areas: staff users, digital staff, service time): staff users of the
 * tenant's corps (unique platform userid per corp, optionally bound to a digital staff), digital staff (AI
 * employees, unique name per tenant) and the one service-time configuration of each digital staff (keyed by the
 * digital staff id). Every row carries `tenant_id` and every secondary index leads with it.
 */
export class ChatStaffAndDigitalStaff1795314000000 implements MigrationInterface {
  name = 'ChatStaffAndDigitalStaff1795314000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_work_user (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_id uuid NOT NULL,
        work_chat_user_id varchar(64) NOT NULL,
        user_id varchar(64),
        name varchar(100) NOT NULL,
        mobile varchar(32),
        email varchar(254),
        online boolean NOT NULL DEFAULT false,
        digital_staff_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_work_user_tenant_corp_user ON chat_work_user (tenant_id, corp_id, work_chat_user_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_work_user_tenant_created ON chat_work_user (tenant_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_work_user_tenant_digital_staff ON chat_work_user (tenant_id, digital_staff_id)`);

    await queryRunner.query(`
      CREATE TABLE chat_digital_staff (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        name varchar(100) NOT NULL,
        persona text NOT NULL,
        description varchar(500),
        welcome_message text,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_digital_staff_tenant_name ON chat_digital_staff (tenant_id, name)`);
    await queryRunner.query(`CREATE INDEX ix_chat_digital_staff_tenant_created ON chat_digital_staff (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_digital_staff_service_time (
        digital_staff_id uuid PRIMARY KEY,
        tenant_id varchar(63) NOT NULL,
        time_zone varchar(64) NOT NULL,
        windows jsonb NOT NULL,
        out_of_hours_message text,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_digital_staff_service_time_tenant ON chat_digital_staff_service_time (tenant_id, digital_staff_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_digital_staff_service_time`);
    await queryRunner.query(`DROP TABLE chat_digital_staff`);
    await queryRunner.query(`DROP TABLE chat_work_user`);
  }
}
