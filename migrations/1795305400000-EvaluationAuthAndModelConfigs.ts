import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation platform: sign-in failures (rate limit) and model configurations with the one analysis default. */
export class EvaluationAuthAndModelConfigs1795305400000 implements MigrationInterface {
  name = 'EvaluationAuthAndModelConfigs1795305400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_sign_in_failure (
        id bigserial PRIMARY KEY,
        client_address varchar(64) NOT NULL,
        failed_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_sign_in_failure_address_time ON eval_sign_in_failure (client_address, failed_at)`);

    await queryRunner.query(`
      CREATE TABLE eval_model_config (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(128) NOT NULL,
        provider varchar(32) NOT NULL,
        base_url text NOT NULL,
        model varchar(128) NOT NULL,
        api_key text,
        type varchar(16) NOT NULL,
        purpose varchar(32) NOT NULL,
        capabilities jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        is_analysis_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Rule 5: at most one analysis default, enforced by the database.
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_model_config_analysis_default ON eval_model_config (is_analysis_default) WHERE "is_analysis_default"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_model_config`);
    await queryRunner.query(`DROP TABLE eval_sign_in_failure`);
  }
}
