import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import type { ChatPrincipal } from '../auth/chat-principal';
import { pageResultSchema } from '../common/page-result';
import { ContactViewPageQuery, UserChatContactViewDto, UserChatContactViewRequest } from './contact-views.dto';
import { ContactViewsService } from './contact-views.service';

/**
 * Saved contact-list filters (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/userChatContactView/{id}`,
 * DELETE without a response body), plus the create and the paged list the spec leaves out. The owner of a view is
 * the access token's subject (`sub`; the client id for client-credentials tokens).
 */
@ApiTags('chat: contact views')
@Controller('api/:tenant/console/userChatContactView')
@ChatAuth()
export class ContactViewsController {
  constructor(private readonly views: ContactViewsService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageUserChatContactViews',
    summary: 'Page the contact views the caller sees',
    description: '`scope`: all (default; the caller\'s views and those others share), mine, shared. By name unless sorted; sort fields: name, createdAt, updatedAt. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(UserChatContactViewDto, 'Contact views visible to the caller') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or scope.' })
  list(@CurrentTenant() tenantId: string, @CurrentPrincipal() principal: ChatPrincipal, @Query() query: ContactViewPageQuery): Promise<Page<UserChatContactViewDto>> {
    return this.views.list(tenantId, principal.subject, query);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createUserChatContactView',
    summary: 'Save a contact view',
    description:
      'A named filter (conditions on contact fields joined by all/any) and sort for the contact list, owned by the caller. The filter is validated: known fields, operators that fit each field, values that fit each operator (400 naming each bad part). Names are unique per owner (409); at most CHAT_CONTACT_VIEW_MAX_PER_OWNER views per owner (409).',
  })
  @ApiOkResponse({ type: UserChatContactViewDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, filter or sort.' })
  @ApiConflictResponse({ description: 'Duplicate name for the owner, or the owner\'s view limit is reached.' })
  create(@CurrentTenant() tenantId: string, @CurrentPrincipal() principal: ChatPrincipal, @Body() body: UserChatContactViewRequest): Promise<UserChatContactViewDto> {
    return this.views.create(tenantId, principal.subject, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getUserChatContactView', summary: 'Read a contact view', description: 'The caller\'s own views and views others share; any other → 404.' })
  @ApiOkResponse({ type: UserChatContactViewDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @CurrentPrincipal() principal: ChatPrincipal, @Param('id', ParseUUIDPipe) id: string): Promise<UserChatContactViewDto> {
    return this.views.get(tenantId, principal.subject, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateUserChatContactView',
    summary: 'Replace a contact view',
    description: 'Replaces name, description, filter, sort and shared (omitted sort = none, omitted shared = false). Only the owner may (403 on a view someone else shares).',
  })
  @ApiOkResponse({ type: UserChatContactViewDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, filter or sort.' })
  @ApiForbiddenResponse({ description: 'The view is shared by someone else.' })
  @ApiConflictResponse({ description: 'The owner has another view with this name.' })
  update(
    @CurrentTenant() tenantId: string,
    @CurrentPrincipal() principal: ChatPrincipal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UserChatContactViewRequest,
  ): Promise<UserChatContactViewDto> {
    return this.views.update(tenantId, principal.subject, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteUserChatContactView', summary: 'Delete a contact view', description: 'Only the owner may (403 on a view someone else shares). No response body.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiForbiddenResponse({ description: 'The view is shared by someone else.' })
  remove(@CurrentTenant() tenantId: string, @CurrentPrincipal() principal: ChatPrincipal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.views.remove(tenantId, principal.subject, id);
  }
}
