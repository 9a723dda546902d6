import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROBLEM_SEVERITIES, RECOMMENDATION_PRIORITIES, ProblemSeverity, RecommendationPriority } from './analysis-report.schema';
import { ANALYSIS_PHASES, ANALYSIS_STATUSES, AnalysisPhase, AnalysisStatus, CampaignAnalysisEntity } from './campaign-analysis.entity';
import { TREND_RULE, TRENDS, Trend } from './cycle-comparison';
import { CYCLE_COMPARISON_STATUSES, CycleComparisonEntity, CycleComparisonStatus } from './cycle-comparison.entity';

/** The analysis lifecycle as documented on the analysis routes. */
export const ANALYSIS_LIFECYCLE =
  'A start request puts the campaign\'s one analysis record into `generating` (a restart updates the same record and clears the previous report and error); a durable job then diagnoses each plan scenario (phase 1, each given a sample of its failed or errored cases, at most EVAL_ANALYSIS_FAILURE_SAMPLE_CAP) and synthesises one structured report (phase 2) validated against the report schema; references to runs, scenarios or cases outside the campaign are removed before storage. An invalid model answer or a failed model call is retried up to EVAL_ANALYSIS_MAX_ATTEMPTS times, then the record ends `failed` with the reason. If the app stops during an analysis, the job resumes on the next start (skipping scenarios already diagnosed); an analysis whose worker stopped reporting for EVAL_ANALYSIS_STALE_MS is taken over, and after EVAL_ANALYSIS_MAX_RUNS worker runs it ends `failed` with the reason, so it never stays `generating`.';

