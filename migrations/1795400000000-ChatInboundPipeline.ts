import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, the inbound AI reply pipeline (issue 6, "The inbound pipeline"; src/chat/pipeline):
 * - `chat_message.in_reply_to_message_id`: the inbound message an AI message answers; at most one AI message per
 *   inbound message (partial unique index), so a retried reply job never sends twice;
 * - `chat_ai_reply`: the reply state of each inbound message (one per message), with the lease the sweep uses to
 *   re-queue replies of killed workers (partial index over open rows, across tenants);
 * - `chat_out_of_hours_notice`: one row per (tenant, contact, out-of-service window start) = the out-of-hours
 *   message is sent once per window.
 * No FKs; every index but the sweep's leads with `tenant_id`.
 */
export class ChatInboundPipeline1795400000000 implements MigrationInterface {
  name = 'ChatInboundPipeline1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat_message ADD in_reply_to_message_id uuid`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_message_ai_reply ON chat_message (tenant_id, in_reply_to_message_id) WHERE "sender" = 'ai' AND "in_reply_to_message_id" IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE chat_ai_reply (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        inbound_message_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        digital_staff_id uuid,
        trigger varchar(16) NOT NULL DEFAULT 'inbound',
        status varchar(16) NOT NULL,
        reply_message_id uuid,
        attempts integer NOT NULL DEFAULT 0,
        reason text,
        worker_id uuid,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_ai_reply_inbound ON chat_ai_reply (tenant_id, inbound_message_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_ai_reply_contact_created ON chat_ai_reply (tenant_id, contact_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_chat_ai_reply_open_lease ON chat_ai_reply (lease_until) WHERE "status" IN ('queued', 'composing')`);
    await queryRunner.query(`
      CREATE TABLE chat_out_of_hours_notice (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        contact_id uuid NOT NULL,
        digital_staff_id uuid NOT NULL,
        window_start timestamptz NOT NULL,
        inbound_message_id uuid NOT NULL,
        message_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_out_of_hours_notice_window ON chat_out_of_hours_notice (tenant_id, contact_id, window_start)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_out_of_hours_notice`);
    await queryRunner.query(`DROP TABLE chat_ai_reply`);
    await queryRunner.query(`DROP INDEX ux_chat_message_ai_reply`);
    await queryRunner.query(`ALTER TABLE chat_message DROP COLUMN in_reply_to_message_id`);
  }
}
