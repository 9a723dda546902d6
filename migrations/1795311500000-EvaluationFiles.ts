import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation file management: the category tree and the uploaded files' metadata (contents live in the file storage). */
export class EvaluationFiles1795311500000 implements MigrationInterface {
  name = 'EvaluationFiles1795311500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_file_category (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        name_key varchar(200) NOT NULL,
        parent_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_file_category_root_name ON eval_file_category (name_key) WHERE "parent_id" IS NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_file_category_sibling_name ON eval_file_category (parent_id, name_key) WHERE "parent_id" IS NOT NULL`);

    await queryRunner.query(`
      CREATE TABLE eval_file (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(255) NOT NULL,
        description text,
        size_bytes bigint NOT NULL,
        sha256 char(64) NOT NULL,
        content_type varchar(255) NOT NULL,
        category_id uuid,
        storage_key varchar(128) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_file_created ON eval_file (created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_file_category_created ON eval_file (category_id, created_at)`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_file_storage_key ON eval_file (storage_key)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_file`);
    await queryRunner.query(`DROP TABLE eval_file_category`);
  }
}
