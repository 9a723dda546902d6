import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `eval_model_config.supports_response_format` (issue 24 item 1): the llm-rubric judge sends
 * `response_format: json_object` only to models marked as taking it. Existing configurations get false: the judge
 * sent it to every model before, and a model that refused it failed every llm-rubric rule.
 */
export class ModelConfigResponseFormat1795500700000 implements MigrationInterface {
  name = 'ModelConfigResponseFormat1795500700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE eval_model_config ADD COLUMN supports_response_format boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE eval_model_config DROP COLUMN supports_response_format`);
  }
}
