import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { RUN_TRIGGERS, RunStatus, RunTrigger } from '../runs/run.entity';
import { MAX_REPEAT_COUNT } from '../runs/runs.dto';
import { CAMPAIGN_LINES, CAMPAIGN_STATUSES, CampaignEntity, CampaignLine, CampaignStatus } from './campaign.entity';
import type { CampaignResults, ScenarioResults } from './campaign-results';
import { effectiveBudget, ExplorationBudget } from './exploration-budget';

/** An ISO 8601 instant with its time zone (`Z` or `±hh:mm`), so it means the same on every server. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const INSTANT_MESSAGE = (field: string) => `${field} must be an ISO 8601 date-time, e.g. 2026-03-01T00:00:00Z`;
const ZONE_MESSAGE = (field: string) => `${field} must carry a time zone (Z or ±hh:mm), e.g. 2026-03-01T00:00:00Z`;

/** The campaign lifecycle as documented on every campaign route. */
export const CAMPAIGN_LIFECYCLE =
  'Lifecycle: `draft` → `running` (POST …/start creates one run per plan entry) → `completed` (set by the platform when every run of the campaign is terminal: completed, failed or cancelled) | `cancelled` (POST …/cancel, from `draft` or `running`; cancels its live runs). `completed` and `cancelled` are terminal.';

/** One scenario entry of a new campaign's plan. */
export class CampaignPlanEntryInputDto {
  @ApiProperty({ description: 'Scenario to run; its current version and name are snapshotted into the plan.', format: 'uuid' })
  @IsUUID()
  scenario_id: string;

  @ApiPropertyOptional({ description: 'Times each case is run.', default: 1, minimum: 1, maximum: MAX_REPEAT_COUNT })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_REPEAT_COUNT)
  repeat_count?: number;

  @ApiPropertyOptional({ description: 'Cases in flight at once for this entry\'s run; the target\'s max_concurrency still caps it.', default: 4, minimum: 1, maximum: 100 })
  @IsOptional() @IsInt() @Min(1) @Max(100)
  concurrency?: number;
}

/** A campaign's exploration budget override: each field set replaces the platform default separately (rule 4). */
export class BudgetOverrideDto {
  @ApiPropertyOptional({ description: 'Exploration sessions the campaign may open inside its window.', minimum: 0, example: 5 })
  @IsOptional() @IsInt() @Min(0)
  sessions_per_window?: number;

  @ApiPropertyOptional({ description: 'Virtual-user turns per exploration session (a turn counts once delivered).', minimum: 0, example: 8 })
  @IsOptional() @IsInt() @Min(0)
  turns_per_session?: number;

  @ApiPropertyOptional({ description: 'Least time between two session starts of the campaign, ms.', minimum: 0, example: 30000 })
  @IsOptional() @IsInt() @Min(0)
  min_session_interval_ms?: number;
}

