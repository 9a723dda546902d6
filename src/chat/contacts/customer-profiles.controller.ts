import { Body, Controller, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiParam, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { BasicCustomerProfile, CustomerProfileQuery, CustomerProfileUpdateRequest, ImproveCustomerInfoRequestV1, ImproveUserInfoRequestV1 } from './customer-profiles.dto';
import { CustomerProfilesService } from './customer-profiles.service';

const PROFILE_NAME_PARAM = ApiParam({ name: 'name', description: 'Profile name: a letter, then up to 63 letters, digits, "_", "." or "-".', example: 'basic' });

/**
 * Customer profiles and partner customer info (chat-management-api.md, Tenant API: `{T}/v1/customers/profiles/{name}`,
 * `{T}/v1/external/partner/customer/improveUserInfo|improveCustomerInfo`). A profile belongs to the customer and is
 * the same through every staff member who has them; partner info lands in the profile named `partner`.
 */
@ApiTags('chat: contacts')
@Controller('api/:tenant/v1')
@ChatAuth()
export class CustomerProfilesController {
  constructor(private readonly profiles: CustomerProfilesService) {}

  @Get('customers/profiles/:name')
  @PROFILE_NAME_PARAM
  @ApiOperation({
    operationId: 'getCustomerProfile',
    summary: 'Read a named profile of a customer',
    description: 'Name the customer by exactly one of customerId (platform external user id) or chatContactId (one of their contacts). A customer without a profile of that name → 404.',
  })
  @ApiOkResponse({ type: BasicCustomerProfile })
  @ApiBadRequestResponse({ description: 'Bad profile name, not exactly one of customerId / chatContactId, or a customer id found in several corps.' })
  get(@CurrentTenant() tenantId: string, @Param('name') name: string, @Query() query: CustomerProfileQuery): Promise<BasicCustomerProfile> {
    return this.profiles.get(tenantId, name, query);
  }

  @Post('customers/profiles/:name')
  @HttpCode(200)
  @PROFILE_NAME_PARAM
  @ApiOperation({
    operationId: 'postCustomerProfile',
    summary: 'Create or change a named profile of a customer',
    description: 'Merges `attributes` into the profile (null removes a key), or replaces it with `replace: true`. Written on every contact of the customer in one transaction.',
  })
  @ApiOkResponse({ description: 'Stored (no body).' })
  @ApiBadRequestResponse({ description: 'Bad profile name, not exactly one of customerId / chatContactId, or attributes not an object.' })
  @ApiPayloadTooLargeResponse({ description: 'The profile would exceed CHAT_CUSTOMER_PROFILE_MAX_BYTES.' })
  async update(@CurrentTenant() tenantId: string, @Param('name') name: string, @Body() body: CustomerProfileUpdateRequest): Promise<void> {
    await this.profiles.update(tenantId, name, body);
  }

  @Post('external/partner/customer/improveUserInfo')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    operationId: 'externalPartnerCustomerImproveUserInfo',
    summary: 'Improve a customer\'s info from a partner, by open id or union id',
    description: 'Merges the partner\'s fields into the customer\'s `partner` profile (read it with GET {T}/v1/customers/profiles/partner). A customer found by union id gets the open id when it has none. Returns the customer id (JSON string).',
  })
  @ApiOkResponse({ description: 'The customer id (platform external user id).', schema: { type: 'string', example: 'wmXXXXXXXXXXXXXXXX' } })
  @ApiBadRequestResponse({ description: 'Neither openId nor unionId, invalid fields, or several customers match without corpName.' })
  @ApiPayloadTooLargeResponse({ description: 'The partner profile would exceed CHAT_CUSTOMER_PROFILE_MAX_BYTES.' })
  async improveUserInfo(@CurrentTenant() tenantId: string, @Body() body: ImproveUserInfoRequestV1): Promise<string> {
    return JSON.stringify(await this.profiles.improveUserInfo(tenantId, body));
  }

  @Post('external/partner/customer/improveCustomerInfo')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    operationId: 'externalPartnerCustomerImproveCustomerInfo',
    summary: 'Improve a customer\'s info from a partner, by external user id',
    description: 'Merges the partner\'s fields into the customer\'s `partner` profile. Returns the customer id (JSON string).',
  })
  @ApiOkResponse({ description: 'The customer id (platform external user id).', schema: { type: 'string', example: 'wmXXXXXXXXXXXXXXXX' } })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiPayloadTooLargeResponse({ description: 'The partner profile would exceed CHAT_CUSTOMER_PROFILE_MAX_BYTES.' })
  async improveCustomerInfo(@CurrentTenant() tenantId: string, @Body() body: ImproveCustomerInfoRequestV1): Promise<string> {
    return JSON.stringify(await this.profiles.improveCustomerInfo(tenantId, body));
  }
}
