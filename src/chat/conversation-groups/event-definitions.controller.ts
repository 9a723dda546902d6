import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ConversationGroupEventDefinitionDto, ConversationGroupEventDefinitionPageQuery, ConversationGroupEventDefinitionPayload } from './event-definition.dto';
import { EventDefinitionsService } from './event-definitions.service';

/**
 * Event definitions of a conversation group (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/conversationGroups/{groupId}/eventDefinitions/{id}`), plus create and list under the group. Success is 200 for
 * every operation (spec, Endpoints).
 */
@ApiTags('chat: conversations')
@Controller('api/:tenant/console/conversationGroups/:groupId/eventDefinitions')
@ChatAuth()
@ApiParam({ name: 'groupId', description: 'Id of the conversation group (UUID).', format: 'uuid' })
export class EventDefinitionsController {
  constructor(private readonly definitions: EventDefinitionsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createConversationGroupEventDefinition',
    summary: 'Add an event definition to a conversation group',
    description:
      'Something that can happen in a conversation of the group, for its triggers to react to. Condition fields depend on `eventType` (400 when one is missing or does not apply). At most CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS per group (409); the name is unique within the group (409).',
  })
  @ApiOkResponse({ type: ConversationGroupEventDefinitionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or condition fields that do not fit the event type.' })
  @ApiConflictResponse({ description: 'The group has the most event definitions allowed, or one with this name.' })
  create(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Body() body: ConversationGroupEventDefinitionPayload): Promise<ConversationGroupEventDefinitionDto> {
    return this.definitions.create(tenantId, groupId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageConversationGroupEventDefinitions',
    summary: 'Page the event definitions of a conversation group',
    description: 'By name unless sorted otherwise. Sort fields: name, createdAt, updatedAt. `eventType` filters. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ConversationGroupEventDefinitionDto, 'Event definitions of the group') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Query() query: ConversationGroupEventDefinitionPageQuery): Promise<Page<ConversationGroupEventDefinitionDto>> {
    return this.definitions.list(tenantId, groupId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getConversationGroupEventDefinition', summary: 'Read an event definition of a conversation group' })
  @ApiOkResponse({ type: ConversationGroupEventDefinitionDto })
  @ApiBadRequestResponse({ description: 'An id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ConversationGroupEventDefinitionDto> {
    return this.definitions.get(tenantId, groupId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateConversationGroupEventDefinition',
    summary: 'Replace an event definition of a conversation group',
    description: 'PUT replaces: optional fields left out take their defaults. Triggers using it keep using it.',
  })
  @ApiOkResponse({ type: ConversationGroupEventDefinitionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or condition fields that do not fit the event type.' })
  @ApiConflictResponse({ description: 'Another event definition of the group has this name.' })
  update(
    @CurrentTenant() tenantId: string,
    @Param('groupId', ParseUUIDPipe) groupId: string,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: ConversationGroupEventDefinitionPayload,
  ): Promise<ConversationGroupEventDefinitionDto> {
    return this.definitions.update(tenantId, groupId, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteConversationGroupEventDefinition',
    summary: 'Delete an event definition of a conversation group',
    description: 'Refused (409) while triggers of the group react to it; the message names them.',
  })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'An id is not a UUID.' })
  @ApiConflictResponse({ description: 'Triggers use the definition (named in the message).' })
  remove(@CurrentTenant() tenantId: string, @Param('groupId', ParseUUIDPipe) groupId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.definitions.remove(tenantId, groupId, id);
  }
}
