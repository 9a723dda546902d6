import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import {
  CloseExplorationSessionDto,
  CreateExplorationSessionDto,
  DriveExplorationSessionDto,
  DriveResultDto,
  ExplorationSessionDetailDto,
  ExplorationSessionDto,
  ExplorationSessionQueryDto,
  ExplorationTurnDto,
  SendExplorationMessageDto,
} from './exploration.dto';
import { ExplorationService } from './exploration.service';
import { PatrolDto } from './patrol.dto';
import { PatrolService } from './patrol.service';

const BUDGET_409 =
  'problem+json whose `detail` is a readable reason. Budget refusals also carry `limit` (`sessions_per_window`, `min_session_interval`, `turns_per_session`, `outside_window`), `limit_value`, `used` and `next_allowed_at`.';

/**
 * Exploration sessions and the patrol (evaluation-platform.md, Resources: Exploration session; Endpoints:
 * GET /api/exploration/patrol; Patrol rules; Errors; Limits). Session paths are not named by the spec.
 */
@ApiTags('evaluation: exploration')
@Controller('api/exploration')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class ExplorationController {
  constructor(
    private readonly exploration: ExplorationService,
    private readonly patrols: PatrolService,
  ) {}

  @Get('patrol')
  @ApiOperation({
    operationId: 'getExplorationPatrol',
    summary: 'Patrol: increments of every watched campaign',
    description:
      'Stateless for the caller. Returns every running production-line campaign with a seed set (accelerated, draft, terminal and opted-out campaigns are excluded), ' +
      'each with the aggregation (same as the campaign report) of only the runs that became terminal since the previous patrol, the exploration sessions closed since then, ' +
      'and the remaining exploration budget. Every call advances each campaign\'s watermark, so the next call reports only what is new; ' +
      'each run and session is reported by exactly one call, also when calls run concurrently.',
  })
  @ApiOkResponse({ type: PatrolDto })
  patrol(): Promise<PatrolDto> {
    return this.patrols.patrol();
  }

  @Post('sessions')
  @ApiOperation({
    operationId: 'createExplorationSession',
    summary: 'Open an exploration session',
    description:
      'A virtual user (persona, goal) for a running campaign with a seed set, `manual` or driven by a model configuration (`model`). ' +
      '409 when the campaign is not running, has opted out of exploration, is on the accelerated line and the mode is not manual (manual-only rule), ' +
      'already started sessions_per_window sessions in its window, started its previous session less than min_session_interval_ms ago, or the window is not open.',
  })
  @ApiCreatedResponse({ type: ExplorationSessionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, mode `model` without model_config_id, or an unknown, disabled or non-chat model configuration.' })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  @ApiConflictResponse({ description: BUDGET_409 })
  create(@Body() body: CreateExplorationSessionDto): Promise<ExplorationSessionDto> {
    return this.exploration.create(body);
  }

  @Get('sessions')
  @ApiOperation({ operationId: 'listExplorationSessions', summary: 'List a campaign\'s exploration sessions', description: 'Newest first; filter by status; sortable by startedAt, closedAt. Messages are not included.' })
  @ApiOkResponse({ type: pageSchema(ExplorationSessionDto, 'Exploration sessions') })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  list(@Query() query: ExplorationSessionQueryDto): Promise<Page<ExplorationSessionDto>> {
    return this.exploration.list(query);
  }

  @Get('sessions/:id')
  @ApiOperation({ operationId: 'getExplorationSession', summary: 'Read an exploration session with its messages', description: 'Every turn in order: message, reply, latency, error; the experience record once closed.' })
  @ApiOkResponse({ type: ExplorationSessionDetailDto })
  @ApiNotFoundResponse({ description: 'Unknown session.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ExplorationSessionDetailDto> {
    return this.exploration.get(id);
  }

  @Post('sessions/:id/messages')
  @ApiOperation({
    operationId: 'sendExplorationMessage',
    summary: 'Send a virtual-user message',
    description:
      'Delivers the message to the campaign\'s target through its channel and stores the turn with the reply and its latency. ' +
      'The turn is consumed once delivered, also when the target fails or times out (201 with `turn.error`). 409 when the session is closed, the campaign is not running, or turns_per_session is used up.',
  })
  @ApiCreatedResponse({ type: ExplorationTurnDto })
  @ApiNotFoundResponse({ description: 'Unknown session.' })
  @ApiConflictResponse({ description: BUDGET_409 })
  @ApiPayloadTooLargeResponse({ description: 'Message longer than EVAL_EXPLORATION_MESSAGE_MAX_CHARS.' })
  send(@Param('id', ParseUUIDPipe) id: string, @Body() body: SendExplorationMessageDto): Promise<ExplorationTurnDto> {
    return this.exploration.sendMessage(id, body);
  }

  @Post('sessions/:id/drive')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'driveExplorationSession',
    summary: 'Let the model play the virtual user',
    description:
      'For a `model` session: the model configuration gets persona, goal and transcript and writes the next message, which is delivered like a manual one; ' +
      'repeats until the model writes a line `[[DONE]]` (goal reached) or `[[GIVE_UP]]`, the session\'s turns run out, max_turns turns were played, or the target or model fails. ' +
      'Returns why it stopped and the turns delivered. 409 for a manual or closed session, a campaign not running, or no turns left.',
  })
  @ApiOkResponse({ type: DriveResultDto })
  @ApiBadRequestResponse({ description: 'max_turns above EVAL_EXPLORATION_MAX_DRIVE_TURNS.' })
  @ApiNotFoundResponse({ description: 'Unknown session.' })
  @ApiConflictResponse({ description: BUDGET_409 })
  drive(@Param('id', ParseUUIDPipe) id: string, @Body() body: DriveExplorationSessionDto): Promise<DriveResultDto> {
    return this.exploration.drive(id, body);
  }

  @Post('sessions/:id/close')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'closeExplorationSession',
    summary: 'Close an exploration session',
    description:
      'Stores the normalised experience record: persona, goal, turns, outcome (`goal_reached`, `abandoned`, `budget_exhausted`, `error`), latencies and notable replies. 409 when already closed.',
  })
  @ApiOkResponse({ type: ExplorationSessionDetailDto })
  @ApiNotFoundResponse({ description: 'Unknown session.' })
  @ApiConflictResponse({ description: 'The session is already closed.' })
  close(@Param('id', ParseUUIDPipe) id: string, @Body() body: CloseExplorationSessionDto): Promise<ExplorationSessionDetailDto> {
    return this.exploration.close(id, body);
  }
}
