import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page, pageSchema } from '../../common/paging/page';
import { PlatformAdminAuth } from '../auth/chat-auth.decorators';
import { CreateTenantRequest, TenantDto, TenantPageQuery, UpdateTenantRequest } from './tenants.dto';
import { TenantsService } from './tenants.service';

/** Tenants, for the platform administrator (issue 5, Tenancy: "an endpoint under a platform-admin scope"). */
@ApiTags('chat: platform')
@Controller('api/platform/tenants')
@PlatformAdminAuth()
export class PlatformTenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createTenant',
    summary: 'Create a tenant',
    description: 'The id is the slug of `/api/{tenant}/...`: 2..63 lowercase letters, digits and hyphens, starting with a letter, and not a fixed path segment of the API (`v1`, `console`, `runs`, …).',
  })
  @ApiCreatedResponse({ type: TenantDto })
  @ApiBadRequestResponse({ description: 'Invalid or reserved id, or invalid name.' })
  @ApiConflictResponse({ description: 'A tenant with this id exists.' })
  create(@Body() body: CreateTenantRequest): Promise<TenantDto> {
    return this.tenants.create(body);
  }

  @Get()
  @ApiOperation({ operationId: 'pageTenants', summary: 'Page the tenants', description: 'Newest first; filter by status; sort fields: createdAt, id, name.' })
  @ApiOkResponse({ type: pageSchema(TenantDto, 'Tenants') })
  list(@Query() query: TenantPageQuery): Promise<Page<TenantDto>> {
    return this.tenants.list(query);
  }

  @Get(':tenantId')
  @ApiOperation({ operationId: 'getTenant', summary: 'Read a tenant' })
  @ApiParam({ name: 'tenantId', description: 'Tenant id (slug).', example: 'acme' })
  @ApiOkResponse({ type: TenantDto })
  @ApiNotFoundResponse({ description: 'Unknown tenant.' })
  get(@Param('tenantId') tenantId: string): Promise<TenantDto> {
    return this.tenants.get(tenantId);
  }

  @Patch(':tenantId')
  @ApiOperation({
    operationId: 'updateTenant',
    summary: 'Rename, disable or enable a tenant',
    description: 'A disabled tenant keeps its data; its chat routes answer 403 and its clients get no new tokens until it is enabled again.',
  })
  @ApiParam({ name: 'tenantId', description: 'Tenant id (slug).', example: 'acme' })
  @ApiOkResponse({ type: TenantDto })
  @ApiNotFoundResponse({ description: 'Unknown tenant.' })
  update(@Param('tenantId') tenantId: string, @Body() body: UpdateTenantRequest): Promise<TenantDto> {
    return this.tenants.update(tenantId, body);
  }
}
