import { Body, Controller, Header, Param, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { ChangeCustomerRemarkRequestV1, RenameTagQuery } from './external-contacts.dto';
import { ExternalContactsService } from './external-contacts.service';

/**
 * The contact paths without a tenant segment (chat-management-api.md, "Paths without the tenant segment":
 * `PUT /api/v1/workChat/customer/{corpName}/remark`, `PUT /api/v1/workChat/tag/{workCorpId}/{id}`). They act for the
 * access token's one tenant; another tenant's corps answer 404.
 */
@ApiTags('chat: contacts')
@Controller('api/v1/workChat')
@ChatAuth({ tenant: 'token' })
export class WorkChatTenantlessController {
  constructor(private readonly contacts: ExternalContactsService) {}

  @Put('customer/:corpName/remark')
  @ApiParam({ name: 'corpName', description: 'Name of the corp (in the token\'s tenant).', example: 'Acme Retail' })
  @ApiOperation({
    operationId: 'changeCustomerRemarkV1',
    summary: 'Set a staff member\'s remark of a customer (tenant from the token)',
    description: 'As POST {T}/v1/workChat/contact/external/remark, with the corp in the path: sets the fields on the chat platform, then on the stored contact. Give at least one remark field.',
  })
  @ApiOkResponse({ description: 'Set (no body).' })
  @ApiBadRequestResponse({ description: 'No remark field, invalid fields, or the platform refused (problem with platformErrorCode).' })
  @ApiConflictResponse({ description: 'The corp is disabled.' })
  async changeRemark(@CurrentTenant() tenantId: string, @Param('corpName') corpName: string, @Body() body: ChangeCustomerRemarkRequestV1): Promise<void> {
    await this.contacts.updateRemark(tenantId, corpName, body.userId, body.externalUserId, body);
  }

  @Put('tag/:workCorpId/:id')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiParam({ name: 'workCorpId', description: 'The platform\'s corp id (WorkChatCorpRelateDto.workChatCorpId) of a corp in the token\'s tenant.', example: 'ww3f9c2a7d1e0b4c5a' })
  @ApiParam({ name: 'id', description: 'The platform\'s id of the tag or tag group.', example: 'etXXXXXXXXXX' })
  @ApiOperation({
    operationId: 'renameWorkChatTagV1',
    summary: 'Rename a tag or tag group (tenant from the token)',
    description: 'Renames the tag or tag group on the chat platform, then in the tags stored on the corp\'s contacts. Returns true.',
  })
  @ApiOkResponse({ description: 'Renamed.', schema: { type: 'boolean', example: true } })
  @ApiBadRequestResponse({ description: 'Invalid name, or the platform does not know the id (problem with platformErrorCode 40068).' })
  @ApiConflictResponse({ description: 'The name is taken on the platform (40071), or the corp is disabled.' })
  renameTag(@CurrentTenant() tenantId: string, @Param('workCorpId') workCorpId: string, @Param('id') id: string, @Query() query: RenameTagQuery): Promise<boolean> {
    return this.contacts.renameTag(tenantId, workCorpId, id, query.name);
  }
}
