import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation scenarios with their syllabus (cases, model bindings, LLM config) and system-kept version. */
export class EvaluationScenarios1795306000000 implements MigrationInterface {
  name = 'EvaluationScenarios1795306000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_scenario (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        description text,
        metadata jsonb NOT NULL,
        cases jsonb NOT NULL,
        model_bindings jsonb NOT NULL,
        llm_config jsonb NOT NULL,
        version integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_scenario_created ON eval_scenario (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_scenario`);
  }
}
