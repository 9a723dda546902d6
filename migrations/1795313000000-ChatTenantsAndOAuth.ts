import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing foundation (issue 5, Tenancy and OAuth2): tenants, the built-in authorization server's OAuth2 clients
 * (secrets as SHA-256 hashes), and the first tenant-scoped resource, corps. Chat rows carry `tenant_id` and their
 * indexes lead with it.
 */
export class ChatTenantsAndOAuth1795313000000 implements MigrationInterface {
  name = 'ChatTenantsAndOAuth1795313000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_tenant (
        id varchar(63) PRIMARY KEY,
        name varchar(200) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE chat_oauth_client (
        client_id varchar(64) PRIMARY KEY,
        tenant_id varchar(63),
        name varchar(200) NOT NULL,
        scopes text[] NOT NULL,
        secret_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_chat_oauth_client_tenant_created ON chat_oauth_client (tenant_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE chat_work_corp (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(63) NOT NULL,
        corp_name varchar(100) NOT NULL,
        work_chat_corp_id varchar(64) NOT NULL,
        agent_id varchar(32),
        secret text,
        callback_token varchar(64),
        callback_aes_key varchar(64),
        remark varchar(500),
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_work_corp_tenant_name ON chat_work_corp (tenant_id, corp_name)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_chat_work_corp_tenant_platform_id ON chat_work_corp (tenant_id, work_chat_corp_id)`);
    await queryRunner.query(`CREATE INDEX ix_chat_work_corp_tenant_created ON chat_work_corp (tenant_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_work_corp`);
    await queryRunner.query(`DROP TABLE chat_oauth_client`);
    await queryRunner.query(`DROP TABLE chat_tenant`);
  }
}
