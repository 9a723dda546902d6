import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Named evaluation API keys (issue 19 item 6): stored as SHA-256, created, listed and revoked through the API and
 * `atrium-eval`; EVAL_API_KEYS seeds `env-1`, `env-2`, … at start (src/evaluation/auth/api-keys.service.ts).
 */
export class EvaluationNamedApiKeys1795500310000 implements MigrationInterface {
  name = 'EvaluationNamedApiKeys1795500310000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_api_key (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(64) NOT NULL,
        key_hash varchar(64) NOT NULL,
        admin boolean NOT NULL,
        source varchar(8) NOT NULL,
        created_by varchar(128),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        revoked_by varchar(128)
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_api_key_name ON eval_api_key (name)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_api_key_hash ON eval_api_key (key_hash)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_api_key`);
  }
}
