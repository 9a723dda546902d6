import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Namespace ownership (issue 12, item 3): a namespace row per claimed contactId, unique case-insensitively, and the
 * owner's one-time join grants. Existing namespaces (from tokens and deployments) are claimed by the agent that used
 * them first, so nobody can claim a namespace that is already in use by registering into it.
 */
export class DeployNamespaceOwnership1795500200000 implements MigrationInterface {
  name = 'DeployNamespaceOwnership1795500200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE deploy_namespace (
        name varchar(64) PRIMARY KEY,
        claimed_by_agent_id varchar(128) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_deploy_namespace_lower_name ON deploy_namespace (lower(name))`);
    // Earliest use wins; of names differing only in case, only the first is kept (the others' tokens still work).
    await queryRunner.query(`
      INSERT INTO deploy_namespace (name, claimed_by_agent_id, created_at)
      SELECT DISTINCT ON (lower(namespace)) namespace, agent_id, created_at
        FROM (SELECT namespace, agent_id, created_at FROM deploy_agent_token
              UNION ALL SELECT namespace, agent_id, created_at FROM deploy_deployment) used
       ORDER BY lower(namespace), created_at
      ON CONFLICT DO NOTHING`);

    await queryRunner.query(`
      CREATE TABLE deploy_join_grant (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        prefix varchar(16) NOT NULL,
        secret_hash char(64) NOT NULL,
        namespace varchar(64) NOT NULL,
        note varchar(200),
        permissions text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        used_by_agent_id varchar(128),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_deploy_join_grant_prefix ON deploy_join_grant (prefix)`);
    await queryRunner.query(`CREATE INDEX ix_deploy_join_grant_namespace_created ON deploy_join_grant (namespace, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE deploy_join_grant`);
    await queryRunner.query(`DROP TABLE deploy_namespace`);
  }
}
