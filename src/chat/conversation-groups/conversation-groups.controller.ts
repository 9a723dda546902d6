import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { UserConversationGroupDTO, UserConversationGroupPageQuery, UserConversationGroupPayload } from './conversation-group.dto';
import { ConversationGroupsService } from './conversation-groups.service';

/**
 * Conversation groups (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/userConversationGroups/{id}`),
 * plus the create and list the spec leaves out (`POST/GET {C}/userConversationGroups`). Success is 200 for every
 * operation (spec, Endpoints).
 */
@ApiTags('chat: conversations')
@Controller('api/:tenant/console/userConversationGroups')
@ChatAuth()
export class ConversationGroupsController {
  constructor(private readonly groups: ConversationGroupsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createUserConversationGroup',
    summary: 'Create a conversation group',
    description:
      'A conversation group configures how the digital staff converses in the conversations placed in it: a system prompt addition, the reply mode, delay, context size and length limit; its event definitions and triggers are managed under `{C}/conversationGroups/{groupId}/...`. The name is unique within the tenant (409).',
  })
  @ApiOkResponse({ type: UserConversationGroupDTO })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'The tenant already has a group with this name.' })
  create(@CurrentTenant() tenantId: string, @Body() body: UserConversationGroupPayload): Promise<UserConversationGroupDTO> {
    return this.groups.create(tenantId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageUserConversationGroups',
    summary: 'Page the tenant\'s conversation groups',
    description: 'Newest first. `name` filters by case-insensitive substring, `enabled` by state. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(UserConversationGroupDTO, 'Conversation groups of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: UserConversationGroupPageQuery): Promise<Page<UserConversationGroupDTO>> {
    return this.groups.list(tenantId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getUserConversationGroup', summary: 'Read a conversation group' })
  @ApiOkResponse({ type: UserConversationGroupDTO })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<UserConversationGroupDTO> {
    return this.groups.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateUserConversationGroup',
    summary: 'Replace a conversation group\'s settings',
    description: 'PUT replaces: optional fields left out take their defaults. Triggers, event definitions and conversations are kept.',
  })
  @ApiOkResponse({ type: UserConversationGroupDTO })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'Another group of the tenant has this name.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: UserConversationGroupPayload): Promise<UserConversationGroupDTO> {
    return this.groups.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteUserConversationGroup',
    summary: 'Delete a conversation group',
    description:
      'Deletes the group with its triggers and event definitions. Refused (409) while conversations (in any state), channels, switch_group triggers of other groups or group ways point at it; the message names them. To retire a group that has history, disable it instead (PUT with `enabled: false`).',
  })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiConflictResponse({ description: 'The group is still referenced (the message names by what).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.groups.remove(tenantId, id);
  }
}
