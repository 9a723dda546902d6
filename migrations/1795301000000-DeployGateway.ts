import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deployment gateway tables: agent tokens, gateway secrets, deployments, audit log. */
export class DeployGateway1795301000000 implements MigrationInterface {
  name = 'DeployGateway1795301000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE deploy_agent_token (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        prefix varchar(16) NOT NULL,
        secret_hash char(64) NOT NULL,
        agent_id varchar(128) NOT NULL,
        instance_name varchar(128),
        namespace varchar(64) NOT NULL,
        permissions text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_deploy_agent_token_prefix ON deploy_agent_token (prefix)`);
    await queryRunner.query(`CREATE INDEX ix_deploy_agent_token_agent ON deploy_agent_token (agent_id)`);
    await queryRunner.query(`CREATE INDEX ix_deploy_agent_token_created ON deploy_agent_token (created_at)`);

    await queryRunner.query(`
      CREATE TABLE deploy_gateway_secret (
        name varchar(32) PRIMARY KEY,
        secret_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE deploy_deployment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        namespace varchar(64) NOT NULL,
        project_name varchar(128) NOT NULL,
        directory_name varchar(96) NOT NULL,
        file_count integer NOT NULL,
        bytes bigint NOT NULL,
        token_prefix varchar(16) NOT NULL,
        agent_id varchar(128) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_deploy_deployment_directory ON deploy_deployment (directory_name)`);
    await queryRunner.query(`CREATE INDEX ix_deploy_deployment_namespace_created ON deploy_deployment (namespace, created_at)`);

    await queryRunner.query(`
      CREATE TABLE deploy_audit_entry (
        id bigserial PRIMARY KEY,
        occurred_at timestamptz NOT NULL,
        token_prefix varchar(16),
        agent_id varchar(128),
        namespace varchar(64),
        action varchar(48) NOT NULL,
        target text,
        outcome varchar(16) NOT NULL,
        status smallint NOT NULL,
        client_address varchar(64),
        command text,
        exit_code integer,
        detail text
      )`);
    await queryRunner.query(`CREATE INDEX ix_deploy_audit_entry_occurred ON deploy_audit_entry (occurred_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE deploy_audit_entry`);
    await queryRunner.query(`DROP TABLE deploy_deployment`);
    await queryRunner.query(`DROP TABLE deploy_gateway_secret`);
    await queryRunner.query(`DROP TABLE deploy_agent_token`);
  }
}
