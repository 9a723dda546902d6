import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Third-party secrets are sealed at rest (issue 19, item 6; src/common/crypto/secret-sealer.ts): a sealed value is
 * `v1:<kid>:<iv>:<tag>:<ciphertext>`, about 110 characters for a 43-character callback key, so the two callback
 * columns that were varchar(64) become text. The other sealed columns already are text (or jsonb). Existing plain
 * values are sealed at start-up, not here: a migration has no access to the key (src/database/sealed-columns.ts).
 */
export class SealedSecretColumns1795500500000 implements MigrationInterface {
  name = 'SealedSecretColumns1795500500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat_work_corp ALTER COLUMN callback_token TYPE text, ALTER COLUMN callback_aes_key TYPE text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Only valid once the values are opened again (plain values fit 64 characters).
    await queryRunner.query(`ALTER TABLE chat_work_corp ALTER COLUMN callback_token TYPE varchar(64), ALTER COLUMN callback_aes_key TYPE varchar(64)`);
  }
}
