import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20 item 2: an outbound chat message's delivery attempt holds a lease (`delivery_lease_until`), set when the
 * attempt claims the `pending` row and renewed while it runs; ChatDeliverySweeper hands a `pending` message whose lease
 * ran out (its process was killed, or froze) to the queue again within CHAT_DELIVERY_LEASE_MS, instead of the queue's
 * 5-minute job expiry. The index serves the sweep.
 */
export class ChatDeliveryLease1795600400000 implements MigrationInterface {
  name = 'ChatDeliveryLease1795600400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chat_message" ADD "delivery_lease_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "ix_chat_message_delivery_lease" ON "chat_message" ("delivery_lease_until")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_chat_message_delivery_lease"`);
    await queryRunner.query(`ALTER TABLE "chat_message" DROP COLUMN "delivery_lease_until"`);
  }
}
