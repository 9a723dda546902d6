import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page, pageSchema } from '../../common/paging/page';
import { PlatformAdminAuth } from './chat-auth.decorators';
import { CreatedOAuthClientDto, CreateOAuthClientRequest, OAuthClientDto, OAuthClientPageQuery } from './oauth-clients.dto';
import { OAuthClientsService } from './oauth-clients.service';

/**
 * OAuth2 clients of the built-in authorization server, for the platform administrator (the same operations as
 * `atrium-chat client ...`). With an external issuer these clients are not used: clients live at that issuer.
 */
@ApiTags('chat: platform')
@Controller('api/platform/clients')
@PlatformAdminAuth()
export class PlatformClientsController {
  constructor(private readonly clients: OAuthClientsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createOAuthClient',
    summary: 'Create an OAuth2 client',
    description: 'A tenant client (`tenantId`, scopes chat:read/chat:write) or a platform-admin client (`platformAdmin: true`). The answer holds the client secret, shown this once and stored only as a hash.',
  })
  @ApiCreatedResponse({ type: CreatedOAuthClientDto })
  @ApiBadRequestResponse({ description: 'Neither or both of tenantId and platformAdmin; unknown scopes.' })
  @ApiNotFoundResponse({ description: 'Unknown tenant.' })
  @ApiConflictResponse({ description: 'The tenant is disabled.' })
  create(@Body() body: CreateOAuthClientRequest): Promise<CreatedOAuthClientDto> {
    return this.clients.create(body);
  }

  @Get()
  @ApiOperation({ operationId: 'pageOAuthClients', summary: 'Page the OAuth2 clients', description: 'Newest first, without secrets; filter by tenant; revoked ones only with includeRevoked.' })
  @ApiOkResponse({ type: pageSchema(OAuthClientDto, 'OAuth2 clients') })
  list(@Query() query: OAuthClientPageQuery): Promise<Page<OAuthClientDto>> {
    return this.clients.list(query);
  }

  @Delete(':clientId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeOAuthClient', summary: 'Revoke an OAuth2 client', description: 'The client gets no more tokens; tokens already issued stay valid until they expire (CHAT_OAUTH_TOKEN_TTL_S).' })
  @ApiParam({ name: 'clientId', description: 'Client id.', example: 'atc_3f9c2a7d1e0b4c5a8f6e2d1c' })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiNotFoundResponse({ description: 'Unknown client.' })
  revoke(@Param('clientId') clientId: string): Promise<void> {
    return this.clients.revoke(clientId);
  }
}
