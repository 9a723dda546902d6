import { ApiProperty } from '@nestjs/swagger';
import type { CampaignResults, ScenarioResults } from '../campaigns/campaign-results';
import { EXPLORATION_OUTCOMES, ExplorationOutcome } from './experience-record';
import { ExperienceRecordDto } from './exploration.dto';
import { EXPLORATION_MODES, ExplorationMode } from './exploration-session.entity';
import type { BudgetLimit } from './session-budget';

/** Per-scenario figures of the new runs (same aggregation as the campaign report). */
export class PatrolScenarioResultsDto implements ScenarioResults {
  @ApiProperty({ description: 'Scenario id.', format: 'uuid' }) scenario_id: string;
  @ApiProperty({ description: 'Scenario name in the plan.' }) scenario_name: string;
  @ApiProperty({ description: 'Scenario version in the plan.' }) scenario_version: number;
  @ApiProperty({ description: 'New terminal runs of this scenario.' }) runs: number;
  @ApiProperty({ description: 'Of them `completed`.' }) completed_runs: number;
  @ApiProperty({ description: 'Case results expected (cases × repeats).' }) total_cases: number;
  @ApiProperty({ description: 'Passed case results.' }) passed_cases: number;
  @ApiProperty({ description: 'Failed case results.' }) failed_cases: number;
  @ApiProperty({ description: 'Errored case results.' }) errored_cases: number;
  @ApiProperty({ description: 'passed_cases / total_cases, 0..1 (a case never executed counts as not passed).' }) pass_rate: number;
  @ApiProperty({ description: 'Median case latency, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: '95th percentile case latency, ms.', nullable: true, type: Number }) latency_p95_ms: number | null;
  @ApiProperty({ description: 'Case ids that failed or errored, sorted.', type: [String] }) failed_case_ids: string[];
}

/** The new results of a campaign since its watermark. */
export class PatrolResultsDto implements CampaignResults {
  @ApiProperty({ description: 'New terminal runs.' }) runs: number;
  @ApiProperty({ description: 'Of them `completed`.' }) completed_runs: number;
  @ApiProperty({ description: 'Case results expected.' }) total_cases: number;
  @ApiProperty({ description: 'Passed case results.' }) passed_cases: number;
  @ApiProperty({ description: 'Failed case results.' }) failed_cases: number;
  @ApiProperty({ description: 'Errored case results.' }) errored_cases: number;
  @ApiProperty({ description: 'passed_cases / total_cases, 0..1.' }) pass_rate: number;
  @ApiProperty({ description: 'Median case latency, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: '95th percentile case latency, ms.', nullable: true, type: Number }) latency_p95_ms: number | null;
  @ApiProperty({ description: 'One per plan scenario, in plan order (zeros when a scenario has no new run).', type: [PatrolScenarioResultsDto] }) scenarios: PatrolScenarioResultsDto[];
  @ApiProperty({ description: 'The runs reported by this call: each terminal run is reported by exactly one patrol call.', type: [String] }) run_ids: string[];
}

/** An exploration session closed since the previous patrol. */
export class PatrolSessionDto {
  @ApiProperty({ description: 'Session id.', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Persona.' }) persona: string;
  @ApiProperty({ description: 'Goal.' }) goal: string;
  @ApiProperty({ description: 'Mode.', enum: EXPLORATION_MODES }) mode: ExplorationMode;
  @ApiProperty({ description: 'Turns used.' }) turns_used: number;
  @ApiProperty({ description: 'Outcome from the experience record.', enum: EXPLORATION_OUTCOMES }) outcome: ExplorationOutcome;
  @ApiProperty({ description: 'Started (ISO 8601).', format: 'date-time' }) started_at: string;
  @ApiProperty({ description: 'Closed (ISO 8601).', format: 'date-time' }) closed_at: string;
  @ApiProperty({ description: 'The stored experience record.', type: ExperienceRecordDto }) experience: ExperienceRecordDto;
}

/** What is left of the campaign's exploration budget. */
export class PatrolBudgetDto {
  @ApiProperty({ description: 'Effective sessions_per_window (default with the campaign\'s override).' }) sessions_per_window: number;
  @ApiProperty({ description: 'Sessions started inside the window.' }) sessions_used: number;
  @ApiProperty({ description: 'Sessions that may still start in the window.' }) sessions_left: number;
  @ApiProperty({ description: 'Effective turns_per_session.' }) turns_per_session: number;
  @ApiProperty({ description: 'Effective min_session_interval_ms.' }) min_session_interval_ms: number;
  @ApiProperty({ description: 'When the next session may start (now when it may start at once); null when none may in this window.', nullable: true, type: String, format: 'date-time' })
  next_session_allowed_at: string | null;
  @ApiProperty({ description: 'ms until then (0 = now); null when none may in this window.', nullable: true, type: Number }) next_session_in_ms: number | null;
  @ApiProperty({ description: 'The limit that blocks a session now, null when one may start.', nullable: true, enum: ['sessions_per_window', 'min_session_interval', 'outside_window'] })
  blocked_by: Exclude<BudgetLimit, 'turns_per_session'> | null;
}

/** The campaign's watermark before and after this call. */
export class PatrolWatermarkDto {
  @ApiProperty({ description: 'Patrol calls that reported this campaign, this one included.' }) sequence: number;
  @ApiProperty({ description: 'The sequence before this call (0 = first patrol of the campaign).' }) previous_sequence: number;
  @ApiProperty({ description: 'When the previous patrol call reported the campaign; null for the first.', nullable: true, type: String, format: 'date-time' }) previous_patrolled_at: string | null;
}

/** One patrolled campaign. */
export class PatrolCampaignDto {
  @ApiProperty({ description: 'Campaign id.', format: 'uuid' }) campaign_id: string;
  @ApiProperty({ description: 'Campaign name.' }) name: string;
  @ApiProperty({ description: 'Target id.', format: 'uuid' }) target_id: string;
  @ApiProperty({ description: 'Target name.' }) target_name: string;
  @ApiProperty({ description: 'Window start (ISO 8601).', format: 'date-time' }) window_start: string;
  @ApiProperty({ description: 'Window end (ISO 8601).', format: 'date-time' }) window_end: string;
  @ApiProperty({ description: 'The watermark this call advanced.', type: PatrolWatermarkDto }) watermark: PatrolWatermarkDto;
  @ApiProperty({ description: 'Aggregation of the runs that became terminal since the previous patrol (only those).', type: PatrolResultsDto }) new_results: PatrolResultsDto;
  @ApiProperty({ description: 'Exploration sessions closed since the previous patrol.', type: [PatrolSessionDto] }) new_sessions: PatrolSessionDto[];
  @ApiProperty({ description: 'Remaining exploration budget now.', type: PatrolBudgetDto }) budget: PatrolBudgetDto;
}

/** Answer of `GET /api/exploration/patrol`. */
export class PatrolDto {
  @ApiProperty({ description: 'When this call ran (ISO 8601, database clock).', format: 'date-time' }) patrolled_at: string;
  @ApiProperty({ description: 'Every running production-line campaign with a seed set, by id.', type: [PatrolCampaignDto] }) campaigns: PatrolCampaignDto[];
}
