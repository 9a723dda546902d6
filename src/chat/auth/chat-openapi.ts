import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAPIObject, SwaggerCustomOptions } from '@nestjs/swagger';
import { ChatAuthorizationServer } from './authorization-server';
import { CHAT_ACCESS, ChatCredentialStrategy } from './chat-auth.strategy';
import { CHAT_OAUTH_SCHEME } from './chat-auth.decorators';
import { CHAT_SCOPE_DESCRIPTIONS, PLATFORM_ADMIN_SCOPE, scopeForMethod } from './chat-scopes';
import { CHAT_OAUTH_MOUNT_PATH, CHAT_OAUTH_SETTINGS, ChatOAuthSettings } from './chat-oauth.settings';

/** Tags of the chat wing's operations, with their descriptions. */
export const CHAT_TAGS = [
  { name: 'chat: platform', description: 'Chat management service: tenants and OAuth2 clients, for the platform administrator (scope platform:admin)' },
  { name: 'chat: corps', description: 'Chat management service (chat-management-api.md): enterprise accounts (corps) linked to a tenant' },
];

/**
 * Swagger UI settings for the OAuth2 client-credentials flow: "Authorize" → client id and secret (sent as HTTP Basic)
 * → the token is kept across reloads. Ticking no scope asks for all of the client's scopes.
 */
export const CHAT_SWAGGER_UI_OPTIONS: NonNullable<SwaggerCustomOptions['swaggerOptions']> = { persistAuthorization: true };

/**
 * Adds the `oauth2` security scheme (client-credentials flow, token URL of the built-in server or the external
 * issuer, the chat scopes) and the chat tags to the document skeleton, before the operations are collected.
 */
export function addChatSecurityScheme(skeleton: Omit<OpenAPIObject, 'paths'>, app: INestApplication): void {
  const settings = app.get<ChatOAuthSettings>(CHAT_OAUTH_SETTINGS, { strict: false });
  const source =
    settings.mode === 'built-in'
      ? `the built-in authorization server (\`${settings.tokenUrl}\`, client_secret_basic or client_secret_post; metadata at \`/.well-known/oauth-authorization-server/oauth\`; create a client with \`atrium-chat client create --tenant <id>\`)`
      : `the issuer ${settings.issuer}`;
  skeleton.components ??= {};
  skeleton.components.securitySchemes ??= {};
  skeleton.components.securitySchemes[CHAT_OAUTH_SCHEME] = {
    type: 'oauth2',
    description:
      `Chat management service: an OAuth2 access token (JWT, audience \`${settings.audience}\`) from ${source}. ` +
      `The tenant comes from the \`${settings.tenantClaim}\` claim; GET needs chat:read, other methods chat:write, /api/platform/* platform:admin.`,
    flows: { clientCredentials: { tokenUrl: settings.tokenUrl, scopes: CHAT_SCOPE_DESCRIPTIONS } },
  };
  skeleton.tags = [...(skeleton.tags ?? []), ...CHAT_TAGS];
}

/**
 * Sets each chat operation's security requirement to the scope it needs (`chat:read` for GET, `chat:write` for
 * other methods, `platform:admin` on platform routes), mirroring ChatCredentialStrategy, so the document and the
 * runtime rule cannot drift apart.
 */
export function applyChatOperationScopes(document: OpenAPIObject): void {
  for (const operations of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(operations as Record<string, { 'x-atrium-auth'?: { credential?: string; permission?: string }; security?: unknown }>)) {
      const auth = operation?.['x-atrium-auth'];
      if (auth?.credential !== ChatCredentialStrategy.name) continue;
      const scope = auth.permission === CHAT_ACCESS.platformAdmin ? PLATFORM_ADMIN_SCOPE : scopeForMethod(method);
      operation.security = [{ [CHAT_OAUTH_SCHEME]: [scope] }];
    }
  }
}

/**
 * Mounts the built-in authorization server at `/oauth` and its RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server/oauth` (no-op with an external issuer). Call it before the JSON and form
 * body parsers: oidc-provider reads its own request bodies.
 */
export function mountChatAuthorizationServer(app: INestApplication): void {
  const server = app.get(ChatAuthorizationServer, { strict: false });
  if (server.handler) app.use(CHAT_OAUTH_MOUNT_PATH, server.handler);
  const { metadataHandler, metadataPath } = server;
  if (metadataHandler && metadataPath) {
    // Exactly that path (app.use would also match everything below it).
    app.use(metadataPath, (request: IncomingMessage & { url?: string }, response: ServerResponse, next: () => void) =>
      request.url === '/' || request.url === '' || request.url?.startsWith('/?') ? metadataHandler(request, response) : next(),
    );
  }
}
