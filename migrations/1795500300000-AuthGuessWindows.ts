import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Guessing limits (issue 12 item 5): one counter row per credential kind, client and fixed window, updated by a
 * single upsert per attempt (src/common/auth/guess-limiter.ts). It replaces the evaluation wing's one-row-per-failure
 * `eval_sign_in_failure`, whose count-then-insert let parallel attempts past the limit.
 */
export class AuthGuessWindows1795500300000 implements MigrationInterface {
  name = 'AuthGuessWindows1795500300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE auth_guess_window (
        kind varchar(32) NOT NULL,
        client_key varchar(64) NOT NULL,
        window_start timestamptz NOT NULL,
        failures integer NOT NULL,
        in_flight integer NOT NULL,
        refused integer NOT NULL,
        last_outcome varchar(8) NOT NULL,
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        PRIMARY KEY (kind, client_key, window_start)
      )`);
    // The retention sweep deletes by window start.
    await queryRunner.query(`CREATE INDEX ix_auth_guess_window_start ON auth_guess_window (window_start)`);
    await queryRunner.query(`DROP TABLE eval_sign_in_failure`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_sign_in_failure (
        id bigserial PRIMARY KEY,
        client_address varchar(64) NOT NULL,
        failed_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_sign_in_failure_address_time ON eval_sign_in_failure (client_address, failed_at)`);
    await queryRunner.query(`DROP TABLE auth_guess_window`);
  }
}
