import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { JsonBodyLimit } from '../../common/http/body-parsing';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy, EvaluationPrincipal } from '../auth/evaluation-auth';
import {
  CreateIntelligentEvaluationDto,
  IntelligentEvaluationDto,
  IntelligentEvaluationQueryDto,
  IntelligentEvaluationSummaryDto,
  IntelligentReportDto,
  IntelligentTransitionConflictDto,
  SubmitIntelligentReportDto,
  TransitionIntelligentEvaluationDto,
} from './intelligent-evaluations.dto';
import { IntelligentEvaluationsService } from './intelligent-evaluations.service';

/** The lifecycle as documented on the routes (kept in step with intelligent-lifecycle.ts). */
const LIFECYCLE = [
  'Lifecycle: `draft` → `planning` → `pending_approval` → `executing` → `completed` (only through `POST …/report`) | `failed` | `cancelled`.',
  '`cancelled` is also allowed from `draft`, `planning` and `pending_approval` (abandoning an evaluation before it runs); `failed` only from `executing`.',
  '`completed`, `failed`, `cancelled` are terminal. Every other move → 409 whose body has `current_status`, `requested_status` and `allowed_moves` (each with the method and path that makes it).',
  'Moves are atomic (compare-and-set on the state): of two concurrent moves from the same state exactly one succeeds, the other gets 409.',
].join(' ');

/**
 * Intelligent evaluation (evaluation-platform.md, Intelligent evaluation; issue 4): an external planning and
 * executing agent drives it; the platform stores the plan, approval, sessions, messages and report, and enforces
 * the lifecycle. Paths are not named by the spec; they live under `/api/intelligent-evaluations`.
 */
@ApiTags('evaluation: intelligent evaluation')
@Controller('api/intelligent-evaluations')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class IntelligentEvaluationsController {
  constructor(private readonly evaluations: IntelligentEvaluationsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createIntelligentEvaluation',
    summary: 'Create an intelligent evaluation',
    description: `Starts in \`draft\`. \`target_id\` is optional; an unknown one → 400. ${LIFECYCLE}`,
  })
  @ApiCreatedResponse({ type: IntelligentEvaluationDto })
  @ApiBadRequestResponse({ description: 'Invalid fields or unknown target (problem+json with `errors[]`).' })
  create(@Body() body: CreateIntelligentEvaluationDto): Promise<IntelligentEvaluationDto> {
    return this.evaluations.create(body);
  }

  @Get()
  @ApiOperation({
    operationId: 'listIntelligentEvaluations',
    summary: 'List intelligent evaluations',
    description: 'Newest first, without plans; filter by `status`, `target_id`; sortable by createdAt, updatedAt, name.',
  })
  @ApiOkResponse({ type: pageSchema(IntelligentEvaluationSummaryDto, 'Intelligent evaluations') })
  list(@Query() query: IntelligentEvaluationQueryDto): Promise<Page<IntelligentEvaluationSummaryDto>> {
    return this.evaluations.list(query);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getIntelligentEvaluation',
    summary: 'Read an intelligent evaluation',
    description: 'With its plan, approval, per-state timestamps and `allowed_moves` (what the agent may do next and how).',
  })
  @ApiOkResponse({ type: IntelligentEvaluationDto })
  @ApiNotFoundResponse({ description: 'Unknown evaluation.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<IntelligentEvaluationDto> {
    return this.evaluations.get(id);
  }

  @Post(':id/transitions')
  @JsonBodyLimit('document') // a plan: up to 500 steps
  @HttpCode(200)
  @ApiOperation({
    operationId: 'transitionIntelligentEvaluation',
    summary: 'Move an intelligent evaluation to another state',
    description: [
      'Body `{ "to": <state>, "from"?, "reason"?, "plan"?, "actor"? }`; `from` is a precondition: when the evaluation is no longer in that state → 409 and nothing changes.',
      '→ `planning`: start planning. → `pending_approval`: submit the `plan` (required; unique dimensions and step ids).',
      '→ `executing`: approve the plan (`actor` recorded as `approved_by`, else the credential; `reason` as the approval note).',
      '→ `failed`: `reason` required. → `cancelled`: `reason` optional. A `plan` with another move, or a `reason` with planning/pending_approval → 400.',
      '→ `completed` is refused here (409): submit the report instead.',
      'On entering a terminal state, open sessions are closed.',
      LIFECYCLE,
    ].join(' '),
  })
  @ApiOkResponse({ type: IntelligentEvaluationDto, description: 'The evaluation in its new state.' })
  @ApiBadRequestResponse({ description: 'Invalid body: missing or misplaced plan or reason (problem+json with `errors[]`).' })
  @ApiNotFoundResponse({ description: 'Unknown evaluation.' })
  @ApiConflictResponse({ type: IntelligentTransitionConflictDto, description: 'The move is not allowed from the current state (or the state changed meanwhile); the body names the allowed moves.' })
  transition(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: TransitionIntelligentEvaluationDto,
    @CurrentPrincipal() principal: EvaluationPrincipal,
  ): Promise<IntelligentEvaluationDto> {
    return this.evaluations.transition(id, body, principal);
  }

  @Post(':id/report')
  @JsonBodyLimit('document') // a report: up to 500 findings with evidence
  @ApiOperation({
    operationId: 'submitIntelligentEvaluationReport',
    summary: 'Submit the structured report (executing → completed)',
    description: [
      'The only way to `completed`, and only from `executing` (else 409 naming the allowed moves).',
      'Validated: summary; verdict `pass|fail|partial`; scores 0..1 per dimension (unique, covering every dimension of the approved plan);',
      'findings with unique ids, a severity and evidence citing sessions and messages of this evaluation (a foreign or unknown session or message, or a message of another session → 400);',
      'recommendations whose `finding_ids` name findings of the report. Errors are 400 with one `errors[]` entry per field (e.g. `findings[0].evidence[1].message_id`).',
      'Open sessions are closed.',
    ].join(' '),
  })
  @ApiCreatedResponse({ type: IntelligentReportDto, description: 'The stored report; the evaluation is completed.' })
  @ApiBadRequestResponse({ description: 'Invalid report (problem+json with `errors[]`).' })
  @ApiNotFoundResponse({ description: 'Unknown evaluation.' })
  @ApiConflictResponse({ type: IntelligentTransitionConflictDto, description: 'The evaluation is not executing.' })
  submitReport(@Param('id', ParseUUIDPipe) id: string, @Body() body: SubmitIntelligentReportDto): Promise<IntelligentReportDto> {
    return this.evaluations.submitReport(id, body);
  }

  @Get(':id/report')
  @ApiOperation({ operationId: 'getIntelligentEvaluationReport', summary: 'Read the structured report', description: 'Exists once the evaluation is completed; before that 404 saying which state the evaluation is in.' })
  @ApiOkResponse({ type: IntelligentReportDto })
  @ApiNotFoundResponse({ description: 'Unknown evaluation, or no report yet.' })
  getReport(@Param('id', ParseUUIDPipe) id: string): Promise<IntelligentReportDto> {
    return this.evaluations.getReport(id);
  }
}
