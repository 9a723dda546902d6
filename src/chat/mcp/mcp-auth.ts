import { applyDecorators, ForbiddenException, HttpStatus, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { PassportStrategy } from '@nestjs/passport';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiParam, ApiSecurity, ApiServiceUnavailableResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import { Authenticated, type CredentialCheckOptions } from '../../common/auth/auth.decorators';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CHAT_OAUTH_SCHEME } from '../auth/chat-auth.decorators';
import { CHAT_ACCESS, ChatCredentialStrategy, TENANT_PATH_PARAM } from '../auth/chat-auth.strategy';
import type { ChatPrincipal } from '../auth/chat-principal';
import { CHAT_READ_SCOPE, CHAT_WRITE_SCOPE } from '../auth/chat-scopes';
import { MCP_RESOURCE_PATH, mcpOriginAllowed, mcpResourceUrl } from '../auth/token-request-rules';
import { ProblemException } from '../../common/http/problem-details';
import { TENANT_SLUG_PATTERN } from '../tenants/tenant-slug';

/** Passport name of the MCP endpoint's strategy (issue 13 item 1). */
export const CHAT_MCP_STRATEGY = 'chat-mcp-bearer';

/** Path of the MCP endpoint below the tenant (`/api/{tenant}/mcp`). */
export const MCP_PATH = MCP_RESOURCE_PATH;
/** Prefix of the OAuth 2.0 Protected Resource Metadata documents (RFC 9728, section 3.1: inserted before the resource path). */
export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The MCP endpoint's URL of a tenant (the protected resource, RFC 9728 `resource`; RFC 8707 indicator). */
export { mcpResourceUrl };

/** Where the protected resource metadata of a tenant's MCP endpoint is served (RFC 9728, section 3.1). */
export function mcpResourceMetadataUrl(publicUrl: string, tenantId: string): string {
  return `${publicUrl}${PROTECTED_RESOURCE_METADATA_PREFIX}/api/${tenantId}/${MCP_PATH}`;
}

/**
 * The credential rule of the MCP endpoint `/api/{tenant}/mcp` (issue 6, "Tool-style endpoints": "same OAuth2 rules
 * as every chat route"). It is the chat wing's {@link ChatCredentialStrategy} (bearer JWT verified against the
 * issuer's keys, `{tenant}` in the token's tenant claim — 403 otherwise —, tenant existing and active) with one
 * difference: every MCP message is a POST, but the scope is decided per JSON-RPC method, so the door only asks for
 * `chat:read` (enough for `initialize` and `tools/list`) and the tools themselves refuse a `tools/call` without
 * `chat:write` (ChatMcpServerFactory). A 401 also carries `resource_metadata` (RFC 9728, section 5.1) in its
 * `WWW-Authenticate: Bearer` challenge, pointing MCP clients at the document that names the authorization server,
 * and so does a 403 for a missing scope (`error="insufficient_scope", scope="chat:read"`, issue 22 item 5).
 *
 * Issue 22 items 5 and 6: tokens issued for the endpoint's own RFC 8707 resource (`aud` =
 * `${CHAT_PUBLIC_URL}/api/{tenant}/mcp`) are accepted here besides the general audience (only here: the other chat
 * routes keep requiring CHAT_OAUTH_AUDIENCE); a request whose `Origin` is not in CHAT_MCP_ALLOWED_ORIGINS gets 403
 * before its token is looked at (DNS rebinding; a request without `Origin`, a non-browser client, is served).
 * Passport strategy `chat-mcp-bearer`; the token itself is verified by the chat strategy's one path.
 */
