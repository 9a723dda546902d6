import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CreateUserConversationRequest, UpdateUserConversationRequest, UserConversationDTO, UserConversationPageQuery } from './user-conversation.dto';
import { UserConversationsService } from './user-conversations.service';

/** The state graph, as the operation descriptions show it. */
const STATES = 'States: pending → active (activate); pending or active → terminated (terminate); terminated is final.';

/**
 * Conversations (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/userConversations/{id}`, `PUT
 * {C}/userConversations/{id}/terminate`, `PUT {C}/userConversations/{id}/activate`), plus the create and list the
 * spec leaves out (`POST/GET {C}/userConversations`). Success is 200 for every operation (spec, Endpoints).
 */
@ApiTags('chat: conversations')
@Controller('api/:tenant/console/userConversations')
@ChatAuth()
export class UserConversationsController {
  constructor(private readonly conversations: UserConversationsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createUserConversation',
    summary: 'Open a conversation with a contact',
    description: `Links a contact, its digital staff (default: the one bound to the contact's staff user) and an enabled conversation group. Created pending, or active with \`activate: true\`. A contact has at most one open (pending or active) conversation (409 names it). ${STATES}`,
  })
  @ApiOkResponse({ type: UserConversationDTO })
  @ApiBadRequestResponse({ description: 'Invalid fields; unknown contact, digital staff or group; no digital staff to default to.' })
  @ApiConflictResponse({ description: 'The group is disabled, or the contact already has an open conversation.' })
  create(@CurrentTenant() tenantId: string, @Body() body: CreateUserConversationRequest): Promise<UserConversationDTO> {
    return this.conversations.create(tenantId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageUserConversations',
    summary: 'Page the tenant\'s conversations',
    description: 'Newest first. Filters: contactId, status, conversationGroupId, digitalStaffId, open. Sort fields: createdAt, updatedAt, activatedAt, terminatedAt. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(UserConversationDTO, 'Conversations of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: UserConversationPageQuery): Promise<Page<UserConversationDTO>> {
    return this.conversations.list(tenantId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getUserConversation', summary: 'Read a conversation', description: 'With `allowedActions`, the state changes allowed now.' })
  @ApiOkResponse({ type: UserConversationDTO })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<UserConversationDTO> {
    return this.conversations.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateUserConversation',
    summary: 'Change an open conversation',
    description: 'Changes group, digital staff, subject or remark (omitted fields are kept; "" clears subject and remark). The status changes only through activate and terminate. A terminated conversation cannot be changed (409).',
  })
  @ApiOkResponse({ type: UserConversationDTO })
  @ApiBadRequestResponse({ description: 'Invalid fields, unknown group or digital staff.' })
  @ApiConflictResponse({ description: 'The conversation is terminated, or the new group is disabled.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateUserConversationRequest): Promise<UserConversationDTO> {
    return this.conversations.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteUserConversation', summary: 'Delete a conversation', description: 'Pending and terminated conversations can be deleted; an active one must be terminated first (409).' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiConflictResponse({ description: 'The conversation is active.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.conversations.remove(tenantId, id);
  }

  @Put(':id/activate')
  @ApiOperation({
    operationId: 'activateUserConversation',
    summary: 'Activate a conversation',
    description: `pending → active. Already active: returned unchanged (idempotent). Terminated: 409 naming the state and the allowed moves. ${STATES}`,
  })
  @ApiOkResponse({ type: UserConversationDTO })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiConflictResponse({ description: 'The conversation is terminated (final).' })
  activate(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<UserConversationDTO> {
    return this.conversations.transition(tenantId, id, 'activate');
  }

  @Put(':id/terminate')
  @ApiOperation({
    operationId: 'terminateUserConversation',
    summary: 'Terminate a conversation',
    description: `pending or active → terminated (final). Already terminated: returned unchanged (idempotent). ${STATES}`,
  })
  @ApiOkResponse({ type: UserConversationDTO })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  terminate(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<UserConversationDTO> {
    return this.conversations.transition(tenantId, id, 'terminate');
  }
}
