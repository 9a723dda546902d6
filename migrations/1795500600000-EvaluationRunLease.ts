import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run lease (issue 19 acceptance 5; src/evaluation/runs/run-lease.ts): which execution holds a running run and
 * until when. The sweeper's partial index covers running runs only, the ones it looks through.
 */
export class EvaluationRunLease1795500600000 implements MigrationInterface {
  name = 'EvaluationRunLease1795500600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE eval_run ADD COLUMN lease_owner varchar(128), ADD COLUMN lease_until timestamptz`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_running_lease ON eval_run (lease_until) WHERE "status" = 'running'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_eval_run_running_lease`);
    await queryRunner.query(`ALTER TABLE eval_run DROP COLUMN lease_until, DROP COLUMN lease_owner`);
  }
}