/** The model configuration an analysis used (never its key). */
export class ModelConfigSnapshotDto {
  @ApiProperty({ description: 'Model configuration id.', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Its name.' }) name: string;
  @ApiProperty({ description: 'Provider protocol.', example: 'openai_compatible' }) provider: string;
  @ApiProperty({ description: 'Base URL of the API.' }) base_url: string;
  @ApiProperty({ description: 'Model name.' }) model: string;
  @ApiProperty({ description: 'Model type.', example: 'chat' }) type: string;
  @ApiProperty({ description: 'Purpose.', example: 'analysis' }) purpose: string;
}

/** One finding of a scenario diagnosis. */
export class DiagnosisFindingDto {
  @ApiProperty({ description: 'Short name of the failure pattern.' }) title: string;
  @ApiProperty({ description: 'How serious.', enum: PROBLEM_SEVERITIES }) severity: ProblemSeverity;
  @ApiProperty({ description: 'What goes wrong and the likely cause.' }) description: string;
  @ApiProperty({ description: 'Cases that show it.', type: [String] }) case_ids: string[];
}

/** Phase 1 output for one plan scenario. */
export class ScenarioDiagnosisDto {
  @ApiProperty({ description: 'Plan scenario.', format: 'uuid' }) scenario_id: string;
  @ApiProperty({ description: 'Scenario name in the plan.' }) scenario_name: string;
  @ApiProperty({ description: 'The diagnosis in a few sentences.' }) summary: string;
  @ApiProperty({ description: 'Failure patterns found.', type: [DiagnosisFindingDto] }) findings: DiagnosisFindingDto[];
  @ApiProperty({ description: 'Failed or errored case results given to the model (one per distinct case, at most EVAL_ANALYSIS_FAILURE_SAMPLE_CAP).' }) sampled_failures: number;
  @ApiProperty({ description: 'Failed or errored case results the scenario had.' }) total_failures: number;
  @ApiProperty({ description: 'Model calls the diagnosis took (retries included).' }) attempts: number;
}

/** Evidence of a problem; each reference is to the campaign (others were removed). */
export class ReportEvidenceDto {
  @ApiPropertyOptional({ description: 'A run of the campaign.', format: 'uuid' }) run_id?: string;
  @ApiPropertyOptional({ description: 'A plan scenario of the campaign.', format: 'uuid' }) scenario_id?: string;
  @ApiPropertyOptional({ description: 'A case id of the campaign\'s case results.' }) case_id?: string;
  @ApiProperty({ description: 'What was seen.' }) note: string;
}

/** A problem of the report. */
export class ReportProblemDto {
  @ApiProperty({ description: 'Slug, unique in the report; the same problem keeps its id across analyses of the same plan where the model recognised it.', example: 'refund-policy' }) id: string;
  @ApiProperty({ description: 'Short title.' }) title: string;
  @ApiProperty({ description: 'How serious.', enum: PROBLEM_SEVERITIES }) severity: ProblemSeverity;
  @ApiProperty({ description: 'What is wrong.' }) description: string;
  @ApiProperty({ description: 'Evidence (may be empty when every reference it had was outside the campaign).', type: [ReportEvidenceDto] }) evidence: ReportEvidenceDto[];
  @ApiPropertyOptional({ description: 'Plan scenarios it shows in.', type: [String] }) scenario_ids?: string[];
}

/** A recommendation of the report. */
export class ReportRecommendationDto {
  @ApiProperty({ description: 'Slug, unique in the report.' }) id: string;
  @ApiProperty({ description: 'Short title.' }) title: string;
  @ApiProperty({ description: 'What to change.' }) description: string;
  @ApiProperty({ description: 'Problems of this report it addresses.', type: [String] }) problem_ids: string[];
  @ApiProperty({ description: 'How urgent.', enum: RECOMMENDATION_PRIORITIES }) priority: RecommendationPriority;
}

/** The structured report (phase 2), valid against the report schema kept in the code (analysis-report.schema.ts). */
export class AnalysisReportDto {
  @ApiProperty({ description: 'What the campaign shows overall.' }) summary: string;
  @ApiProperty({ description: 'Problems, most severe first.', type: [ReportProblemDto] }) problems: ReportProblemDto[];
  @ApiProperty({ description: 'Recommendations.', type: [ReportRecommendationDto] }) recommendations: ReportRecommendationDto[];
}

/** A reference removed from the model's report before storage. */
export class RemovedReferenceDto {
  @ApiProperty({ description: 'JSON pointer in the report as the model wrote it.', example: '/problems/0/evidence/1/run_id' }) path: string;
  @ApiProperty({ description: '`run`, `scenario`, `case`: not in the campaign; `problem`: a recommendation naming a problem not in the report; `evidence`: an evidence item whose every reference was foreign.', enum: ['run', 'scenario', 'case', 'problem', 'evidence'] }) kind: string;
  @ApiProperty({ description: 'The removed value (the note, for a removed evidence item).' }) value: string;
}

/** Progress of a generating analysis. */
export class AnalysisProgressDto {
  @ApiProperty({ description: 'Where it is: `queued` (waiting for a worker), `diagnosis` (phase 1), `synthesis` (phase 2), `comparison` (cycle comparison), `done`.', enum: ANALYSIS_PHASES }) phase: AnalysisPhase;
  @ApiProperty({ description: 'Plan scenarios to diagnose; null until a worker read the results.', nullable: true, type: Number }) scenarios_total: number | null;
  @ApiProperty({ description: 'Scenarios diagnosed so far.' }) scenarios_diagnosed: number;
}

/** A campaign's analysis as returned by GET and POST /api/campaigns/{id}/analysis. */
export class CampaignAnalysisDto {
  @ApiProperty({ description: 'The campaign.', format: 'uuid' }) campaign_id: string;
  @ApiProperty({ description: '`generating` → `completed` | `failed`.', enum: ANALYSIS_STATUSES }) status: AnalysisStatus;
  @ApiProperty({ description: 'Start requests so far (a restart adds one).' }) generation: number;
  @ApiProperty({ description: 'Phase and progress.', type: AnalysisProgressDto }) progress: AnalysisProgressDto;
  @ApiProperty({ description: 'The model configuration used (snapshot; never its key).', type: ModelConfigSnapshotDto }) model_config: ModelConfigSnapshotDto;
  @ApiProperty({ description: 'Phase 1 output, one per scenario diagnosed.', type: [ScenarioDiagnosisDto] }) diagnoses: ScenarioDiagnosisDto[];
  @ApiProperty({ description: 'The report, once completed.', nullable: true, type: AnalysisReportDto }) report: AnalysisReportDto | null;
  @ApiProperty({ description: 'References removed from the model\'s report before storage.', type: [RemovedReferenceDto] }) removed_references: RemovedReferenceDto[];
  @ApiProperty({ description: 'Why it failed; while generating, why the previous worker run stopped (it is being retried).', nullable: true, type: String }) error: string | null;
  @ApiProperty({ description: 'Worker runs of this generation (more than 1 after a restart or a lost worker).' }) attempts: number;
  @ApiProperty({ description: 'Model calls of this generation, retries included.' }) model_calls: number;
  @ApiProperty({ description: 'When this generation was requested (ISO 8601).' }) requested_at: string;
  @ApiProperty({ description: 'When a worker took it up (ISO 8601).', nullable: true, type: String }) started_at: string | null;
  @ApiProperty({ description: 'When it ended (ISO 8601).', nullable: true, type: String }) finished_at: string | null;
  @ApiProperty({ description: 'Last sign of life of its worker (ISO 8601).' }) heartbeat_at: string;
}

/** Maps an analysis record to its response. */
export function toCampaignAnalysisDto(row: CampaignAnalysisEntity): CampaignAnalysisDto {
  return {
    campaign_id: row.campaignId,
    status: row.status,
    generation: row.generation,
    progress: { phase: row.phase, scenarios_total: row.scenariosTotal, scenarios_diagnosed: row.diagnoses.length },
    model_config: { ...row.modelConfig },
    diagnoses: row.diagnoses.map((item) => ({
      scenario_id: item.scenario_id,
      scenario_name: item.scenario_name,
      summary: item.summary,
      findings: item.findings,
      sampled_failures: item.sampled_failures,
      total_failures: item.total_failures,
      attempts: item.attempts,
    })),
    report: row.report,
    removed_references: row.removedReferences ?? [],
    error: row.error,
    attempts: row.attempts,
    model_calls: row.modelCalls,
    requested_at: row.requestedAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    heartbeat_at: row.heartbeatAt.toISOString(),
  };
}

/** One metric in both campaigns. */
export class MetricDeltaDto {
  @ApiProperty({ description: 'Value in this campaign.', nullable: true, type: Number }) current: number | null;
  @ApiProperty({ description: 'Value in the baseline.', nullable: true, type: Number }) baseline: number | null;
  @ApiProperty({ description: 'current − baseline; null when either is null.', nullable: true, type: Number }) delta: number | null;
}

/** Compared metrics (pass rate 0..1, counts of case results, latencies ms). */
export class MetricDeltaSetDto {
  @ApiProperty({ type: MetricDeltaDto, description: 'Pass rate 0..1 (a missing case is not a passing case).' }) pass_rate: MetricDeltaDto;
  @ApiProperty({ type: MetricDeltaDto, description: 'Passed case results.' }) passed_cases: MetricDeltaDto;
  @ApiProperty({ type: MetricDeltaDto, description: 'Case results expected (cases × repeats).' }) total_cases: MetricDeltaDto;
  @ApiProperty({ type: MetricDeltaDto, description: 'Median latency, ms.' }) latency_p50_ms: MetricDeltaDto;
  @ApiProperty({ type: MetricDeltaDto, description: '95th percentile latency, ms.' }) latency_p95_ms: MetricDeltaDto;
}

/** Deltas of one plan scenario. */
export class ScenarioMetricDeltasDto extends MetricDeltaSetDto {
  @ApiProperty({ description: 'Plan scenario.', format: 'uuid' }) scenario_id: string;
  @ApiProperty({ description: 'Scenario name.' }) scenario_name: string;
  @ApiProperty({ description: 'No results in this campaign: counted as 0 passed of the baseline\'s cases.' }) missing_in_current: boolean;
  @ApiProperty({ description: 'No results in the baseline.' }) missing_in_baseline: boolean;
}

/** Overall and per-scenario deltas. */
export class MetricDeltasDto {
  @ApiProperty({ type: MetricDeltaSetDto, description: 'Whole campaign.' }) overall: MetricDeltaSetDto;
  @ApiProperty({ type: [ScenarioMetricDeltasDto], description: 'Per plan scenario, in plan order.' }) scenarios: ScenarioMetricDeltasDto[];
}

/** A problem in the evolution lists. */
export class ProblemSummaryDto {
  @ApiProperty({ description: 'Problem id in its report.' }) id: string;
  @ApiProperty({ description: 'Title.' }) title: string;
  @ApiProperty({ description: 'Severity.', enum: PROBLEM_SEVERITIES }) severity: ProblemSeverity;
}

/** A baseline problem still present. */
export class PersistingProblemDto extends ProblemSummaryDto {
  @ApiProperty({ description: 'Its id in the baseline report.' }) baseline_id: string;
  @ApiProperty({ description: 'Its title in the baseline report.' }) baseline_title: string;
  @ApiProperty({ description: 'Its severity in the baseline report.', enum: PROBLEM_SEVERITIES }) baseline_severity: ProblemSeverity;
  @ApiProperty({ description: 'Matched by the same id, else by the same normalised title.', enum: ['id', 'title'] }) matched_by: 'id' | 'title';
  @ApiProperty({ description: 'Severity now against the baseline.', enum: ['worse', 'same', 'better'] }) severity_change: 'worse' | 'same' | 'better';
}

/** Problem evolution from the baseline's report to this one. */
export class ProblemEvolutionDto {
  @ApiProperty({ type: [ProblemSummaryDto], description: 'Baseline problems not found any more.' }) resolved: ProblemSummaryDto[];
  @ApiProperty({ type: [PersistingProblemDto], description: 'Baseline problems still present.' }) persisting: PersistingProblemDto[];
  @ApiProperty({ type: [ProblemSummaryDto], description: 'Problems the baseline did not have.' }) new: ProblemSummaryDto[];
}

/** Whether a baseline recommendation was followed by an improvement. */
export class RecommendationOutcomeDto {
  @ApiProperty({ description: 'Recommendation id in the baseline report.' }) recommendation_id: string;
  @ApiProperty({ description: 'Its title.' }) title: string;
  @ApiProperty({ description: 'Its priority.', enum: RECOMMENDATION_PRIORITIES }) priority: RecommendationPriority;
  @ApiProperty({ description: 'Baseline problems it addressed.', type: [String] }) problem_ids: string[];
  @ApiProperty({ description: 'Of those, resolved now.', type: [String] }) resolved_problem_ids: string[];
  @ApiProperty({ description: 'Of those, still present.', type: [String] }) persisting_problem_ids: string[];
  @ApiProperty({ description: 'Scenarios of its problems whose pass rate rose.', type: [String] }) improved_scenario_ids: string[];
  @ApiProperty({ description: 'True when a problem it addressed was resolved or a scenario of those problems improved its pass rate (a correlation over two cycles).' }) followed_by_improvement: boolean;
  @ApiProperty({ description: 'Why, in one sentence.' }) why: string;
}

/** The cycle comparison of a production-line campaign. */
export class CycleComparisonDto {
  @ApiProperty({ description: 'The campaign.', format: 'uuid' }) campaign_id: string;
  @ApiProperty({ description: 'The baseline: the most recent campaign created before this one with the same plan fingerprint and a completed analysis; null = no baseline.', nullable: true, type: String, format: 'uuid' }) baseline_campaign_id: string | null;
  @ApiProperty({ description: '`completed`, or `no_baseline` when there was nothing to compare against.', enum: CYCLE_COMPARISON_STATUSES }) status: CycleComparisonStatus;
  @ApiProperty({ description: 'Readable state, e.g. "No baseline: …".' }) message: string;
  @ApiProperty({ description: 'Metric deltas (null without baseline).', nullable: true, type: MetricDeltasDto }) metrics: MetricDeltasDto | null;
  @ApiProperty({ description: 'Problem evolution (null without baseline).', nullable: true, type: ProblemEvolutionDto }) problem_evolution: ProblemEvolutionDto | null;
  @ApiProperty({ description: 'Baseline recommendations and whether each was followed by an improvement (null without baseline).', nullable: true, type: [RecommendationOutcomeDto] }) recommendation_tracking: RecommendationOutcomeDto[] | null;
  @ApiProperty({ description: `Trend indicator (null without baseline). Rule: ${TREND_RULE}`, nullable: true, enum: TRENDS }) trend: Trend | null;
  @ApiProperty({ description: 'Why the trend is what it is.', nullable: true, type: String }) trend_reason: string | null;
  @ApiProperty({ description: 'The trend rule applied.', example: TREND_RULE }) trend_rule: string;
  @ApiProperty({ description: 'The model\'s account of the comparison; null without baseline or when the model call failed (see narration_error).', nullable: true, type: String }) narration: string | null;
  @ApiProperty({ description: 'Why there is no narration although there is a baseline.', nullable: true, type: String }) narration_error: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
}

/** Maps a cycle comparison row to its response. */
export function toCycleComparisonDto(row: CycleComparisonEntity): CycleComparisonDto {
  return {
    campaign_id: row.campaignId,
    baseline_campaign_id: row.baselineCampaignId,
    status: row.status,
    message:
      row.status === 'no_baseline'
        ? 'No baseline: no campaign created before this one with the same plan fingerprint has a completed analysis, so there is nothing to compare against.'
        : `Compared against campaign ${row.baselineCampaignId}.`,
    metrics: row.metrics,
    problem_evolution: row.problemEvolution,
    recommendation_tracking: row.recommendationTracking,
    trend: row.trend,
    trend_reason: row.trendReason,
    trend_rule: TREND_RULE,
    narration: row.narration,
    narration_error: row.narrationError,
    created_at: row.createdAt.toISOString(),
  };
}
