import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run sweeper's pass (src/evaluation/runs/run-lease.ts, TAKE_OVER_EXPIRED_RUNS_SQL) asked for running runs whose
 * lease is missing or past: `lease_until IS NULL OR lease_until < now()`. No index range serves that OR, so each pass
 * read every running run's index entry and heap row (100,000 at 1M runs in the data-scale bench: 32,000 pages, 140 ms,
 * every few seconds, slowing every request of the instance). The index is now on `COALESCE(lease_until,
 * '-infinity')` of running runs, and the pass asks for that value below `now()`: one range, the due runs alone.
 */
export class EvaluationRunLeaseDue1795600780000 implements MigrationInterface {
  name = 'EvaluationRunLeaseDue1795600780000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX ix_eval_run_running_lease_due ON eval_run ((COALESCE(lease_until, '-infinity'::timestamptz))) WHERE "status" = 'running'`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_eval_run_running_lease`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ix_eval_run_running_lease ON eval_run (lease_until) WHERE "status" = 'running'`);
    await queryRunner.query(`DROP INDEX IF EXISTS ix_eval_run_running_lease_due`);
  }
}
