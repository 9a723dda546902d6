import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation runs with their case and rule results. */
export class EvaluationRuns1795307200000 implements MigrationInterface {
  name = 'EvaluationRuns1795307200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_run (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        scenario_id uuid,
        scenario_name varchar(200) NOT NULL,
        scenario_version integer NOT NULL,
        target_id uuid,
        target_name varchar(200) NOT NULL,
        status varchar(16) NOT NULL,
        triggered_by varchar(16) NOT NULL,
        campaign_id uuid,
        concurrency integer NOT NULL,
        repeat_count integer NOT NULL,
        cases jsonb NOT NULL,
        model_bindings jsonb NOT NULL,
        llm_config jsonb NOT NULL,
        summary jsonb,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_created ON eval_run (created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_status_created ON eval_run (status, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_scenario_created ON eval_run (scenario_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_target_created ON eval_run (target_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_run_campaign ON eval_run (campaign_id)`);

    await queryRunner.query(`
      CREATE TABLE eval_case_result (
        id bigserial PRIMARY KEY,
        run_id uuid NOT NULL,
        case_id varchar(64) NOT NULL,
        repeat_index integer NOT NULL,
        position integer NOT NULL,
        status varchar(16) NOT NULL,
        output text,
        latency_ms integer,
        score real,
        error text,
        transcript jsonb NOT NULL,
        rules_passed integer NOT NULL,
        rules_total integer NOT NULL,
        finished_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_case_result_run_case ON eval_case_result (run_id, case_id, repeat_index)`);

    await queryRunner.query(`
      CREATE TABLE eval_rule_result (
        id bigserial PRIMARY KEY,
        case_result_id bigint NOT NULL,
        rule_index integer NOT NULL,
        type varchar(32) NOT NULL,
        pass boolean NOT NULL,
        score real NOT NULL,
        weight real NOT NULL,
        reason text NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_rule_result_case ON eval_rule_result (case_result_id, rule_index)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_rule_result`);
    await queryRunner.query(`DROP TABLE eval_case_result`);
    await queryRunner.query(`DROP TABLE eval_run`);
  }
}
