import { applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiNotFoundResponse, ApiParam, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { CHAT_ACCESS, ChatCredentialStrategy, TENANT_PATH_PARAM } from './chat-auth.strategy';
import type { ChatPrincipal } from './chat-principal';

/** OpenAPI security scheme of every chat operation (chat-management-api.md, Authentication: "oauth2"). */
export const CHAT_OAUTH_SCHEME = 'oauth2';

/**
 * Declares a chat controller or route (issue 5, Tenancy and OAuth2): an OAuth2 bearer JWT with `chat:read` (GET) or
 * `chat:write` (other methods), for a tenant the request acts for.
 * - `tenant: 'path'` (default): the route has a `{tenant}` segment (`/api/{tenant}/...`, `/api/v1/{tenant}/...`);
 *   the token must name that tenant (403), which must exist (404) and be active (403).
 * - `tenant: 'token'`: routes without a tenant segment (`/api/v1/workChat/...`, `/api/console/chat/...`) act for
 *   the token's one tenant; a token naming none or several gets 403. Look objects up by (tenant, id) so another
 *   tenant's ids answer 404.
 * Controllers read the tenant with {@link CurrentTenant}. Writes the `oauth2` security entry (scopes per method
 * are filled in by chat-openapi.ts), the `{tenant}` parameter and the 401/403/404/503 responses.
 */
export function ChatAuth(options: { tenant: 'path' | 'token' } = { tenant: 'path' }) {
  const fromPath = options.tenant === 'path';
  return applyDecorators(
    Authenticated(ChatCredentialStrategy, { permission: fromPath ? CHAT_ACCESS.tenantFromPath : CHAT_ACCESS.tenantFromToken, securityScheme: CHAT_OAUTH_SCHEME }),
    ApiServiceUnavailableResponse({ description: 'The external token issuer\'s signing keys cannot be fetched (problem+json).' }),
    ...(fromPath
      ? [
          ApiParam({ name: TENANT_PATH_PARAM, description: 'Tenant id (slug); the access token\'s tenant claim must include it.', example: 'acme', schema: { type: 'string', pattern: '^[a-z][a-z0-9-]{1,62}$' } }),
          ApiNotFoundResponse({ description: 'Unknown tenant, or an unknown id within the tenant (problem+json).' }),
        ]
      : [ApiNotFoundResponse({ description: 'Unknown id within the token\'s tenant (problem+json).' })]),
  );
}

/** Declares a platform-administrator route (`/api/platform/*`): an OAuth2 bearer JWT with the `platform:admin` scope. */
export function PlatformAdminAuth() {
  return applyDecorators(
    Authenticated(ChatCredentialStrategy, { permission: CHAT_ACCESS.platformAdmin, securityScheme: CHAT_OAUTH_SCHEME }),
    ApiServiceUnavailableResponse({ description: 'The external token issuer\'s signing keys cannot be fetched (problem+json).' }),
  );
}

/**
 * Injects the id of the tenant the request acts for, resolved by {@link ChatAuth} (path segment or the token's one
 * tenant). Services filter every query by it.
 * @throws Error on a route not declared with ChatAuth (a programming error)
 */
export const CurrentTenant = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const principal = context.switchToHttp().getRequest<Request & { principal?: ChatPrincipal }>().principal;
  if (principal?.kind !== 'chat-token' || !principal.tenantId) throw new Error('@CurrentTenant() needs a route declared with @ChatAuth().');
  return principal.tenantId;
});