/** Body of `POST /api/campaigns` (evaluation-platform.md, Resources: Campaign; issue 4, Campaigns). */
export class CreateCampaignDto {
  @ApiProperty({ description: 'Display name.', maxLength: 200, example: 'Refund bot — March cycle' })
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'Free text.', maxLength: 5000 })
  @IsOptional() @IsString() @MaxLength(5000)
  description?: string;

  @ApiProperty({ description: 'The one target every run of the campaign calls (404 when unknown).', format: 'uuid' })
  @IsUUID()
  target_id: string;

  @ApiProperty({ description: '`production` is the formal line (cycle comparison after analysis, patrol); `accelerated` is the fast line where exploration is manual only.', enum: CAMPAIGN_LINES })
  @IsIn(CAMPAIGN_LINES)
  line: CampaignLine;

  @ApiProperty({ description: 'Start of the service-cycle window (ISO 8601 with time zone).', format: 'date-time', example: '2026-03-01T00:00:00Z' })
  @IsISO8601({ strict: true }, { message: INSTANT_MESSAGE('window_start') }) @Matches(INSTANT, { message: ZONE_MESSAGE('window_start') })
  window_start: string;

  @ApiProperty({ description: 'End of the service-cycle window (ISO 8601 with time zone); must be after window_start (400 otherwise).', format: 'date-time', example: '2026-04-01T00:00:00Z' })
  @IsISO8601({ strict: true }, { message: INSTANT_MESSAGE('window_end') }) @Matches(INSTANT, { message: ZONE_MESSAGE('window_end') })
  window_end: string;

  @ApiProperty({
    description: 'The static plan: scenario entries, 1..EVAL_CAMPAIGN_MAX_PLAN_ENTRIES (default 50; more → 400). Each scenario\'s current version is pinned (404 for an unknown scenario); the plan fingerprint is computed from the scenario ids and versions.',
    type: [CampaignPlanEntryInputDto],
  })
  @IsArray() @ArrayMinSize(1, { message: 'plan must have at least one scenario entry' }) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CampaignPlanEntryInputDto)
  plan: CampaignPlanEntryInputDto[];

  @ApiPropertyOptional({
    description: 'Exploration seed personas. The seed set is seed personas × seed goals: send both non-empty, or neither (empty lists = null = opted out of exploration, rule 3); one without the other → 400. Entries are trimmed, blanks and repeats dropped; at most EVAL_CAMPAIGN_MAX_SEEDS (default 100).',
    type: [String],
    example: ['impatient customer', 'first-time buyer'],
  })
  @IsOptional() @IsArray() @IsString({ each: true }) @MaxLength(500, { each: true })
  seed_personas?: string[];

  @ApiPropertyOptional({ description: 'Exploration seed goals (see seed_personas).', type: [String], example: ['get a refund', 'change the delivery address'] })
  @IsOptional() @IsArray() @IsString({ each: true }) @MaxLength(500, { each: true })
  seed_goals?: string[];

  @ApiPropertyOptional({ description: 'Override of the platform\'s default exploration budget, field by field (rule 4).', type: BudgetOverrideDto })
  @IsOptional() @ValidateNested() @Type(() => BudgetOverrideDto)
  budget_override?: BudgetOverrideDto;

  @ApiPropertyOptional({ description: 'Model configuration for the campaign analysis; 400 when it does not exist. Omit to use the analysis default at analysis time.', format: 'uuid' })
  @IsOptional() @IsUUID()
  analysis_model_config_id?: string;
}

/** Body of `POST /api/campaigns/{id}/start` (optional). */
export class StartCampaignDto {
  @ApiPropertyOptional({ description: 'Recorded as `triggered_by` on every run the start creates.', enum: RUN_TRIGGERS, default: 'manual' })
  @IsOptional() @IsIn(RUN_TRIGGERS)
  triggered_by?: RunTrigger;
}

/** Sort fields of `GET /api/campaigns`: field → entity property; used by the query's sort and the service's toOrder. */
export const CAMPAIGN_SORT_FIELDS = { createdAt: 'campaign.createdAt', windowStart: 'campaign.windowStart', name: 'campaign.name' } as const;

