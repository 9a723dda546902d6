import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { JsonBodyLimit } from '../../common/http/body-parsing';
import { Page, toPage } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CreateOrUpdateToolApiProviderRequest, ToolApiProviderDTO, ToolProviderPageQuery, toToolApiProviderDto } from './tool-providers.dto';
import { ToolProvidersService } from './tool-providers.service';

const WRITE_400 = 'Invalid fields (`errors[]` names each): base URL (scheme, credentials, query, a refused address), auth (missing secret, header name or username), timeout over CHAT_TOOL_MAX_TIMEOUT_MS, operations (shape, names, paths, input schemas).';
const WRITE_413 = 'An operation\'s input schema is over CHAT_TOOL_MAX_SCHEMA_BYTES of JSON.';

/**
 * Tool API providers (chat-management-api.md, Console endpoints: `GET, PUT, DELETE {C}/toolApiProviders/{id}`),
 * plus the create and list a user needs. The auth secret is write-only. Success is 200 for every operation.
 */
@ApiTags('chat: tool providers')
@Controller('api/:tenant/console/toolApiProviders')
@ChatAuth()
export class ToolProvidersController {
  constructor(private readonly providers: ToolProvidersService) {}

  @Post()
  @JsonBodyLimit('document') // operations × input schemas: up to CHAT_TOOL_MAX_OPERATIONS × CHAT_TOOL_MAX_SCHEMA_BYTES
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createToolApiProvider',
    summary: 'Create a tool API provider',
    description: 'An HTTP API whose operations (each with a JSON Schema of its input) the digital staff\'s model may call as functions. Calls use the provider\'s timeout and never go to loopback or private addresses unless CHAT_TOOL_ALLOW_PRIVATE_NETWORKS is true, and never to metadata, link-local or unspecified addresses or this server\'s own ports. The secret is write-only.',
  })
  @ApiOkResponse({ type: ToolApiProviderDTO })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiPayloadTooLargeResponse({ description: WRITE_413 })
  @ApiConflictResponse({ description: 'Another provider of the tenant has this name, or the tenant has CHAT_TOOL_MAX_PROVIDERS providers.' })
  async create(@CurrentTenant() tenantId: string, @Body() body: CreateOrUpdateToolApiProviderRequest): Promise<ToolApiProviderDTO> {
    return toToolApiProviderDto(await this.providers.create(tenantId, body));
  }

  @Get()
  @ApiOperation({ operationId: 'pageToolApiProviders', summary: 'Page the tenant\'s tool API providers', description: 'Newest first unless `sort` says otherwise. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.' })
  @ApiOkResponse({ type: pageResultSchema(ToolApiProviderDTO, 'Tool API providers') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  async list(@CurrentTenant() tenantId: string, @Query() query: ToolProviderPageQuery): Promise<Page<ToolApiProviderDTO>> {
    const { rows, ...slice } = await this.providers.list(tenantId, query);
    return toPage(rows.map(toToolApiProviderDto), slice, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getToolApiProvider', summary: 'Read a tool API provider', description: 'The secret is never returned (`auth.hasSecret` says whether one is stored).' })
  @ApiOkResponse({ type: ToolApiProviderDTO })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ToolApiProviderDTO> {
    return toToolApiProviderDto(await this.providers.get(tenantId, id));
  }

  @Put(':id')
  @JsonBodyLimit('document')
  @ApiOperation({
    operationId: 'updateToolApiProvider',
    summary: 'Change a tool API provider',
    description: 'The required fields (name, baseUrl, operations) are given again; omitted optional fields keep their value. Omit `auth.secret` to keep the stored secret (same auth type); type `none` clears it.',
  })
  @ApiOkResponse({ type: ToolApiProviderDTO })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiPayloadTooLargeResponse({ description: WRITE_413 })
  @ApiConflictResponse({ description: 'Another provider of the tenant has this name.' })
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: CreateOrUpdateToolApiProviderRequest): Promise<ToolApiProviderDTO> {
    return toToolApiProviderDto(await this.providers.update(tenantId, id, body));
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteToolApiProvider', summary: 'Delete a tool API provider' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.providers.remove(tenantId, id);
  }
}
