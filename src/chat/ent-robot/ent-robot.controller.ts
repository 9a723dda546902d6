import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBadGatewayResponse,
  ApiConflictResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { EntRobotChatGroupDto, EntRobotChatGroupPageQuery, EntRobotChatGroupRequestV1, EntRobotChatMessageLogDto, EntRobotChatMessageSendRequestV1, EntRobotMessageLogPageQuery } from './ent-robot.dto';
import { EntRobotService } from './ent-robot.service';

/**
 * Enterprise robot (chat-management-api.md, Tenant API: `POST {T}/v1/entrobot/group` and
 * `POST {T}/v1/entrobot/message/sendMsg`), plus the list, read, update and delete of robot chat groups and the
 * message log the spec leaves out (`GET {T}/v1/entrobot/group`, `GET/PUT/DELETE {T}/v1/entrobot/group/{id}`,
 * `GET {T}/v1/entrobot/group/{id}/messages`). Success is 200 for every operation (spec, Endpoints).
 */
@ApiTags('chat: enterprise robot')
@Controller('api/:tenant/v1/entrobot')
@ChatAuth()
export class EntRobotController {
  constructor(private readonly robots: EntRobotService) {}

  @Post('group')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'postEntRobotChatGroup',
    summary: 'Register a robot chat group',
    description:
      'A group chat with a webhook robot, registered by the robot\'s webhook key (the `key=` value of its webhook address). The key is write-only: it is stored to send and never returned; responses carry `keyHint`. The name is unique within the tenant (409).',
  })
  @ApiOkResponse({ type: EntRobotChatGroupDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, no webhook key, unknown corp.' })
  @ApiConflictResponse({ description: 'The name is taken.' })
  create(@CurrentTenant() tenantId: string, @Body() body: EntRobotChatGroupRequestV1): Promise<EntRobotChatGroupDto> {
    return this.robots.create(tenantId, body);
  }

  @Get('group')
  @ApiOperation({ operationId: 'pageEntRobotChatGroups', summary: 'Page the tenant\'s robot chat groups', description: 'Newest first. `name` (case-insensitive substring) and `enabled` filter. Sort fields: createdAt, updatedAt, name.' })
  @ApiOkResponse({ type: pageResultSchema(EntRobotChatGroupDto, 'Robot chat groups of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: EntRobotChatGroupPageQuery): Promise<Page<EntRobotChatGroupDto>> {
    return this.robots.list(tenantId, query);
  }

  @Get('group/:id')
  @ApiOperation({ operationId: 'getEntRobotChatGroup', summary: 'Read a robot chat group' })
  @ApiOkResponse({ type: EntRobotChatGroupDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<EntRobotChatGroupDto> {
    return this.robots.get(tenantId, id);
  }

  @Put('group/:id')
  @ApiOperation({ operationId: 'updateEntRobotChatGroup', summary: 'Replace a robot chat group', description: 'PUT replaces: optional fields left out take their defaults, except `webhookKey` (omitted = kept).' })
  @ApiOkResponse({ type: EntRobotChatGroupDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, unknown corp.' })
  @ApiConflictResponse({ description: 'The name is taken.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: EntRobotChatGroupRequestV1): Promise<EntRobotChatGroupDto> {
    return this.robots.update(tenantId, id, body);
  }

  @Delete('group/:id')
  @ApiOperation({ operationId: 'deleteEntRobotChatGroup', summary: 'Delete a robot chat group', description: 'Deletes the group and its message log.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.robots.remove(tenantId, id);
  }

  @Get('group/:id/messages')
  @ApiOperation({ operationId: 'pageEntRobotChatMessages', summary: 'Page the message log of a robot chat group', description: 'Messages sent or attempted through the group, newest first: type, size in bytes, mentions, outcome and the platform\'s error (the content is not kept). Sort field: createdAt.' })
  @ApiOkResponse({ type: pageResultSchema(EntRobotChatMessageLogDto, 'Robot messages of the group') })
  @ApiBadRequestResponse({ description: 'The id is not a UUID; invalid page, size or sort.' })
  messages(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Query() query: EntRobotMessageLogPageQuery): Promise<Page<EntRobotChatMessageLogDto>> {
    return this.robots.messages(tenantId, id, query);
  }

  @Post('message/sendMsg')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'postEntRobotChatMessageSend',
    summary: 'Send a message through a robot chat group',
    description:
      'Posts `text` (may @-mention user ids or mobiles) or `markdown` through the group\'s robot webhook on the enterprise chat platform. Content is checked first: blank or mentions on markdown → 400, over CHAT_ENT_ROBOT_TEXT_MAX_BYTES / CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES (UTF-8 bytes) → 413. Unknown group → 404, disabled group → 409. A platform refusal is answered with its problem details (`platformErrorCode`, `platformErrorMessage`; e.g. an invalid webhook key → 400). Every attempt is logged (`GET …/group/{id}/messages`).',
  })
  @ApiOkResponse({ description: 'Sent (no body).' })
  @ApiBadRequestResponse({ description: 'Invalid fields, blank content, mentions on markdown, too many mentions, or the platform refused the input (e.g. errcode 93000: invalid webhook key).' })
  @ApiConflictResponse({ description: 'The group is disabled.' })
  @ApiPayloadTooLargeResponse({ description: 'The content is over the type\'s byte limit.' })
  @ApiBadGatewayResponse({ description: 'The chat platform failed (problem details with the platform\'s error).' })
  send(@CurrentTenant() tenantId: string, @Body() body: EntRobotChatMessageSendRequestV1): Promise<void> {
    return this.robots.send(tenantId, body);
  }
}
