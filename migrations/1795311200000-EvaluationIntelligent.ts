import { MigrationInterface, QueryRunner } from 'typeorm';

/** Intelligent evaluations (lifecycle, plan, approval, report) with their sessions and messages. */
export class EvaluationIntelligent1795311200000 implements MigrationInterface {
  name = 'EvaluationIntelligent1795311200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_intelligent_evaluation (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        goal text NOT NULL,
        description text,
        target_id uuid,
        status varchar(24) NOT NULL,
        plan jsonb,
        approved_by varchar(200),
        approval_note text,
        report jsonb,
        status_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        planning_at timestamptz,
        pending_approval_at timestamptz,
        executing_at timestamptz,
        completed_at timestamptz,
        failed_at timestamptz,
        cancelled_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_intelligent_evaluation_created ON eval_intelligent_evaluation (created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_intelligent_evaluation_status_created ON eval_intelligent_evaluation (status, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_intelligent_evaluation_target_created ON eval_intelligent_evaluation (target_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE eval_intelligent_session (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        evaluation_id uuid NOT NULL,
        title varchar(200) NOT NULL,
        kind varchar(16) NOT NULL,
        status varchar(8) NOT NULL,
        message_count integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_message_at timestamptz,
        closed_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_intelligent_session_evaluation_created ON eval_intelligent_session (evaluation_id, created_at, id)`);

    await queryRunner.query(`
      CREATE TABLE eval_intelligent_message (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        evaluation_id uuid NOT NULL,
        session_id uuid NOT NULL,
        role varchar(16) NOT NULL,
        content text NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_intelligent_message_session_created ON eval_intelligent_message (session_id, created_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_intelligent_message`);
    await queryRunner.query(`DROP TABLE eval_intelligent_session`);
    await queryRunner.query(`DROP TABLE eval_intelligent_evaluation`);
  }
}
