import { MigrationInterface, QueryRunner } from 'typeorm';

/** Evaluation campaigns: a target, a window, a fingerprinted static plan, exploration seeds and budget override. */
export class EvaluationCampaigns1795310000000 implements MigrationInterface {
  name = 'EvaluationCampaigns1795310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_campaign (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        description text,
        target_id uuid NOT NULL,
        target_name varchar(200) NOT NULL,
        line varchar(16) NOT NULL,
        status varchar(16) NOT NULL,
        window_start timestamptz NOT NULL,
        window_end timestamptz NOT NULL,
        plan jsonb NOT NULL,
        plan_fingerprint char(64) NOT NULL,
        seed_personas jsonb,
        seed_goals jsonb,
        budget_override jsonb,
        analysis_model_config_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_created ON eval_campaign (created_at, id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_status_created ON eval_campaign (status, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_target_created ON eval_campaign (target_id, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_line_status ON eval_campaign (line, status)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_fingerprint_created ON eval_campaign (plan_fingerprint, created_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_window ON eval_campaign (window_start, window_end)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_campaign`);
  }
}
