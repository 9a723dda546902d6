import { MigrationInterface, QueryRunner } from 'typeorm';

/** Campaign analysis (one record per campaign, with its claim and heartbeat) and cycle comparison. */
export class EvaluationCampaignAnalysis1795310600000 implements MigrationInterface {
  name = 'EvaluationCampaignAnalysis1795310600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_campaign_analysis (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        campaign_id uuid NOT NULL,
        status varchar(16) NOT NULL,
        phase varchar(16) NOT NULL,
        generation integer NOT NULL,
        model_config jsonb NOT NULL,
        scenarios_total integer,
        diagnoses jsonb NOT NULL,
        results jsonb,
        report jsonb,
        removed_references jsonb,
        error text,
        attempts integer NOT NULL,
        model_calls integer NOT NULL,
        worker_id uuid,
        heartbeat_at timestamptz NOT NULL,
        requested_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_campaign_analysis_campaign ON eval_campaign_analysis (campaign_id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_campaign_analysis_status_heartbeat ON eval_campaign_analysis (status, heartbeat_at)`);
    await queryRunner.query(`
      CREATE TABLE eval_cycle_comparison (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        campaign_id uuid NOT NULL,
        baseline_campaign_id uuid,
        status varchar(16) NOT NULL,
        analysis_generation integer NOT NULL,
        metrics jsonb,
        problem_evolution jsonb,
        recommendation_tracking jsonb,
        trend varchar(16),
        trend_reason text,
        narration text,
        narration_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_cycle_comparison_campaign ON eval_cycle_comparison (campaign_id)`);
    await queryRunner.query(`CREATE INDEX ix_eval_cycle_comparison_baseline ON eval_cycle_comparison (baseline_campaign_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_cycle_comparison`);
    await queryRunner.query(`DROP TABLE eval_campaign_analysis`);
  }
}
