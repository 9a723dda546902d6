import { MigrationInterface, QueryRunner } from 'typeorm';

/** Exploration sessions and their messages, and the patrol's run marks and per-campaign watermarks. */
export class EvaluationExploration1795310900000 implements MigrationInterface {
  name = 'EvaluationExploration1795310900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_exploration_session (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        campaign_id uuid NOT NULL,
        persona text NOT NULL,
        goal text NOT NULL,
        mode varchar(16) NOT NULL,
        model_config_id uuid,
        status varchar(16) NOT NULL,
        turns_used integer NOT NULL,
        stop_marker varchar(16),
        started_at timestamptz NOT NULL,
        closed_at timestamptz,
        experience jsonb,
        patrol_sequence bigint
      )`);
    // Budget checks: sessions of a campaign started inside its window, and its latest start.
    await queryRunner.query(`CREATE INDEX ix_eval_exploration_session_campaign_started ON eval_exploration_session (campaign_id, started_at)`);
    await queryRunner.query(`CREATE INDEX ix_eval_exploration_session_campaign_patrol ON eval_exploration_session (campaign_id, patrol_sequence)`);

    await queryRunner.query(`
      CREATE TABLE eval_exploration_message (
        id bigserial PRIMARY KEY,
        session_id uuid NOT NULL,
        turn_index integer NOT NULL,
        message text NOT NULL,
        author varchar(16) NOT NULL,
        reply text,
        latency_ms integer,
        error text,
        delivered_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX ux_eval_exploration_message_session_turn ON eval_exploration_message (session_id, turn_index)`);

    await queryRunner.query(`
      CREATE TABLE eval_patrol_run_mark (
        run_id uuid PRIMARY KEY,
        campaign_id uuid NOT NULL,
        sequence bigint NOT NULL,
        marked_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX ix_eval_patrol_run_mark_campaign_sequence ON eval_patrol_run_mark (campaign_id, sequence)`);

    await queryRunner.query(`
      CREATE TABLE eval_patrol_watermark (
        campaign_id uuid PRIMARY KEY,
        sequence bigint NOT NULL,
        patrolled_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_patrol_watermark`);
    await queryRunner.query(`DROP TABLE eval_patrol_run_mark`);
    await queryRunner.query(`DROP TABLE eval_exploration_message`);
    await queryRunner.query(`DROP TABLE eval_exploration_session`);
  }
}
