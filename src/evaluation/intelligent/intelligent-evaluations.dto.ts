import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import type { IntelligentEvaluationEntity } from './intelligent-evaluation.entity';
import { AllowedMove, allowedMoves, INTELLIGENT_STATUSES, IntelligentStatus, TRANSITION_TRIGGERS, TransitionTrigger } from './intelligent-lifecycle';
import { INTELLIGENT_MESSAGE_ROLES, IntelligentMessageEntity, IntelligentMessageRole } from './intelligent-message.entity';
import {
  FINDING_SEVERITIES,
  FindingSeverity,
  IntelligentReport,
  RECOMMENDATION_PRIORITIES,
  RecommendationPriority,
  REPORT_VERDICTS,
  ReportVerdict,
} from './intelligent-report';
import { INTELLIGENT_SESSION_KINDS, INTELLIGENT_SESSION_STATUSES, IntelligentSessionEntity, IntelligentSessionKind, IntelligentSessionStatus } from './intelligent-session.entity';

/** Base path of the intelligent evaluation API. */
export const INTELLIGENT_BASE_PATH = '/api/intelligent-evaluations';

/** Ids chosen by the agent (plan steps, findings): letters, digits and `_ . : -`, at most 64. */
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const AGENT_ID_MESSAGE = 'use letters, digits and _ . : - (max 64, starting with a letter or digit)';

/** Structural bounds of a plan and a report (the request body as a whole is capped by HTTP_JSON_BODY_LIMIT_BYTES). */
export const PLAN_MAX_DIMENSIONS = 50;
export const PLAN_MAX_STEPS = 500;
export const REPORT_MAX_FINDINGS = 500;
export const REPORT_MAX_EVIDENCE_PER_FINDING = 50;
export const REPORT_MAX_RECOMMENDATIONS = 200;

// ---------------------------------------------------------------------------------------------------------------
// Evaluations: create, list
// ---------------------------------------------------------------------------------------------------------------

/** Body of `POST /api/intelligent-evaluations`: the evaluation starts in `draft`. */
export class CreateIntelligentEvaluationDto {
  @ApiProperty({ description: 'Name.', maxLength: 200, example: 'Refund policy robustness' })
  @IsString() @MinLength(1) @MaxLength(200)
  name: string;

  @ApiProperty({ description: 'What the evaluation must find out; the planning agent plans from it.', maxLength: 20000, example: 'Does the support bot state the 30-day refund window correctly under pressure?' })
  @IsString() @MinLength(1) @MaxLength(20000)
  goal: string;

