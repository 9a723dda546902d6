import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { CampaignResultsQuery } from '../campaigns/campaign-results';
import { CampaignEntity } from '../campaigns/campaign.entity';
import { effectiveBudget } from '../campaigns/exploration-budget';
import { LIVE_RUN_STATUSES } from '../runs/run.entity';
import type { ExperienceRecord } from './experience-record';
import type { ExplorationMode } from './exploration-session.entity';
import { PatrolBudgetDto, PatrolCampaignDto, PatrolDto, PatrolSessionDto } from './patrol.dto';
import { remainingBudget } from './session-budget';

/**
 * The patrol (evaluation-platform.md, Endpoints: GET /api/exploration/patrol; Patrol rules 1–4): what resident agents
 * poll to learn what changed in the campaigns they watch, without keeping state of their own.
 *
 * Increments are exact, not time-based: a terminal run is reported by the patrol call that inserts its mark
 * (eval_patrol_run_mark, primary key run_id), and a closed session by the call that sets its `patrol_sequence`.
 * A run that commits late with an early `finished_at` is still reported (by the next call), never lost; and no run or
 * session is reported twice, even by concurrent calls:
 * - everything happens in one transaction that first locks the campaigns (`FOR UPDATE`, in id order, so concurrent
 *   patrols and session creations queue instead of deadlocking);
 * - a second call waiting on those locks reads, once they are released, the marks the first committed (READ COMMITTED
 *   takes a new snapshot per statement), so it finds nothing new; the run_id primary key and the `patrol_sequence IS
 *   NULL` condition would stop a double report even without the lock.
 * Each call advances every reported campaign's watermark (eval_patrol_watermark: sequence + time).
 */
@Injectable()
export class PatrolService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly results: CampaignResultsQuery,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Runs one patrol: every running production-line campaign with a seed set, by id, with its increments and budget. */
  async patrol(): Promise<PatrolDto> {
    return this.dataSource.transaction(async (manager) => {
      const campaigns = await manager
        .createQueryBuilder(CampaignEntity, 'campaign')
        .where("campaign.status = 'running'")
        .andWhere("campaign.line = 'production'")
        .andWhere("campaign.seedPersonas IS NOT NULL AND campaign.seedPersonas <> '[]'::jsonb")
        .andWhere("campaign.seedGoals IS NOT NULL AND campaign.seedGoals <> '[]'::jsonb")
        .orderBy('campaign.id', 'ASC')
        .setLock('pessimistic_write')
        .getMany();
      const [{ now }]: { now: Date }[] = await manager.query('SELECT clock_timestamp() AS now');
      const reports: PatrolCampaignDto[] = [];
      for (const campaign of campaigns) reports.push(await this.patrolCampaign(manager, campaign, now));
      return { patrolled_at: now.toISOString(), campaigns: reports };
    });
  }

  /** Advances one campaign's watermark and collects what is new since the previous call. Runs under its row lock. */
  private async patrolCampaign(manager: EntityManager, campaign: CampaignEntity, now: Date): Promise<PatrolCampaignDto> {
    const previous: { sequence: string; patrolled_at: Date }[] = await manager.query('SELECT sequence, patrolled_at FROM eval_patrol_watermark WHERE campaign_id = $1', [campaign.id]);
    const [{ sequence }]: { sequence: string }[] = await manager.query(
      `INSERT INTO eval_patrol_watermark (campaign_id, sequence, patrolled_at) VALUES ($1, 1, $2)
       ON CONFLICT (campaign_id) DO UPDATE SET sequence = eval_patrol_watermark.sequence + 1, patrolled_at = EXCLUDED.patrolled_at
       RETURNING sequence`,
      [campaign.id, now],
    );

    const marked: { run_id: string }[] = await manager.query(
      `INSERT INTO eval_patrol_run_mark (run_id, campaign_id, sequence, marked_at)
       SELECT run.id, run.campaign_id, $2, $3
         FROM eval_run run
        WHERE run.campaign_id = $1 AND run.status <> ALL($4::varchar[])
          AND NOT EXISTS (SELECT 1 FROM eval_patrol_run_mark mark WHERE mark.run_id = run.id)
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id`,
      [campaign.id, sequence, now, LIVE_RUN_STATUSES],
    );
    const newResults = await this.results.aggregate(campaign.id, { runIds: marked.map((row) => row.run_id), manager });

    const closed: { id: string; persona: string; goal: string; mode: ExplorationMode; turns_used: number; started_at: Date; closed_at: Date; experience: ExperienceRecord }[] =
      await manager.query(
        // Wrapped in a CTE so the driver returns the rows (a bare UPDATE answers [rows, count]).
        `WITH reported AS (
           UPDATE eval_exploration_session SET patrol_sequence = $2
            WHERE campaign_id = $1 AND status = 'closed' AND patrol_sequence IS NULL
            RETURNING id, persona, goal, mode, turns_used, started_at, closed_at, experience
         )
         SELECT * FROM reported ORDER BY closed_at, id`,
        [campaign.id, sequence],
      );
    const newSessions: PatrolSessionDto[] = closed.map((row) => ({
      id: row.id,
      persona: row.persona,
      goal: row.goal,
      mode: row.mode,
      turns_used: row.turns_used,
      outcome: row.experience.outcome,
      started_at: row.started_at.toISOString(),
      closed_at: row.closed_at.toISOString(),
      experience: row.experience,
    }));

    const [usage]: { in_window: string; last_started: Date | null }[] = await manager.query(
      `SELECT count(*) FILTER (WHERE started_at >= $2 AND started_at < $3) AS in_window, max(started_at) AS last_started
         FROM eval_exploration_session WHERE campaign_id = $1`,
      [campaign.id, campaign.windowStart, campaign.windowEnd],
    );
    const remaining = remainingBudget({
      budget: effectiveBudget(this.config.evaluation.explorationBudget, campaign.budgetOverride),
      windowStart: campaign.windowStart,
      windowEnd: campaign.windowEnd,
      sessionsInWindow: Number(usage.in_window),
      lastSessionStartedAt: usage.last_started,
      now,
    });
    const budget: PatrolBudgetDto = {
      sessions_per_window: remaining.sessionsPerWindow,
      sessions_used: remaining.sessionsUsed,
      sessions_left: remaining.sessionsLeft,
      turns_per_session: remaining.turnsPerSession,
      min_session_interval_ms: remaining.minSessionIntervalMs,
      next_session_allowed_at: remaining.nextSessionAllowedAt?.toISOString() ?? null,
      next_session_in_ms: remaining.nextSessionInMs,
      blocked_by: remaining.blockedBy === 'turns_per_session' ? null : remaining.blockedBy,
    };

    return {
      campaign_id: campaign.id,
      name: campaign.name,
      target_id: campaign.targetId,
      target_name: campaign.targetName,
      window_start: campaign.windowStart.toISOString(),
      window_end: campaign.windowEnd.toISOString(),
      watermark: {
        sequence: Number(sequence),
        previous_sequence: previous[0] ? Number(previous[0].sequence) : 0,
        previous_patrolled_at: previous[0]?.patrolled_at.toISOString() ?? null,
      },
      new_results: newResults,
      new_sessions: newSessions,
      budget,
    };
  }
}
