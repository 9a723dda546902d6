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
  CreateIntelligentSessionDto,
  IntelligentMessageDto,
  IntelligentMessageQueryDto,
  IntelligentSessionDto,
  IntelligentSessionQueryDto,
  PostIntelligentMessageDto,
} from './intelligent-evaluations.dto';
import { IntelligentSessionsService } from './intelligent-sessions.service';

/**
 * Sessions and messages of an intelligent evaluation (evaluation-platform.md, Intelligent evaluation: "has
 * sessions and messages"; paths not named by the spec). Report findings cite them as evidence.
 */
@ApiTags('evaluation: intelligent evaluation')
@Controller('api/intelligent-evaluations/:id/sessions')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class IntelligentSessionsController {
  constructor(private readonly sessions: IntelligentSessionsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createIntelligentSession',
    summary: 'Open a session',
    description: '`planning` sessions open in any non-terminal state; `execution` sessions only while the evaluation is `executing` (after approval). A terminal evaluation, or an execution session before approval → 409.',
  })
  @ApiCreatedResponse({ type: IntelligentSessionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiNotFoundResponse({ description: 'Unknown evaluation.' })
  @ApiConflictResponse({ description: 'The evaluation is terminal, or an execution session before approval.' })
  create(@Param('id', ParseUUIDPipe) id: string, @Body() body: CreateIntelligentSessionDto): Promise<IntelligentSessionDto> {
    return this.sessions.create(id, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listIntelligentSessions', summary: 'List the sessions of an evaluation', description: 'Oldest first; filter by `status`, `kind`; sortable by createdAt.' })
  @ApiOkResponse({ type: pageSchema(IntelligentSessionDto, 'Sessions') })
  @ApiNotFoundResponse({ description: 'Unknown evaluation.' })
  list(@Param('id', ParseUUIDPipe) id: string, @Query() query: IntelligentSessionQueryDto): Promise<Page<IntelligentSessionDto>> {
    return this.sessions.list(id, query);
  }

  @Get(':session_id')
  @ApiOperation({ operationId: 'getIntelligentSession', summary: 'Read a session' })
  @ApiOkResponse({ type: IntelligentSessionDto })
  @ApiNotFoundResponse({ description: 'Unknown evaluation, or no such session in it.' })
  get(@Param('id', ParseUUIDPipe) id: string, @Param('session_id', ParseUUIDPipe) sessionId: string): Promise<IntelligentSessionDto> {
    return this.sessions.get(id, sessionId);
  }

  @Post(':session_id/close')
  @HttpCode(200)
  @ApiOperation({ operationId: 'closeIntelligentSession', summary: 'Close a session', description: 'Final: a closed session accepts no more messages. Already closed → 409. Sessions also close when the evaluation ends.' })
  @ApiOkResponse({ type: IntelligentSessionDto })
  @ApiNotFoundResponse({ description: 'Unknown evaluation or session.' })
  @ApiConflictResponse({ description: 'The session is already closed.' })
  close(@Param('id', ParseUUIDPipe) id: string, @Param('session_id', ParseUUIDPipe) sessionId: string): Promise<IntelligentSessionDto> {
    return this.sessions.close(id, sessionId);
  }

  @Post(':session_id/messages')
  @ApiOperation({
    operationId: 'postIntelligentMessage',
    summary: 'Post a message to a session',
    description: 'Roles: planner, executor, target, user, system. A closed session, a terminal evaluation, or a full session (EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION) → 409; content or metadata over EVAL_INTELLIGENT_MAX_MESSAGE_CHARS → 413.',
  })
  @ApiCreatedResponse({ type: IntelligentMessageDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiNotFoundResponse({ description: 'Unknown evaluation or session.' })
  @ApiConflictResponse({ description: 'The session is closed or full, or the evaluation is terminal.' })
  @ApiPayloadTooLargeResponse({ description: 'Content or metadata too long.' })
  postMessage(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('session_id', ParseUUIDPipe) sessionId: string,
    @Body() body: PostIntelligentMessageDto,
  ): Promise<IntelligentMessageDto> {
    return this.sessions.postMessage(id, sessionId, body);
  }

  @Get(':session_id/messages')
  @ApiOperation({ operationId: 'listIntelligentMessages', summary: 'List the messages of a session', description: 'Oldest first; filter by `role`; sortable by createdAt.' })
  @ApiOkResponse({ type: pageSchema(IntelligentMessageDto, 'Messages') })
  @ApiNotFoundResponse({ description: 'Unknown evaluation or session.' })
  listMessages(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('session_id', ParseUUIDPipe) sessionId: string,
    @Query() query: IntelligentMessageQueryDto,
  ): Promise<Page<IntelligentMessageDto>> {
    return this.sessions.listMessages(id, sessionId, query);
  }
}