  @ApiPropertyOptional({ description: 'Longer description or context.', maxLength: 20000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(20000)
  description?: string | null;

  @ApiPropertyOptional({ description: 'The evaluation target under test (`/api/targets`), if any; an unknown id → 400.', format: 'uuid', nullable: true, type: String })
  @IsOptional() @IsUUID()
  target_id?: string | null;
}

/** Sort fields of `GET /api/intelligent-evaluations`: field → entity property; used by the query's sort and the service's toOrder. */
export const INTELLIGENT_EVALUATION_SORT_FIELDS = { createdAt: 'e.createdAt', updatedAt: 'e.updatedAt', name: 'e.name' } as const;

/** Query of `GET /api/intelligent-evaluations`. Sortable by `createdAt`, `updatedAt`, `name`. */
export class IntelligentEvaluationQueryDto extends PageBoundsQueryDto {
  @SortParam(INTELLIGENT_EVALUATION_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only evaluations in this state.', enum: INTELLIGENT_STATUSES })
  @IsOptional() @IsIn(INTELLIGENT_STATUSES)
  status?: IntelligentStatus;

  @ApiPropertyOptional({ description: 'Only evaluations of this target.', format: 'uuid' })
  @IsOptional() @IsUUID()
  target_id?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Plan and transitions
// ---------------------------------------------------------------------------------------------------------------

/** One step of a plan. */
export class PlanStepDto {
  @ApiProperty({ description: 'Step id, unique within the plan.', example: 'probe-refund-window' })
  @IsString() @Matches(AGENT_ID, { message: `step id: ${AGENT_ID_MESSAGE}` })
  id: string;

  @ApiProperty({ description: 'What the step does.', maxLength: 500, example: 'Ask for a refund on day 29, then on day 31' })
  @IsString() @MinLength(1) @MaxLength(500)
  title: string;

  @ApiPropertyOptional({ description: 'Details.', maxLength: 20000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(20000)
  description?: string | null;
}

/** The plan the planner submits with the move planning → pending_approval. */
export class PlanDto {
  @ApiProperty({ description: 'The approach, for the person who approves it.', maxLength: 20000 })
  @IsString() @MinLength(1) @MaxLength(20000)
  summary: string;

  @ApiProperty({
    description: `Dimensions the report will score (unique, 1..${PLAN_MAX_DIMENSIONS}); the report must score each of them.`,
    type: [String],
    example: ['accuracy', 'tone'],
  })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(PLAN_MAX_DIMENSIONS) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(100, { each: true })
  dimensions: string[];

  @ApiProperty({ description: `Steps, in order (unique ids, 1..${PLAN_MAX_STEPS}).`, type: [PlanStepDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(PLAN_MAX_STEPS) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => PlanStepDto)
  steps: PlanStepDto[];

  @ApiPropertyOptional({ description: 'Anything else the planner wants to keep with the plan.', type: 'object', additionalProperties: true })
  @IsOptional() @IsObject()
  metadata?: Record<string, unknown>;
}

/**
 * Body of `POST /api/intelligent-evaluations/{id}/transitions`. `from` (optional) is a precondition on the current
 * state. What each move needs:
 * `planning` nothing; `pending_approval` the `plan`; `executing` (the approval) optionally `reason` as the
 * approval note and `actor` as the approver; `failed` a `reason`; `cancelled` optionally a `reason`.
 * `completed` is reached only through `POST …/report`.
 */
export class TransitionIntelligentEvaluationDto {
  @ApiProperty({ description: 'The state to move to.', enum: INTELLIGENT_STATUSES, example: 'planning' })
  @IsIn(INTELLIGENT_STATUSES)
  to: IntelligentStatus;

  @ApiPropertyOptional({
    description: 'The state the caller believes the evaluation is in. When given and different from the current state, nothing changes and the answer is 409 — so a move decided on a stale read never applies to a newer state.',
    enum: INTELLIGENT_STATUSES,
    example: 'draft',
  })
  @IsOptional() @IsIn(INTELLIGENT_STATUSES)
  from?: IntelligentStatus;

  @ApiPropertyOptional({ description: 'Why: required for `failed`; kept for `cancelled`; the approval note for `executing`; refused for other moves.', maxLength: 10000 })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(10000)
  reason?: string;

  @ApiPropertyOptional({ description: 'The plan: required with `pending_approval`, refused with any other move.', type: PlanDto })
  @IsOptional() @ValidateNested() @Type(() => PlanDto)
  plan?: PlanDto;

  @ApiPropertyOptional({ description: 'Who asks for the move (a person or an agent name). Recorded as `approved_by` on approval; defaults to the credential (`api-key:api-key`, `session:admin`).', maxLength: 200 })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  actor?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Structured report (request DTOs; also the response schema of its parts)
// ---------------------------------------------------------------------------------------------------------------

/** The score of one dimension. */
export class ReportScoreDto {
  @ApiProperty({ description: 'Dimension (each of the plan\'s dimensions must be scored; others may be added).', maxLength: 100, example: 'accuracy' })
  @IsString() @MinLength(1) @MaxLength(100)
  dimension: string;

  @ApiProperty({ description: 'Score from 0 (worst) to 1 (best).', minimum: 0, maximum: 1, example: 0.75 })
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1)
  score: number;

  @ApiPropertyOptional({ description: 'Why this score.', maxLength: 20000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(20000)
  rationale?: string | null;
}

/** Evidence of a finding: a session of this evaluation, optionally one of its messages. */
// Its own schema name: analysis.dto.ts has a ReportEvidenceDto too, and one would overwrite the other in the document.
@ApiSchema({ name: 'IntelligentReportEvidenceDto' })
export class ReportEvidenceDto {
  @ApiProperty({ description: 'A session of this evaluation (another evaluation\'s or an unknown session → 400).', format: 'uuid' })
  @IsUUID()
  session_id: string;

  @ApiPropertyOptional({ description: 'A message of that session (a message of another session or evaluation → 400).', format: 'uuid', nullable: true, type: String })
  @IsOptional() @IsUUID()
  message_id?: string | null;

  @ApiPropertyOptional({ description: 'What this evidence shows.', maxLength: 2000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(2000)
  note?: string | null;
}

/** A finding, backed by evidence. */
export class ReportFindingDto {
  @ApiProperty({ description: 'Finding id, unique within the report; recommendations cite it.', example: 'F1' })
  @IsString() @Matches(AGENT_ID, { message: `finding id: ${AGENT_ID_MESSAGE}` })
  id: string;

  @ApiProperty({ description: 'Short statement of the finding.', maxLength: 500 })
  @IsString() @MinLength(1) @MaxLength(500)
  title: string;

  @ApiProperty({ description: 'Severity.', enum: FINDING_SEVERITIES })
  @IsIn(FINDING_SEVERITIES)
  severity: FindingSeverity;

  @ApiPropertyOptional({ description: 'Details.', maxLength: 20000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(20000)
  description?: string | null;

  @ApiProperty({ description: `Evidence (1..${REPORT_MAX_EVIDENCE_PER_FINDING}).`, type: [ReportEvidenceDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(REPORT_MAX_EVIDENCE_PER_FINDING) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ReportEvidenceDto)
  evidence: ReportEvidenceDto[];
}

/** A recommendation. */
@ApiSchema({ name: 'IntelligentReportRecommendationDto' })
export class ReportRecommendationDto {
  @ApiProperty({ description: 'What to do.', maxLength: 500 })
  @IsString() @MinLength(1) @MaxLength(500)
  title: string;

  @ApiPropertyOptional({ description: 'Details.', maxLength: 20000, nullable: true, type: String })
  @IsOptional() @IsString() @MaxLength(20000)
  description?: string | null;

  @ApiProperty({ description: 'Priority.', enum: RECOMMENDATION_PRIORITIES })
  @IsIn(RECOMMENDATION_PRIORITIES)
  priority: RecommendationPriority;

  @ApiPropertyOptional({ description: 'Ids of the findings of this report it addresses (unknown id → 400).', type: [String], default: [] })
  @IsOptional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true })
  finding_ids?: string[];
}

/** Body of `POST /api/intelligent-evaluations/{id}/report`: the structured report that completes the evaluation. */
export class SubmitIntelligentReportDto {
  @ApiProperty({ description: 'Summary of the outcome.', maxLength: 50000 })
  @IsString() @MinLength(1) @MaxLength(50000)
  summary: string;

  @ApiProperty({ description: 'Overall verdict.', enum: REPORT_VERDICTS })
  @IsIn(REPORT_VERDICTS)
  verdict: ReportVerdict;

  @ApiProperty({ description: 'Scores per dimension (unique dimensions; every dimension of the approved plan must be present).', type: [ReportScoreDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(PLAN_MAX_DIMENSIONS * 2) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ReportScoreDto)
  scores: ReportScoreDto[];

  @ApiProperty({ description: `Findings (unique ids, 0..${REPORT_MAX_FINDINGS}), each with evidence from this evaluation's sessions.`, type: [ReportFindingDto] })
  @IsArray() @ArrayMaxSize(REPORT_MAX_FINDINGS) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ReportFindingDto)
  findings: ReportFindingDto[];

  @ApiProperty({ description: `Recommendations (0..${REPORT_MAX_RECOMMENDATIONS}).`, type: [ReportRecommendationDto] })
  @IsArray() @ArrayMaxSize(REPORT_MAX_RECOMMENDATIONS) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ReportRecommendationDto)
  recommendations: ReportRecommendationDto[];
}

/** The report as stored: optional fields become null, missing `finding_ids` an empty list. */
export function toStoredReport(input: SubmitIntelligentReportDto): IntelligentReport {
  return {
    summary: input.summary,
    verdict: input.verdict,
    scores: input.scores.map((score) => ({ dimension: score.dimension, score: score.score, rationale: score.rationale ?? null })),
    findings: input.findings.map((finding) => ({
      id: finding.id,
      title: finding.title,
      severity: finding.severity,
      description: finding.description ?? null,
      evidence: finding.evidence.map((evidence) => ({ session_id: evidence.session_id, message_id: evidence.message_id ?? null, note: evidence.note ?? null })),
    })),
    recommendations: input.recommendations.map((recommendation) => ({
      title: recommendation.title,
      description: recommendation.description ?? null,
      priority: recommendation.priority,
      finding_ids: recommendation.finding_ids ?? [],
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions and messages
// ---------------------------------------------------------------------------------------------------------------

/** Body of `POST /api/intelligent-evaluations/{id}/sessions`. */
export class CreateIntelligentSessionDto {
  @ApiProperty({ description: 'Title.', maxLength: 200, example: 'Day-31 refund probe' })
  @IsString() @MinLength(1) @MaxLength(200)
  title: string;

  @ApiProperty({ description: '`planning` (any non-terminal state) or `execution` (only while `executing`, i.e. after approval).', enum: INTELLIGENT_SESSION_KINDS })
  @IsIn(INTELLIGENT_SESSION_KINDS)
  kind: IntelligentSessionKind;
}

/** Sort fields of `GET /api/intelligent-evaluations/{id}/sessions`: field → entity property; used by the query's sort and the service's toOrder. */
export const INTELLIGENT_SESSION_SORT_FIELDS = { createdAt: 'createdAt' } as const;

/** Query of `GET /api/intelligent-evaluations/{id}/sessions`. Oldest first; sortable by `createdAt`. */
export class IntelligentSessionQueryDto extends PageBoundsQueryDto {
  @SortParam(INTELLIGENT_SESSION_SORT_FIELDS, ['createdAt,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only sessions in this state.', enum: INTELLIGENT_SESSION_STATUSES })
  @IsOptional() @IsIn(INTELLIGENT_SESSION_STATUSES)
  status?: IntelligentSessionStatus;

  @ApiPropertyOptional({ description: 'Only sessions of this kind.', enum: INTELLIGENT_SESSION_KINDS })
  @IsOptional() @IsIn(INTELLIGENT_SESSION_KINDS)
  kind?: IntelligentSessionKind;
}

/** Body of `POST /api/intelligent-evaluations/{id}/sessions/{session_id}/messages`. */
export class PostIntelligentMessageDto {
  @ApiProperty({ description: 'Who wrote it.', enum: INTELLIGENT_MESSAGE_ROLES, example: 'executor' })
  @IsIn(INTELLIGENT_MESSAGE_ROLES)
  role: IntelligentMessageRole;

  @ApiProperty({ description: 'The text (at most EVAL_INTELLIGENT_MAX_MESSAGE_CHARS characters, 413 above).', example: 'I bought it 31 days ago, can I get a refund?' })
  @IsString() @MinLength(1)
  content: string;

  @ApiPropertyOptional({ description: 'Structured data (tool calls, latency_ms, plan step id…); its JSON is capped like the content.', type: 'object', additionalProperties: true })
  @IsOptional() @IsObject()
  metadata?: Record<string, unknown>;
}

/** Sort fields of `GET …/sessions/{session_id}/messages`: field → entity property; used by the query's sort and the service's toOrder. */
export const INTELLIGENT_MESSAGE_SORT_FIELDS = { createdAt: 'createdAt' } as const;

/** Query of `GET …/sessions/{session_id}/messages`. Oldest first; sortable by `createdAt`. */
export class IntelligentMessageQueryDto extends PageBoundsQueryDto {
  @SortParam(INTELLIGENT_MESSAGE_SORT_FIELDS, ['createdAt,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only messages of this role.', enum: INTELLIGENT_MESSAGE_ROLES })
  @IsOptional() @IsIn(INTELLIGENT_MESSAGE_ROLES)
  role?: IntelligentMessageRole;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------------------

/** A move the evaluation can make now, and the request that makes it. */
export class AllowedMoveDto {
  @ApiProperty({ description: 'Target state.', enum: INTELLIGENT_STATUSES }) to: IntelligentStatus;
  @ApiProperty({ description: '`transition`: POST …/transitions with `{ "to": … }`; `report`: POST …/report with the structured report.', enum: TRANSITION_TRIGGERS }) trigger: TransitionTrigger;
  @ApiProperty({ description: 'HTTP method.', example: 'POST' }) method: string;
  @ApiProperty({ description: 'Path to call.', example: '/api/intelligent-evaluations/3f1c…/transitions' }) path: string;
}

/** Maps allowed moves of evaluation `id` to the requests that make them. */
export function toAllowedMoveDtos(id: string, moves: AllowedMove[]): AllowedMoveDto[] {
  return moves.map((move) => ({
    to: move.to,
    trigger: move.trigger,
    method: 'POST',
    path: `${INTELLIGENT_BASE_PATH}/${id}/${move.trigger === 'report' ? 'report' : 'transitions'}`,
  }));
}

/** The 409 body of a refused move (problem+json with extension members). */
export class IntelligentTransitionConflictDto {
  @ApiProperty({ example: 'about:blank' }) type: string;
  @ApiProperty({ example: 'Conflict' }) title: string;
  @ApiProperty({ example: 409 }) status: number;
  @ApiProperty({ description: 'Readable reason naming the current state and the allowed moves.', example: 'Cannot move an intelligent evaluation from draft to executing. Allowed moves from draft: planning, cancelled.' }) detail: string;
  @ApiProperty({ description: 'Request path.' }) instance: string;
  @ApiProperty({ description: 'The evaluation\'s state now.', enum: INTELLIGENT_STATUSES }) current_status: IntelligentStatus;
  @ApiProperty({ description: 'The state asked for.', enum: INTELLIGENT_STATUSES }) requested_status: IntelligentStatus;
  @ApiProperty({ description: 'Moves allowed from the current state (empty when terminal).', type: [AllowedMoveDto] }) allowed_moves: AllowedMoveDto[];
}

/** An intelligent evaluation in lists (without its plan). */
export class IntelligentEvaluationSummaryDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Goal.' }) goal: string;
  @ApiProperty({ description: 'Description.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Target under test.', nullable: true, type: String, format: 'uuid' }) target_id: string | null;
  @ApiProperty({ description: 'draft → planning → pending_approval → executing → completed | failed | cancelled (cancelled also before executing).', enum: INTELLIGENT_STATUSES }) status: IntelligentStatus;
  @ApiProperty({ description: 'Why it failed or was cancelled.', nullable: true, type: String }) status_reason: string | null;
  @ApiProperty({ description: 'Who approved the plan.', nullable: true, type: String }) approved_by: string | null;
  @ApiProperty({ description: 'Note given with the approval.', nullable: true, type: String }) approval_note: string | null;
  @ApiProperty({ description: 'Whether the structured report is stored (read it at …/report).' }) has_report: boolean;
  @ApiProperty({ description: 'Created, i.e. entered draft (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).' }) updated_at: string;
  @ApiProperty({ description: 'Entered planning (ISO 8601).', nullable: true, type: String }) planning_at: string | null;
  @ApiProperty({ description: 'Entered pending_approval: plan submitted (ISO 8601).', nullable: true, type: String }) pending_approval_at: string | null;
  @ApiProperty({ description: 'Entered executing: plan approved (ISO 8601).', nullable: true, type: String }) executing_at: string | null;
  @ApiProperty({ description: 'Completed: report submitted (ISO 8601).', nullable: true, type: String }) completed_at: string | null;
  @ApiProperty({ description: 'Failed (ISO 8601).', nullable: true, type: String }) failed_at: string | null;
  @ApiProperty({ description: 'Cancelled (ISO 8601).', nullable: true, type: String }) cancelled_at: string | null;
  @ApiProperty({ description: 'Moves allowed now and how to make them (empty when terminal).', type: [AllowedMoveDto] }) allowed_moves: AllowedMoveDto[];
}

/** An intelligent evaluation as read, with its plan. */
export class IntelligentEvaluationDto extends IntelligentEvaluationSummaryDto {
  @ApiProperty({ description: 'The plan submitted with planning → pending_approval.', nullable: true, type: PlanDto }) plan: PlanDto | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Maps an evaluation row (plan and report may be left unloaded) to its list form. */
export function toIntelligentEvaluationSummaryDto(row: IntelligentEvaluationEntity, hasReport = row.report != null): IntelligentEvaluationSummaryDto {
  return {
    id: row.id,
    name: row.name,
    goal: row.goal,
    description: row.description,
    target_id: row.targetId,
    status: row.status,
    status_reason: row.statusReason,
    approved_by: row.approvedBy,
    approval_note: row.approvalNote,
    has_report: hasReport,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    planning_at: iso(row.planningAt),
    pending_approval_at: iso(row.pendingApprovalAt),
    executing_at: iso(row.executingAt),
    completed_at: iso(row.completedAt),
    failed_at: iso(row.failedAt),
    cancelled_at: iso(row.cancelledAt),
    allowed_moves: toAllowedMoveDtos(row.id, allowedMoves(row.status)),
  };
}

/** Maps an evaluation row with its plan. */
export function toIntelligentEvaluationDto(row: IntelligentEvaluationEntity): IntelligentEvaluationDto {
  return { ...toIntelligentEvaluationSummaryDto(row), plan: row.plan };
}

/** The structured report of a completed evaluation. */
export class IntelligentReportDto {
  @ApiProperty({ description: 'The evaluation (UUID).' }) evaluation_id: string;
  @ApiProperty({ description: 'Always `completed` (a report exists only for completed evaluations).', enum: INTELLIGENT_STATUSES }) status: IntelligentStatus;
  @ApiProperty({ description: 'When the report was submitted (ISO 8601).' }) submitted_at: string;
  @ApiProperty({ description: 'Summary.' }) summary: string;
  @ApiProperty({ description: 'Verdict.', enum: REPORT_VERDICTS }) verdict: ReportVerdict;
  @ApiProperty({ description: 'Scores per dimension, 0..1.', type: [ReportScoreDto] }) scores: ReportScoreDto[];
  @ApiProperty({ description: 'Findings with evidence.', type: [ReportFindingDto] }) findings: ReportFindingDto[];
  @ApiProperty({ description: 'Recommendations.', type: [ReportRecommendationDto] }) recommendations: ReportRecommendationDto[];
}

/** Maps a completed evaluation (report set) to its report. */
export function toIntelligentReportDto(row: IntelligentEvaluationEntity & { report: IntelligentReport }): IntelligentReportDto {
  return {
    evaluation_id: row.id,
    status: row.status,
    submitted_at: (row.completedAt ?? row.updatedAt).toISOString(),
    ...row.report,
  };
}

/** A session. */
export class IntelligentSessionDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'The evaluation (UUID).' }) evaluation_id: string;
  @ApiProperty({ description: 'Title.' }) title: string;
  @ApiProperty({ description: 'Kind.', enum: INTELLIGENT_SESSION_KINDS }) kind: IntelligentSessionKind;
  @ApiProperty({ description: '`open` accepts messages; `closed` is final (sessions close when the evaluation ends).', enum: INTELLIGENT_SESSION_STATUSES }) status: IntelligentSessionStatus;
  @ApiProperty({ description: 'Messages posted.' }) message_count: number;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last message (ISO 8601).', nullable: true, type: String }) last_message_at: string | null;
  @ApiProperty({ description: 'Closed (ISO 8601).', nullable: true, type: String }) closed_at: string | null;
}

/** Maps a session row. */
export function toIntelligentSessionDto(row: IntelligentSessionEntity): IntelligentSessionDto {
  return {
    id: row.id,
    evaluation_id: row.evaluationId,
    title: row.title,
    kind: row.kind,
    status: row.status,
    message_count: row.messageCount,
    created_at: row.createdAt.toISOString(),
    last_message_at: iso(row.lastMessageAt),
    closed_at: iso(row.closedAt),
  };
}

/** A message. */
export class IntelligentMessageDto {
  @ApiProperty({ description: 'Id (UUID); cite it as evidence in the report.' }) id: string;
  @ApiProperty({ description: 'The evaluation (UUID).' }) evaluation_id: string;
  @ApiProperty({ description: 'The session (UUID).' }) session_id: string;
  @ApiProperty({ description: 'Who wrote it.', enum: INTELLIGENT_MESSAGE_ROLES }) role: IntelligentMessageRole;
  @ApiProperty({ description: 'Text.' }) content: string;
  @ApiProperty({ description: 'Structured data (`{}` when none).', type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ description: 'Posted (ISO 8601).' }) created_at: string;
}

/** Maps a message row. */
export function toIntelligentMessageDto(row: IntelligentMessageEntity): IntelligentMessageDto {
  return {
    id: row.id,
    evaluation_id: row.evaluationId,
    session_id: row.sessionId,
    role: row.role,
    content: row.content,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
  };
}
