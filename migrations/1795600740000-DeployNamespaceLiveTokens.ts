import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 acceptance 1 (page 0 of every list flat from 10k to 1M rows), for `GET /api/admin/namespaces`: each row
 * shows the namespace's live (not revoked) token count, which the list counted per request over `deploy_agent_token`
 * (10k live tokens a namespace at 1M rows: 6.5× growth). A token has no expiry, so "live" is `revoked_at IS NULL`
 * alone and a count kept by the writes is exact: `deploy_namespace.live_tokens`, maintained by triggers in the
 * writer's own transaction (registration, rotation, revocation, and any bulk load), so the list reads one column.
 * - INSERT / DELETE of tokens: statement-level with transition tables (a bulk insert folds in one pass), the
 *   namespaces updated one by one in name order (two bulk writers lock them in the same order).
 * - UPDATE: row-level, and only when liveness or the namespace changed (`last_used_at` writes cost nothing).
 * - TRUNCATE of the tokens: every count back to 0.
 * - A namespace row inserted after tokens of its name exist starts from their count (the app always claims the
 *   namespace before it inserts a token, so this is for loads and restores); an `INSERT … ON CONFLICT` of an existing
 *   name skips the count with one primary-key probe.
 * Tokens of a name without a namespace row (legacy case variants, see 1795500200000) are counted nowhere, as before.
 */
export class DeployNamespaceLiveTokens1795600740000 implements MigrationInterface {
  name = 'DeployNamespaceLiveTokens1795600740000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deploy_namespace ADD COLUMN live_tokens integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      CREATE FUNCTION deploy_namespace_live_tokens_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        delta record;
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE deploy_namespace SET live_tokens = 0 WHERE live_tokens <> 0;
        ELSIF TG_OP = 'INSERT' THEN
          FOR delta IN SELECT namespace, count(*)::int AS live FROM new_tokens WHERE revoked_at IS NULL GROUP BY namespace ORDER BY namespace LOOP
            UPDATE deploy_namespace SET live_tokens = live_tokens + delta.live WHERE name = delta.namespace;
          END LOOP;
        ELSE
          FOR delta IN SELECT namespace, count(*)::int AS live FROM old_tokens WHERE revoked_at IS NULL GROUP BY namespace ORDER BY namespace LOOP
            UPDATE deploy_namespace SET live_tokens = live_tokens - delta.live WHERE name = delta.namespace;
          END LOOP;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION deploy_namespace_live_tokens_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.revoked_at IS NULL THEN
          UPDATE deploy_namespace SET live_tokens = live_tokens - 1 WHERE name = OLD.namespace;
        END IF;
        IF NEW.revoked_at IS NULL THEN
          UPDATE deploy_namespace SET live_tokens = live_tokens + 1 WHERE name = NEW.namespace;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION deploy_namespace_live_tokens_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM deploy_namespace WHERE name = NEW.name) THEN
          NEW.live_tokens := (SELECT count(*) FROM deploy_agent_token WHERE namespace = NEW.name AND revoked_at IS NULL);
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER deploy_agent_token_live_insert AFTER INSERT ON deploy_agent_token
        REFERENCING NEW TABLE AS new_tokens FOR EACH STATEMENT EXECUTE FUNCTION deploy_namespace_live_tokens_statement()`);
    await queryRunner.query(`
      CREATE TRIGGER deploy_agent_token_live_delete AFTER DELETE ON deploy_agent_token
        REFERENCING OLD TABLE AS old_tokens FOR EACH STATEMENT EXECUTE FUNCTION deploy_namespace_live_tokens_statement()`);
    await queryRunner.query(`
      CREATE TRIGGER deploy_agent_token_live_truncate AFTER TRUNCATE ON deploy_agent_token
        FOR EACH STATEMENT EXECUTE FUNCTION deploy_namespace_live_tokens_statement()`);
    await queryRunner.query(`
      CREATE TRIGGER deploy_agent_token_live_update AFTER UPDATE ON deploy_agent_token FOR EACH ROW
        WHEN ((OLD.revoked_at IS NULL) IS DISTINCT FROM (NEW.revoked_at IS NULL) OR (OLD.namespace IS DISTINCT FROM NEW.namespace AND (OLD.revoked_at IS NULL OR NEW.revoked_at IS NULL)))
        EXECUTE FUNCTION deploy_namespace_live_tokens_row()`);
    await queryRunner.query(`
      CREATE TRIGGER deploy_namespace_live_tokens_claim BEFORE INSERT ON deploy_namespace
        FOR EACH ROW EXECUTE FUNCTION deploy_namespace_live_tokens_claim()`);
    // Backfill: the live tokens of every existing namespace.
    await queryRunner.query(`
      UPDATE deploy_namespace n SET live_tokens = c.live
        FROM (SELECT namespace, count(*)::int AS live FROM deploy_agent_token WHERE revoked_at IS NULL GROUP BY namespace) c
       WHERE n.name = c.namespace`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS deploy_namespace_live_tokens_claim ON deploy_namespace`);
    for (const trigger of ['insert', 'delete', 'truncate', 'update']) await queryRunner.query(`DROP TRIGGER IF EXISTS deploy_agent_token_live_${trigger} ON deploy_agent_token`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS deploy_namespace_live_tokens_claim()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS deploy_namespace_live_tokens_row()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS deploy_namespace_live_tokens_statement()`);
    await queryRunner.query(`ALTER TABLE deploy_namespace DROP COLUMN live_tokens`);
  }
}
