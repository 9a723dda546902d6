import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's case snapshot moves from the `eval_run.cases` JSONB array into rows (issue 23 item 3, issue 14 item 3):
 * `eval_run_case` holds one row per case keyed by (run, position), so a poll reads the stored `case_count`, the
 * executor reads its cases in keyset pages and a report joins one case per result row. Existing runs' snapshots
 * are moved set-based (one INSERT … SELECT jsonb_array_elements … WITH ORDINALITY, in this migration's
 * transaction), then the column goes. Reports read results in (run, position, repetition) order: the index
 * `ix_eval_case_result_run_position` serves that order (no sort, no spill).
 */
export class EvaluationRunCaseRows1795600100000 implements MigrationInterface {
  name = 'EvaluationRunCaseRows1795600100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_run_case (
        run_id uuid NOT NULL,
        position integer NOT NULL,
        case_id varchar(64) NOT NULL,
        content jsonb NOT NULL,
        PRIMARY KEY (run_id, position)
      )`);
    await queryRunner.query(`ALTER TABLE eval_run ADD COLUMN case_count integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      INSERT INTO eval_run_case (run_id, position, case_id, content)
      SELECT run.id, item.ordinality - 1, item.value->>'id', item.value
        FROM eval_run run, jsonb_array_elements(run.cases) WITH ORDINALITY AS item(value, ordinality)`);
    await queryRunner.query(`UPDATE eval_run SET case_count = jsonb_array_length(cases)`);
    await queryRunner.query(`ALTER TABLE eval_run DROP COLUMN cases`);
    await queryRunner.query(`CREATE INDEX ix_eval_case_result_run_position ON eval_case_result (run_id, position, repeat_index)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_eval_case_result_run_position`);
    await queryRunner.query(`ALTER TABLE eval_run ADD COLUMN cases jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await queryRunner.query(`
      UPDATE eval_run run SET cases = snapshot.cases
        FROM (SELECT run_id, jsonb_agg(content ORDER BY position) AS cases FROM eval_run_case GROUP BY run_id) snapshot
       WHERE snapshot.run_id = run.id`);
    await queryRunner.query(`ALTER TABLE eval_run ALTER COLUMN cases DROP DEFAULT, DROP COLUMN case_count`);
    await queryRunner.query(`DROP TABLE eval_run_case`);
  }
}
