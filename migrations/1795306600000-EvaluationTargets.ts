import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation targets: the agents under test and their channel settings (secrets in their own column). */
export class EvaluationTargets1795306600000 implements MigrationInterface {
  name = 'EvaluationTargets1795306600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_target (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        description text,
        kind varchar(32) NOT NULL,
        channel jsonb NOT NULL,
        secrets jsonb NOT NULL,
        max_concurrency integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_target_created ON eval_target (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_target`);
  }
}
