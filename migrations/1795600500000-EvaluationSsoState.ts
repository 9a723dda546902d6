import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `eval_sso_state` (issue 13 item 2): the sign-ins started at `GET /api/auth/sso/login` and not yet back. One row per
 * `state`, keyed by its SHA-256, holding the PKCE code verifier until the callback takes it (single use: the callback
 * deletes the row) or it expires (EVAL_SSO_STATE_TTL_MS). Kept in PostgreSQL so any instance can finish a sign-in
 * another one started.
 */
export class EvaluationSsoState1795600500000 implements MigrationInterface {
  name = 'EvaluationSsoState1795600500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE eval_sso_state (
      state_hash char(64) PRIMARY KEY,
      code_verifier varchar(128) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
    await queryRunner.query(`CREATE INDEX eval_sso_state_expires_at ON eval_sso_state (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_sso_state`);
  }
}
