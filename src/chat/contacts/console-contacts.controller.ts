import { Body, Controller, Get, Header, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ChatContactsExternalDto, ChatContactsExternalPageQuery, ChatContactsExternalRequest } from './external-contacts.dto';
import { ExternalContactsService } from './external-contacts.service';

/** Path parameter of the staff member (platform userid) on the console contact paths. */
export const STAFF_PARAM = ApiParam({ name: 'workChatUserId', description: 'The staff member (platform userid) whose contact it is.', example: 'zhangsan' });
/** Path parameter of a contact or room id. */
export const CONTACT_ID_PARAM = ApiParam({ name: 'contactId', description: 'Contact id (UUID).', format: 'uuid' });

/**
 * A staff member's external contacts in the console (chat-management-api.md, Console endpoints:
 * `GET, PUT {C}/workChat/{workChatUserId}/contact/external/{contactId}`, `POST …/external/{contactId}/ai/switch`),
 * plus the list of the staff member's contacts the spec leaves out. A contact of another staff member or tenant
 * answers 404. The `ai-intervene` route on this path belongs to the messages area.
 */
@ApiTags('chat: contacts')
@Controller('api/:tenant/console/workChat/:workChatUserId/contact/external')
@ChatAuth()
@STAFF_PARAM
export class ConsoleContactsController {
  constructor(private readonly contacts: ExternalContactsService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageChatContactsExternal',
    summary: 'Page a staff member\'s contacts',
    description:
      'Newest first. Filters: corpId, keyword (name or remark contains, or the external user id), state, aiEnabled, startCreateTime / endCreateTime (yyyy-MM-dd HH:mm:ss, UTC). ' +
      'Sort fields: createdAt, updatedAt, addedAt, stateAt, name, lastMessageAt. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatContactsExternalDto, 'Contacts of the staff member') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Query() query: ChatContactsExternalPageQuery): Promise<Page<ChatContactsExternalDto>> {
    return this.contacts.listForStaff(tenantId, workChatUserId, query);
  }

  @Get(':contactId')
  @CONTACT_ID_PARAM
  @ApiOperation({ operationId: 'getChatContactsExternal', summary: 'Read a contact of a staff member' })
  @ApiOkResponse({ type: ChatContactsExternalDto })
  @ApiBadRequestResponse({ description: 'contactId is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Param('contactId', ParseUUIDPipe) contactId: string): Promise<ChatContactsExternalDto> {
    return this.contacts.getForStaff(tenantId, workChatUserId, contactId);
  }

  @Put(':contactId')
  @CONTACT_ID_PARAM
  @ApiOperation({
    operationId: 'updateChatContactsExternal',
    summary: 'Change a contact of a staff member',
    description:
      'Omitted fields are kept. remark, description, remarkCompany and mobile are the platform\'s remark fields: they are set on the chat platform first ' +
      '(a refusal answers with the platform\'s error and changes nothing); openId and aiEnabled are kept by Atrium.',
  })
  @ApiOkResponse({ type: ChatContactsExternalDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or the platform refused the remark (problem with platformErrorCode).' })
  @ApiConflictResponse({ description: 'The contact\'s corp is disabled.' })
  update(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId', ParseUUIDPipe) contactId: string,
    @Body() body: ChatContactsExternalRequest,
  ): Promise<ChatContactsExternalDto> {
    return this.contacts.updateForStaff(tenantId, workChatUserId, contactId, body);
  }

  @Post(':contactId/ai/switch')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @CONTACT_ID_PARAM
  @ApiOperation({
    operationId: 'switchChatContactsExternalAi',
    summary: 'Toggle the AI reply of a contact',
    description: 'No body: flips the switch atomically (concurrent calls each flip once) and returns the new value (true = the digital staff replies).',
  })
  @ApiOkResponse({ description: 'The new value of the switch.', schema: { type: 'boolean', example: false } })
  @ApiBadRequestResponse({ description: 'contactId is not a UUID.' })
  toggleAi(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Param('contactId', ParseUUIDPipe) contactId: string): Promise<boolean> {
    return this.contacts.toggleAi(tenantId, workChatUserId, contactId);
  }
}
