import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { API_KEY_NAME_PATTERN } from './api-key.format';
import { ApiKeyDto, ApiKeyQueryDto, CreateApiKeyDto, CreatedApiKeyDto, toApiKeyDto } from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';
import { EVAL_ADMIN_PERMISSION, EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy, EvaluationPrincipal } from './evaluation-auth';

/**
 * Named evaluation API keys (issue 19 item 6; paths not in the spec). Needs the admin right: a session from
 * sign-in, or a key with `admin: true` (every key seeded from EVAL_API_KEYS has it).
 */
@ApiTags('evaluation')
@Controller('api/auth/api-keys')
@Authenticated(EvaluationCredentialStrategy, { permission: EVAL_ADMIN_PERMISSION, securityScheme: EVAL_SECURITY_SCHEMES })
@ApiTooManyRequestsResponse({ description: 'Too many wrong API keys from this address; `Retry-After` gives the seconds to wait.' })
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Create a named API key', description: 'Returns the key once; only its SHA-256 is stored. 400 bad or `env-<n>` name; 409 name already used (also by a revoked key); 403 a key without the admin right.' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiBadRequestResponse({ description: 'Invalid name or fields (problem+json).' })
  @ApiConflictResponse({ description: 'The name is taken (problem+json).' })
  async create(@Body() body: CreateApiKeyDto, @CurrentPrincipal() principal: EvaluationPrincipal): Promise<CreatedApiKeyDto> {
    const { entity, key } = await this.apiKeys.create(body.name, body.admin ?? false, principal.subject);
    return { ...toApiKeyDto(entity), key };
  }

  @Get()
  @ApiOperation({ summary: 'List named API keys', description: 'Never shows key values. Live keys only unless `include_revoked=true`; newest first; sortable by name, createdAt, lastUsedAt.' })
  @ApiOkResponse({ type: pageSchema(ApiKeyDto, 'API keys') })
  async list(@Query() query: ApiKeyQueryDto): Promise<Page<ApiKeyDto>> {
    const page = await this.apiKeys.list(query, query.include_revoked ?? false);
    return { ...page, content: page.content.map(toApiKeyDto) };
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Revoke a named API key', description: 'Refused from the next request on, on every instance (no cache). Revoking again changes nothing. A key seeded from EVAL_API_KEYS stays revoked at restart while its value is unchanged.' })
  @ApiParam({ name: 'name', schema: { type: 'string', pattern: API_KEY_NAME_PATTERN.source } })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ description: 'No key of that name (problem+json).' })
  async revoke(@Param('name') name: string, @CurrentPrincipal() principal: EvaluationPrincipal): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.apiKeys.revoke(name, principal.subject));
  }
}
