import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `core_shared_secret` (issue 20 item 5): signing secrets that every instance must share and that nobody configured
 * (the evaluation session secret when EVAL_SESSION_SECRET is unset, the chat OAuth2 signing key). The first instance
 * to start generates the value; every other one reads it. Values are sealed with ATRIUM_SECRET_KEY, which is why that
 * key is required configuration when several instances share the database.
 */
export class SharedSecrets1795500800000 implements MigrationInterface {
  name = 'SharedSecrets1795500800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE core_shared_secret (
      name varchar(64) PRIMARY KEY,
      sealed_value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE core_shared_secret`);
  }
}
