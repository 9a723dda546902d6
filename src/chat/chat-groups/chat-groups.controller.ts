import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ChatGroupDto, ChatGroupPageQuery, ChatGroupSaveRequest } from './chat-group.dto';
import { ChatGroupsService } from './chat-groups.service';

/** What a chat group is, as the operation descriptions say it. */
const WHAT =
  'A chat group is a team handling the chats of some channels: the digital staff answering first, the member staff users who take over, and how chats are routed to them. A channel belongs to at most one chat group (409).';

/**
 * Chat groups by id, tenant from the token (chat-management-api.md, "Paths without the tenant segment": `GET/PUT
 * /api/console/chat/group/{id}`), plus the delete the spec leaves out on the same path. Another tenant's id → 404.
 */
@ApiTags('chat: channels and chat groups')
@Controller('api/console/chat/group')
@ChatAuth({ tenant: 'token' })
export class ChatGroupsController {
  constructor(private readonly groups: ChatGroupsService) {}

  @Get(':id')
  @ApiOperation({ operationId: 'getChatGroup', summary: 'Read a chat group (tenant from the token)', description: WHAT })
  @ApiOkResponse({ type: ChatGroupDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ChatGroupDto> {
    return this.groups.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateChatGroup',
    summary: 'Replace a chat group (tenant from the token)',
    description: `${WHAT} PUT replaces: optional fields left out take their defaults (no channels, no members, no digital staff).`,
  })
  @ApiOkResponse({ type: ChatGroupDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, unknown channels, members or digital staff, caps, an enabled group with no one to answer.' })
  @ApiConflictResponse({ description: 'The name is taken, or a channel is handled by another group.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ChatGroupSaveRequest): Promise<ChatGroupDto> {
    return this.groups.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteChatGroup', summary: 'Delete a chat group (tenant from the token)', description: 'Its channels are then handled by no chat group.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.groups.remove(tenantId, id);
  }
}

/**
 * Creating and listing chat groups under the tenant's console path (`POST/GET {C}/chat/group`; not in the spec, the
 * create and list users need). Read, change and delete one group at `/api/console/chat/group/{id}`.
 */
@ApiTags('chat: channels and chat groups')
@Controller('api/:tenant/console/chat/group')
@ChatAuth()
export class TenantChatGroupsController {
  constructor(private readonly groups: ChatGroupsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createChatGroup', summary: 'Create a chat group', description: `${WHAT} The name is unique within the tenant (409).` })
  @ApiOkResponse({ type: ChatGroupDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, unknown channels, members or digital staff, caps, an enabled group with no one to answer.' })
  @ApiConflictResponse({ description: 'The name is taken, or a channel is handled by another group.' })
  create(@CurrentTenant() tenantId: string, @Body() body: ChatGroupSaveRequest): Promise<ChatGroupDto> {
    return this.groups.create(tenantId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageChatGroups',
    summary: 'Page the tenant\'s chat groups',
    description: 'Newest first. `name` (case-insensitive substring), `enabled`, `channelId` and `memberUserId` filter. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatGroupDto, 'Chat groups of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: ChatGroupPageQuery): Promise<Page<ChatGroupDto>> {
    return this.groups.list(tenantId, query);
  }
}
