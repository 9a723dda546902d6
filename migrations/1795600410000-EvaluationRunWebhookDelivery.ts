import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20 item 2 for the run-completion webhook: one row per finished run whose webhook is to be sent, written in the
 * transaction that ends the run. A sending attempt claims it with a lease (`lease_until`, EVAL_WEBHOOK_LEASE_MS) and
 * marks it `delivered_at` once the receiver answered (or could not be reached: the spec asks for no retry), so a
 * duplicate job never sends it twice, and RunWebhookSweeper hands a row whose attempt died with its process to the
 * queue again. Existing runs get no row (their webhooks were sent or dropped before).
 */
export class EvaluationRunWebhookDelivery1795600410000 implements MigrationInterface {
  name = 'EvaluationRunWebhookDelivery1795600410000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "eval_run_webhook" (
        "run_id" uuid PRIMARY KEY REFERENCES "eval_run" ("id") ON DELETE CASCADE,
        "attempts" integer NOT NULL DEFAULT 0,
        "lease_until" TIMESTAMP WITH TIME ZONE,
        "delivered_at" TIMESTAMP WITH TIME ZONE,
        "outcome" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX "ix_eval_run_webhook_lease" ON "eval_run_webhook" ("lease_until") WHERE "delivered_at" IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "eval_run_webhook"`);
  }
}
