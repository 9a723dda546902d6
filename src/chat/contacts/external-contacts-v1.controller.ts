import { Body, Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import {
  BatchChangeStateRequestV1,
  BatchChangeStateResponseV1,
  ExternalContactAiReplyQueryV1,
  ExternalContactAiSwitchRequestV1,
  ExternalContactByExternalUserIdQueryRequestV1,
  ExternalContactByLastStatesPageQuery,
  ExternalContactByLastStatesQueryV1,
  ExternalContactByOpenIdQueryV1,
  ExternalContactDtoV1,
  UpdateExternalContactRemarkRequestV1,
} from './external-contacts.dto';
import { ExternalContactsService } from './external-contacts.service';

/**
 * External contacts in the v1 tenant API (chat-management-api.md, Tenant API: `{T}/v1/workChat/contact/external/…`
 * and `{T}/v1/workChat/contact/batchChangeState`). Contacts are named by corp name, staff member (userId) and
 * customer (externalUserId). Lookups are POST (bodies), so they need `chat:write` like every non-GET operation.
 */
@ApiTags('chat: contacts')
@Controller('api/:tenant/v1/workChat/contact')
@ChatAuth()
export class ExternalContactsV1Controller {
  constructor(private readonly contacts: ExternalContactsService) {}

  @Post('external/remark')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'updateExternalContactRemark',
    summary: 'Set a staff member\'s remark of a customer',
    description: 'Sets remark, description, company and/or remark mobiles on the chat platform, then on the stored contact. Give at least one of them; "" or [] clears a field.',
  })
  @ApiOkResponse({ description: 'Set (no body).' })
  @ApiBadRequestResponse({ description: 'No remark field, invalid fields, or the platform refused (problem with platformErrorCode).' })
  @ApiConflictResponse({ description: 'The corp is disabled.' })
  async updateRemark(@CurrentTenant() tenantId: string, @Body() body: UpdateExternalContactRemarkRequestV1): Promise<void> {
    await this.contacts.updateRemark(tenantId, body.corpName, body.userId, body.externalUserId, body);
  }

  @Post('external/byOpenId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'getWorkChatExternalContactByOpenIdV1',
    summary: 'Find a contact by open id',
    description: 'The contact of the given staff member (userId), else the customer\'s most recently active contact (last message, then last state, then newest).',
  })
  @ApiOkResponse({ type: ExternalContactDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  byOpenId(@CurrentTenant() tenantId: string, @Body() body: ExternalContactByOpenIdQueryV1): Promise<ExternalContactDtoV1> {
    return this.contacts.byOpenId(tenantId, body);
  }

  @Post('external/byLastStates')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'getWorkChatExternalContactByLastStatesV1',
    summary: 'Page a corp\'s contacts by last contact way state',
    description:
      'Contacts whose last state is one of `states`, optionally of one staff member and with the state set between startTime and endTime (yyyy-MM-dd HH:mm:ss, UTC, inclusive). ' +
      'Newest state first. Sort fields: lastStateAt, createdAt, addedAt, name. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ExternalContactDtoV1, 'Contacts in the states') })
  @ApiBadRequestResponse({ description: 'Invalid fields, too many states, a bad time filter or sort field.' })
  byLastStates(@CurrentTenant() tenantId: string, @Query() query: ExternalContactByLastStatesPageQuery, @Body() body: ExternalContactByLastStatesQueryV1): Promise<Page<ExternalContactDtoV1>> {
    return this.contacts.byLastStates(tenantId, body, query);
  }

  @Post('external/byExternalUserIds')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'getWorkChatExternalContactByExternalUserIdV1',
    summary: 'Find contacts by external user ids',
    description: 'Every contact of the given customers in the corp (one per staff member who has them), in the order of the ids; unknown ids are left out.',
  })
  @ApiOkResponse({ type: [ExternalContactDtoV1] })
  @ApiBadRequestResponse({ description: 'Invalid fields or too many ids.' })
  byExternalUserIds(@CurrentTenant() tenantId: string, @Body() body: ExternalContactByExternalUserIdQueryRequestV1): Promise<ExternalContactDtoV1[]> {
    return this.contacts.byExternalUserIds(tenantId, body);
  }

  @Get('external/ai/switch')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ operationId: 'getExternalContactAiReplyV1', summary: 'Read the AI reply switch of a contact', description: 'true: the digital staff replies to this customer.' })
  @ApiOkResponse({ description: 'The switch.', schema: { type: 'boolean', example: true } })
  @ApiBadRequestResponse({ description: 'Missing or invalid corpName, userId or externalUserId.' })
  getAi(@CurrentTenant() tenantId: string, @Query() query: ExternalContactAiReplyQueryV1): Promise<boolean> {
    return this.contacts.getAi(tenantId, query);
  }

  @Post('external/ai/switch')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ operationId: 'switchExternalContactAiV1', summary: 'Set the AI reply switch of a contact', description: 'Sets the switch to `enabled` (setting the current value is fine) and returns the stored value.' })
  @ApiOkResponse({ description: 'The switch now.', schema: { type: 'boolean', example: false } })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  setAi(@CurrentTenant() tenantId: string, @Body() body: ExternalContactAiSwitchRequestV1): Promise<boolean> {
    return this.contacts.setAi(tenantId, body, body.enabled);
  }

  @Post('batchChangeState')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'batchChangeState',
    summary: 'Move contacts to contact way states',
    description:
      'Each item moves one contact (staff member + customer) to the state of one of the corp\'s contact ways. Items are decided one by one: an unknown state or contact, or a contact named twice, ' +
      'fails that item with a reason and the others go on; a contact already in the state succeeds unchanged. The changes are written in one transaction; the last state time becomes now.',
  })
  @ApiOkResponse({ type: BatchChangeStateResponseV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, or more items than CHAT_CONTACT_BATCH_MAX_ITEMS.' })
  batchChangeState(@CurrentTenant() tenantId: string, @Body() body: BatchChangeStateRequestV1): Promise<BatchChangeStateResponseV1> {
    return this.contacts.batchChangeState(tenantId, body);
  }
}
