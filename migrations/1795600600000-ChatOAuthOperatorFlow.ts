import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 13 item 2: the built-in chat authorization server serves the authorization-code flow to operators (Swagger
 * UI's "Authorize", signed in through the operator single sign-on).
 * - `chat_oauth_record`: what oidc-provider keeps between requests (Session, Interaction, AuthorizationCode, Grant, …),
 *   one row per model and id, in PostgreSQL so every instance sees it (issue 20). `id_hash` is the SHA-256 of the id
 *   (authorization codes and session ids are credentials: never stored as given); `uid_hash` likewise for sessions'
 *   uid; `grant_id` lets a grant's artefacts be revoked together; `consumed_at` marks a used authorization code (its
 *   replay revokes the grant); rows past `expires_at` are never read and are swept as new ones are written.
 * - `eval_sso_state.handoff`: a single sign-on started for another wing (the chat authorization server's operator
 *   login) names it here, so the shared callback hands the operator back.
 */
export class ChatOAuthOperatorFlow1795600600000 implements MigrationInterface {
  name = 'ChatOAuthOperatorFlow1795600600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE chat_oauth_record (
      model varchar(40) NOT NULL,
      id_hash char(64) NOT NULL,
      payload jsonb NOT NULL,
      grant_id varchar(255),
      uid_hash char(64),
      expires_at timestamptz,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (model, id_hash)
    )`);
    await queryRunner.query(`CREATE INDEX chat_oauth_record_grant_id ON chat_oauth_record (grant_id) WHERE grant_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX chat_oauth_record_uid ON chat_oauth_record (model, uid_hash) WHERE uid_hash IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX chat_oauth_record_expires_at ON chat_oauth_record (expires_at) WHERE expires_at IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE eval_sso_state ADD COLUMN handoff jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE eval_sso_state DROP COLUMN handoff`);
    await queryRunner.query(`DROP TABLE chat_oauth_record`);
  }
}
