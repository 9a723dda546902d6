import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ConversationGroupTriggerDto, ConversationGroupTriggerPageQuery, ConversationGroupTriggerPayload } from './trigger.dto';
import { TriggersService } from './triggers.service';

/**
 * Triggers of a conversation group (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/conversationGroups/{groupId}/triggers/{id}`), plus create and list under the group. Success is 200 for every
 * operation (spec, Endpoints).
 */
@ApiTags('chat: conversations')
@Controller('api/:tenant/console/conversationGroups/:groupId/triggers')
@ChatAuth()
@ApiParam({ name: 'groupId', description: 'Id of the conversation group (UUID).', format: 'uuid' })
export class TriggersController {
  constructor(private readonly triggers: TriggersService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createConversationGroupTrigger',
    summary: 'Add a trigger to a conversation group',
    description:
      'When any of `eventDefinitionIds` occurs in a conversation of the group, the trigger performs its action. Event definitions must belong to the SAME group (400 names those that do not, and their group). Action fields must fit the action (400). At most CHAT_CONVERSATION_GROUP_MAX_TRIGGERS per group (409); the name is unique within the group (409).',
  })
  @ApiOkResponse({ type: ConversationGroupTriggerDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, fields that do not fit the action, event definitions of another group or unknown, unknown target group.' })
  @ApiConflictResponse({ description: 'The group has the most triggers allowed, or one with this name.' })
  create(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Body() body: ConversationGroupTriggerPayload): Promise<ConversationGroupTriggerDto> {
    return this.triggers.create(tenantId, groupId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageConversationGroupTriggers',
    summary: 'Page the triggers of a conversation group',
    description: 'In run order (priority ascending, then name) unless sorted otherwise. Sort fields: priority, name, createdAt, updatedAt. `action` and `enabled` filter. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ConversationGroupTriggerDto, 'Triggers of the group') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Query() query: ConversationGroupTriggerPageQuery): Promise<Page<ConversationGroupTriggerDto>> {
    return this.triggers.list(tenantId, groupId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getConversationGroupTrigger', summary: 'Read a trigger of a conversation group' })
  @ApiOkResponse({ type: ConversationGroupTriggerDto })
  @ApiBadRequestResponse({ description: 'An id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ConversationGroupTriggerDto> {
    return this.triggers.get(tenantId, groupId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateConversationGroupTrigger',
    summary: 'Replace a trigger of a conversation group',
    description: 'PUT replaces: optional fields left out take their defaults. The same checks as on creation.',
  })
  @ApiOkResponse({ type: ConversationGroupTriggerDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, fields that do not fit the action, event definitions of another group or unknown, unknown target group.' })
  @ApiConflictResponse({ description: 'Another trigger of the group has this name.' })
  update(
    @CurrentTenant() tenantId: string,
    @Param('groupId', ParseUUIDPipe) groupId: string,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: ConversationGroupTriggerPayload,
  ): Promise<ConversationGroupTriggerDto> {
    return this.triggers.update(tenantId, groupId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteConversationGroupTrigger', summary: 'Delete a trigger of a conversation group' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'An id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.triggers.remove(tenantId, groupId, id);
  }
}