/** Query of `GET /api/campaigns`. */
export class CampaignQueryDto extends PageBoundsQueryDto {
  @SortParam(CAMPAIGN_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only campaigns in this status.', enum: CAMPAIGN_STATUSES })
  @IsOptional() @IsIn(CAMPAIGN_STATUSES)
  status?: CampaignStatus;

  @ApiPropertyOptional({ description: 'Only campaigns of this line.', enum: CAMPAIGN_LINES })
  @IsOptional() @IsIn(CAMPAIGN_LINES)
  line?: CampaignLine;

  @ApiPropertyOptional({ description: 'Only campaigns against this target.', format: 'uuid' })
  @IsOptional() @IsUUID()
  target_id?: string;

  @ApiPropertyOptional({ description: 'Only campaigns whose window contains this instant: window_start ≤ active_at < window_end.', format: 'date-time' })
  @IsOptional() @IsISO8601({ strict: true }, { message: INSTANT_MESSAGE('active_at') }) @Matches(INSTANT, { message: ZONE_MESSAGE('active_at') })
  active_at?: string;

  @ApiPropertyOptional({ description: 'Only campaigns whose window overlaps [window_from, window_to): window_end > window_from. Alone, or with window_to.', format: 'date-time' })
  @IsOptional() @IsISO8601({ strict: true }, { message: INSTANT_MESSAGE('window_from') }) @Matches(INSTANT, { message: ZONE_MESSAGE('window_from') })
  window_from?: string;

  @ApiPropertyOptional({ description: 'Only campaigns whose window overlaps [window_from, window_to): window_start < window_to. Must be after window_from when both are given (400).', format: 'date-time' })
  @IsOptional() @IsISO8601({ strict: true }, { message: INSTANT_MESSAGE('window_to') }) @Matches(INSTANT, { message: ZONE_MESSAGE('window_to') })
  window_to?: string;
}

/** One entry of a campaign's plan as returned. */
export class CampaignPlanEntryDto {
  @ApiProperty({ description: 'Scenario id.', format: 'uuid' }) scenario_id: string;
  @ApiProperty({ description: 'Scenario version pinned when the campaign was created.' }) scenario_version: number;
  @ApiProperty({ description: 'The version as shown: `v<n>`.', example: 'v3' }) version_label: string;
  @ApiProperty({ description: 'Scenario name when the campaign was created.' }) scenario_name: string;
  @ApiProperty({ description: 'Times each case is run.' }) repeat_count: number;
  @ApiProperty({ description: 'Requested concurrency of the entry\'s run.' }) concurrency: number;
}

/** An exploration budget as returned (the platform defaults merged with the campaign's override). */
export class ExplorationBudgetDto {
  @ApiProperty({ description: 'Exploration sessions the campaign may open inside its window.' }) sessions_per_window: number;
  @ApiProperty({ description: 'Virtual-user turns per session.' }) turns_per_session: number;
  @ApiProperty({ description: 'Least time between two session starts, ms.' }) min_session_interval_ms: number;
}

/** How many runs of the campaign are in each status. */
export class CampaignRunCountsDto {
  @ApiProperty({ description: 'All runs of the campaign.' }) total: number;
  @ApiProperty() queued: number;
  @ApiProperty() running: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
}

/** A campaign as returned. */
export class CampaignDto {
  @ApiProperty({ description: 'Campaign id.', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Display name.' }) name: string;
  @ApiProperty({ description: 'Free text.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Target id.', format: 'uuid' }) target_id: string;
  @ApiProperty({ description: 'Target name when the campaign was created.' }) target_name: string;
  @ApiProperty({ description: 'Line.', enum: CAMPAIGN_LINES }) line: CampaignLine;
  @ApiProperty({ description: CAMPAIGN_LIFECYCLE, enum: CAMPAIGN_STATUSES }) status: CampaignStatus;
  @ApiProperty({ description: 'Start of the service-cycle window (ISO 8601).', format: 'date-time' }) window_start: string;
  @ApiProperty({ description: 'End of the service-cycle window (ISO 8601).', format: 'date-time' }) window_end: string;
  @ApiProperty({ description: 'The static plan, in the order given.', type: [CampaignPlanEntryDto] }) plan: CampaignPlanEntryDto[];
  @ApiProperty({ description: 'SHA-256 (hex) of the normalised plan: scenario ids with their versions, in a canonical order; campaigns with the same fingerprint are compared cycle to cycle.', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }) plan_fingerprint: string;
  @ApiProperty({ description: 'Seed personas; null = opted out of exploration.', nullable: true, type: [String] }) seed_personas: string[] | null;
  @ApiProperty({ description: 'Seed goals; null = opted out of exploration.', nullable: true, type: [String] }) seed_goals: string[] | null;
  @ApiProperty({ description: 'True when the campaign has no seed set (rule 3).' }) exploration_opted_out: boolean;
  @ApiProperty({ description: 'The override as given (only the fields set), or null.', nullable: true, type: BudgetOverrideDto }) budget_override: BudgetOverrideDto | null;
  @ApiProperty({ description: 'Platform defaults (EVAL_EXPLORATION_*) with each overridden field replaced (rule 4).', type: ExplorationBudgetDto }) effective_budget: ExplorationBudgetDto;
  @ApiProperty({ description: 'Model configuration for analysis; null = the analysis default.', nullable: true, type: String, format: 'uuid' }) analysis_model_config_id: string | null;
  @ApiProperty({ description: 'Runs of the campaign by status.', type: CampaignRunCountsDto }) run_counts: CampaignRunCountsDto;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) created_at: string;
  @ApiProperty({ description: 'Started (ISO 8601).', nullable: true, type: String, format: 'date-time' }) started_at: string | null;
  @ApiProperty({ description: 'Completed or cancelled (ISO 8601).', nullable: true, type: String, format: 'date-time' }) finished_at: string | null;
}

/** Per-scenario results (see campaign-results.ts). */
export class ScenarioResultsDto implements ScenarioResults {
  @ApiProperty({ description: 'Scenario id.', format: 'uuid' }) scenario_id: string;
  @ApiProperty({ description: 'Scenario name in the plan.' }) scenario_name: string;
  @ApiProperty({ description: 'Scenario version in the plan.' }) scenario_version: number;
  @ApiProperty({ description: 'Terminal runs counted.' }) runs: number;
  @ApiProperty({ description: 'Of them, runs that completed.' }) completed_runs: number;
  @ApiProperty({ description: 'Case results the runs should produce (cases × repeats); a case never executed still counts here.' }) total_cases: number;
  @ApiProperty({ description: 'Passed case results.' }) passed_cases: number;
  @ApiProperty({ description: 'Failed case results (a rule failed).' }) failed_cases: number;
  @ApiProperty({ description: 'Errored case results (the target failed or timed out).' }) errored_cases: number;
  @ApiProperty({ description: 'passed_cases / total_cases, 0..1 (0 without cases); a missing case is not a passing case.' }) pass_rate: number;
  @ApiProperty({ description: 'Median case latency, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: '95th percentile case latency, ms.', nullable: true, type: Number }) latency_p95_ms: number | null;
  @ApiProperty({ description: 'Distinct case ids that failed or errored in any counted run, sorted.', type: [String] }) failed_case_ids: string[];
}

/** The aggregation over a campaign's terminal runs (the campaign report and the patrol use the same). */
export class CampaignResultsDto implements CampaignResults {
  @ApiProperty({ description: 'Terminal runs counted.' }) runs: number;
  @ApiProperty({ description: 'Of them, runs that completed.' }) completed_runs: number;
  @ApiProperty({ description: 'Case results the runs should produce (cases × repeats).' }) total_cases: number;
  @ApiProperty({ description: 'Passed case results.' }) passed_cases: number;
  @ApiProperty({ description: 'Failed case results.' }) failed_cases: number;
  @ApiProperty({ description: 'Errored case results.' }) errored_cases: number;
  @ApiProperty({ description: 'passed_cases / total_cases, 0..1; a missing case is not a passing case.' }) pass_rate: number;
  @ApiProperty({ description: 'Median case latency over all counted runs, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: '95th percentile case latency, ms.', nullable: true, type: Number }) latency_p95_ms: number | null;
  @ApiProperty({ description: 'One entry per plan scenario (also without runs yet), in plan order.', type: [ScenarioResultsDto] }) scenarios: ScenarioResultsDto[];
  @ApiProperty({ description: 'The runs aggregated.', type: [String] }) run_ids: string[];
}

/** `GET /api/campaigns/{id}/report`: the campaign and the aggregation of its terminal runs. */
export class CampaignReportDto {
  @ApiProperty({ type: CampaignDto }) campaign: CampaignDto;
  @ApiProperty({ description: 'Aggregation over the campaign\'s terminal runs; live runs are left out until they end.', type: CampaignResultsDto }) results: CampaignResultsDto;
}

/** Runs by status, as `run_counts` shows them. */
export type RunCounts = Partial<Record<RunStatus, number>>;

/** The budget with the API's field names. */
export function toBudgetDto(budget: ExplorationBudget): ExplorationBudgetDto {
  return { sessions_per_window: budget.sessionsPerWindow, turns_per_session: budget.turnsPerSession, min_session_interval_ms: budget.minSessionIntervalMs };
}

/**
 * Maps a campaign row to its response.
 * @param defaults the platform's default exploration budget (config.evaluation.explorationBudget)
 * @param counts the campaign's runs by status (missing statuses are 0)
 */
export function toCampaignDto(row: CampaignEntity, defaults: ExplorationBudget, counts: RunCounts = {}): CampaignDto {
  const count = (status: RunStatus) => counts[status] ?? 0;
  const override = row.budgetOverride;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    target_id: row.targetId,
    target_name: row.targetName,
    line: row.line,
    status: row.status,
    window_start: row.windowStart.toISOString(),
    window_end: row.windowEnd.toISOString(),
    plan: row.plan.map((entry) => ({
      scenario_id: entry.scenarioId,
      scenario_version: entry.scenarioVersion,
      version_label: `v${entry.scenarioVersion}`,
      scenario_name: entry.scenarioName,
      repeat_count: entry.repeatCount,
      concurrency: entry.concurrency,
    })),
    plan_fingerprint: row.planFingerprint,
    seed_personas: row.seedPersonas,
    seed_goals: row.seedGoals,
    exploration_opted_out: row.seedPersonas === null || row.seedGoals === null,
    budget_override: override
      ? Object.fromEntries(
          Object.entries({ sessions_per_window: override.sessionsPerWindow, turns_per_session: override.turnsPerSession, min_session_interval_ms: override.minSessionIntervalMs }).filter(
            ([, value]) => value !== undefined && value !== null,
          ),
        )
      : null,
    effective_budget: toBudgetDto(effectiveBudget(defaults, override)),
    analysis_model_config_id: row.analysisModelConfigId,
    run_counts: {
      total: count('queued') + count('running') + count('completed') + count('failed') + count('cancelled'),
      queued: count('queued'),
      running: count('running'),
      completed: count('completed'),
      failed: count('failed'),
      cancelled: count('cancelled'),
    },
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