@Injectable()
export class McpCredentialStrategy extends PassportStrategy(CustomStrategy, CHAT_MCP_STRATEGY) {
  private chat?: ChatCredentialStrategy;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super({ passOptionsToCallback: true });
  }

  /**
   * @returns the chat principal (tenant from the path)
   * @throws ProblemException (403) an `Origin` not allowed; UnauthorizedException (401) no or bad token;
   *   ForbiddenException (403) token without `chat:read`, for another tenant, or a disabled tenant;
   *   NotFoundException (404) unknown tenant; 503 issuer keys unreachable
   */
  async validate(request: Request, options: CredentialCheckOptions = {}): Promise<ChatPrincipal> {
    const requirement = options.requirement ?? { strategy: McpCredentialStrategy };
    const origin = request.headers.origin;
    if (!mcpOriginAllowed(origin, this.config.chatMcp.allowedOrigins)) {
      throw new ProblemException(HttpStatus.FORBIDDEN, `Origin ${origin} may not call this MCP endpoint (CHAT_MCP_ALLOWED_ORIGINS).`);
    }
    const tenantId = request.params?.[TENANT_PATH_PARAM];
    const ownResource = typeof tenantId === 'string' && TENANT_SLUG_PATTERN.test(tenantId) ? [mcpResourceUrl(this.config.chatAuth.publicUrl, tenantId)] : [];
    try {
      return await this.chatStrategy().authenticateWithScope(
        request,
        { ...requirement, strategy: ChatCredentialStrategy, permission: CHAT_ACCESS.tenantFromPath },
        CHAT_READ_SCOPE,
        `The MCP endpoint needs the ${CHAT_READ_SCOPE} scope (and ${CHAT_WRITE_SCOPE} to call tools), which the token lacks.`,
        ownResource,
      );
    } catch (error) {
      if (error instanceof UnauthorizedException || (error instanceof ForbiddenException && this.isScopeChallenge(request))) this.addResourceMetadata(request);
      throw error;
    }
  }

  /** Whether the strategy set an insufficient_scope challenge (a 403 for a missing scope, not for a tenant). */
  private isScopeChallenge(request: Request): boolean {
    const challenge = request.res?.getHeader('WWW-Authenticate');
    return typeof challenge === 'string' && challenge.includes('error="insufficient_scope"');
  }

  private chatStrategy(): ChatCredentialStrategy {
    this.chat ??= this.moduleRef.get(ChatCredentialStrategy, { strict: false });
    return this.chat;
  }

  /** Appends `resource_metadata="…"` to the Bearer challenge ChatCredentialStrategy set. */
  private addResourceMetadata(request: Request): void {
    const tenantId = request.params?.[TENANT_PATH_PARAM];
    const response = request.res;
    if (!response || typeof tenantId !== 'string' || !TENANT_SLUG_PATTERN.test(tenantId)) return;
    const challenge = response.getHeader('WWW-Authenticate');
    const base = typeof challenge === 'string' && challenge.startsWith('Bearer') ? challenge : 'Bearer realm="atrium-chat"';
    response.setHeader('WWW-Authenticate', `${base}, resource_metadata="${mcpResourceMetadataUrl(this.config.chatAuth.publicUrl, tenantId)}"`);
  }
}

/**
 * Declares the MCP endpoint's access rule ({@link McpCredentialStrategy}, tenant from the path) and writes its OpenAPI
 * security entry (`oauth2` with `chat:read`; `tools/call` needs `chat:write`, said in the operation), the `{tenant}`
 * parameter and the 401/403/404/503 responses, as ChatAuth does for the other chat routes.
 */
export function McpAuth() {
  return applyDecorators(
    Authenticated(McpCredentialStrategy, { permission: CHAT_ACCESS.tenantFromPath }),
    ApiSecurity(CHAT_OAUTH_SCHEME, [CHAT_READ_SCOPE]),
    ApiServiceUnavailableResponse({ description: 'The external token issuer\'s signing keys cannot be fetched (problem+json).' }),
    ApiUnauthorizedResponse({ description: 'No or bad access token (problem+json; `WWW-Authenticate: Bearer …, resource_metadata="…"`).' }),
    ApiForbiddenResponse({
      description:
        'An `Origin` not in CHAT_MCP_ALLOWED_ORIGINS, a token for another tenant or a disabled tenant, or a token without chat:read (`WWW-Authenticate: Bearer error="insufficient_scope", scope="chat:read", resource_metadata="…"`) (problem+json).',
    }),
    ApiParam({ name: TENANT_PATH_PARAM, description: 'Tenant id (slug); the access token\'s tenant claim must include it.', example: 'acme', schema: { type: 'string', pattern: '^[a-z][a-z0-9-]{1,62}$' } }),
    ApiNotFoundResponse({ description: 'Unknown tenant (problem+json).' }),
  );
}
