import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import type { RunSummary } from '../rules/run-summary';
import { RUN_STATUSES, RUN_TRIGGERS, RunEntity, RunStatus, RunTrigger } from './run.entity';

/** Largest repeat count of one run. */
export const MAX_REPEAT_COUNT = 20;

/** Body of `POST /api/runs` (evaluation-platform.md, Endpoints). */
export class CreateRunDto {
  @ApiProperty({ description: 'Scenario to run (its current version and cases are snapshotted).' })
  @IsUUID()
  scenario_id: string;

  @ApiProperty({ description: 'Target to run against.' })
  @IsUUID()
  target_id: string;

  @ApiPropertyOptional({ description: 'Cases in flight at once; capped by the target\'s max_concurrency.', default: 4, minimum: 1, maximum: 100 })
  @IsOptional() @IsInt() @Min(1) @Max(100)
  concurrency?: number;

  @ApiPropertyOptional({ description: 'Times each case is run.', default: 1, minimum: 1, maximum: MAX_REPEAT_COUNT })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_REPEAT_COUNT)
  repeat_count?: number;

  @ApiPropertyOptional({ description: 'Who triggered the run; set by the caller\'s client.', enum: RUN_TRIGGERS, default: 'manual' })
  @IsOptional() @IsIn(RUN_TRIGGERS)
  triggered_by?: RunTrigger;

  // No campaign_id: a run joins a campaign only when POST /api/campaigns/{id}/start creates it (a body that sends
  // campaign_id is refused with 400 by the whitelist), so no caller can attach a run to a campaign it is not part of.
}

/** Sort fields of `GET /api/runs`: field → entity property; used by the query's sort and the service's toOrder. */
export const RUN_SORT_FIELDS = { createdAt: 'run.createdAt' } as const;

/** Query of `GET /api/runs`. */
export class RunQueryDto extends PageBoundsQueryDto {
  @SortParam(RUN_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only runs in this status.', enum: RUN_STATUSES })
  @IsOptional() @IsIn(RUN_STATUSES)
  status?: RunStatus;

  @ApiPropertyOptional({ description: 'Only runs of this scenario.' })
  @IsOptional() @IsUUID()
  scenario_id?: string;

  @ApiPropertyOptional({ description: 'Only runs against this target.' })
  @IsOptional() @IsUUID()
  target_id?: string;

  @ApiPropertyOptional({ description: 'Only runs of this campaign.' })
  @IsOptional() @IsUUID()
  campaign_id?: string;
}

/** The summary object of a finished run. */
export class RunSummaryDto implements RunSummary {
  @ApiProperty({ description: 'Case results (cases × repeats).' }) total_cases: number;
  @ApiProperty({ description: 'Passed case results.' }) passed_cases: number;
  @ApiProperty({ description: 'Failed case results (a rule failed).' }) failed_cases: number;
  @ApiProperty({ description: 'Errored case results (the target failed or timed out).' }) errored_cases: number;
  @ApiProperty({ description: 'Passed rules.' }) passed_rules: number;
  @ApiProperty({ description: 'All rules evaluated.' }) total_rules: number;
  @ApiProperty({ description: 'passed_cases / total_cases, 0..1.' }) pass_rate: number;
  @ApiProperty({ description: 'Median reply latency, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: '95th percentile reply latency, ms.', nullable: true, type: Number }) latency_p95_ms: number | null;
  @ApiProperty({ description: 'Run wall time, ms.' }) duration_ms: number;
}

/** A run as returned (also what pollers read). */
export class RunDto {
  @ApiProperty({ description: 'Run id (UUID).' }) id: string;
  @ApiProperty({ description: 'queued → running → completed | failed; cancelled on request.', enum: RUN_STATUSES }) status: RunStatus;
  @ApiProperty({ description: 'Scenario id (null once the scenario is deleted).', nullable: true, type: String }) scenario_id: string | null;
  @ApiProperty({ description: 'Scenario name when the run was created.' }) scenario_name: string;
  @ApiProperty({ description: 'Scenario version the run used.' }) scenario_version: number;
  @ApiProperty({ description: 'The version as shown: `v<n>`.', example: 'v3' }) version_label: string;
  @ApiProperty({ description: 'Target id.', nullable: true, type: String }) target_id: string | null;
  @ApiProperty({ description: 'Target name when the run was created.' }) target_name: string;
  @ApiProperty({ description: 'Who triggered it.', enum: RUN_TRIGGERS }) triggered_by: RunTrigger;
  @ApiProperty({ description: 'Campaign, if any.', nullable: true, type: String }) campaign_id: string | null;
  @ApiProperty({ description: 'Requested concurrency.' }) concurrency: number;
  @ApiProperty({ description: 'Repeats per case.' }) repeat_count: number;
  @ApiProperty({ description: 'Cases in the snapshot.' }) case_count: number;
  @ApiProperty({ description: 'Summary, once finished.', nullable: true, type: RunSummaryDto }) summary: RunSummaryDto | null;
  @ApiProperty({ description: 'Why the run failed.', nullable: true, type: String }) error: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Started (ISO 8601).', nullable: true, type: String }) started_at: string | null;
  @ApiProperty({ description: 'Finished (ISO 8601).', nullable: true, type: String }) finished_at: string | null;
}

/** Maps a run row to its response. */
export function toRunDto(run: RunEntity): RunDto {
  return {
    id: run.id,
    status: run.status,
    scenario_id: run.scenarioId,
    scenario_name: run.scenarioName,
    scenario_version: run.scenarioVersion,
    version_label: `v${run.scenarioVersion}`,
    target_id: run.targetId,
    target_name: run.targetName,
    triggered_by: run.triggeredBy,
    campaign_id: run.campaignId,
    concurrency: run.concurrency,
    repeat_count: run.repeatCount,
    case_count: run.caseCount,
    summary: run.summary,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}
