import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAPIObject, SwaggerCustomOptions } from '@nestjs/swagger';
import { OperatorSignInRegistry } from '../../common/ports/operator-sign-in';
import { ChatAuthorizationServer } from './authorization-server';
import { CHAT_ACCESS, ChatCredentialStrategy } from './chat-auth.strategy';
import { CHAT_OAUTH_SCHEME } from './chat-auth.decorators';
import { CHAT_SCOPE_DESCRIPTIONS, PLATFORM_ADMIN_SCOPE, scopeForMethod } from './chat-scopes';
import { CHAT_OAUTH_MOUNT_PATH, CHAT_OAUTH_SETTINGS, ChatOAuthSettings } from './chat-oauth.settings';
import { SWAGGER_UI_CLIENT_ID, swaggerRedirectUri } from './operator-authorization';

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
 * Whether the built-in server serves operators the authorization-code flow (issue 13 item 2): built-in mode and
 * operator single sign-on configured (EVAL_SSO_CLIENT_ID, seen through the operator sign-in port).
 */
export function operatorFlowOn(app: INestApplication): boolean {
  const settings = app.get<ChatOAuthSettings>(CHAT_OAUTH_SETTINGS, { strict: false });
  return settings.mode === 'built-in' && app.get(OperatorSignInRegistry, { strict: false }).enabledStarter() !== undefined;
}

/**
 * Swagger UI's settings: {@link CHAT_SWAGGER_UI_OPTIONS}, and with the operator flow on, the authorization-code flow
 * with PKCE for the built-in `atrium-swagger-ui` client (no secret), returning to `/docs/oauth2-redirect.html` of
 * CHAT_PUBLIC_URL (the client's one redirect URI: open Swagger UI there), CHAT_OAUTH_OPERATOR_SCOPES ticked.
 */
export function chatSwaggerUiOptions(app: INestApplication, operatorScopes: readonly string[]): NonNullable<SwaggerCustomOptions['swaggerOptions']> {
  if (!operatorFlowOn(app)) return { ...CHAT_SWAGGER_UI_OPTIONS };
  const settings = app.get<ChatOAuthSettings>(CHAT_OAUTH_SETTINGS, { strict: false });
  return {
    ...CHAT_SWAGGER_UI_OPTIONS,
    oauth2RedirectUrl: swaggerRedirectUri(settings.publicUrl),
    initOAuth: { clientId: SWAGGER_UI_CLIENT_ID, usePkceWithAuthorizationCodeGrant: true, scopes: [...operatorScopes] },
  };
}

/**
 * Browser policy of Swagger UI's OAuth2 popup (issue 13 item 2), with the operator flow on: "Authorize" opens the
 * authorization server in a popup that, after the identity provider, lands on `/docs/oauth2-redirect.html`, which
 * hands the code to its opener (`window.opener`). Helmet's `Cross-Origin-Opener-Policy: same-origin` would cut that
 * link as soon as the popup leaves the origin, so `/docs` keeps its opener isolation but allows popups
 * (`same-origin-allow-popups`) and the redirect page sends none (`unsafe-none`; another origin that opened it still
 * cannot read it). Mount after the static security headers.
 * @returns the middleware, or undefined when the operator flow is off (nothing changes)
 */
export function swaggerAuthorizePopupPolicy(app: INestApplication): ((request: IncomingMessage, response: ServerResponse, next: () => void) => void) | undefined {
  if (!operatorFlowOn(app)) return undefined;
  return (request, response, next) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === '/docs/oauth2-redirect.html') response.setHeader('Cross-Origin-Opener-Policy', 'unsafe-none');
    else if (path === '/docs' || path.startsWith('/docs/')) response.setHeader('Cross-Origin-Opener-Policy', 'same-origin-allow-popups');
    next();
  };
}

/**
 * Adds the `oauth2` security scheme (client-credentials flow, token URL of the built-in server or the external
 * issuer, the chat scopes; with the operator flow on also the authorization-code flow at `/oauth/auth`) and the chat
 * tags to the document skeleton, before the operations are collected.
 */
export function addChatSecurityScheme(skeleton: Omit<OpenAPIObject, 'paths'>, app: INestApplication): void {
  const settings = app.get<ChatOAuthSettings>(CHAT_OAUTH_SETTINGS, { strict: false });
  const operators = operatorFlowOn(app);
  const source =
    settings.mode === 'built-in'
      ? `the built-in authorization server (\`${settings.tokenUrl}\`, client_secret_basic or client_secret_post; metadata at \`/.well-known/oauth-authorization-server/oauth\`; create a client with \`atrium-chat client create --tenant <id>\`)`
      : `the issuer ${settings.issuer}`;
  const operatorText = operators
    ? ` Operators: the authorization-code flow with PKCE (client \`${SWAGGER_UI_CLIENT_ID}\`, no secret), signing in through the operator single sign-on; they get the scopes of CHAT_OAUTH_OPERATOR_SCOPES and the tenants of CHAT_OAUTH_OPERATOR_TENANTS.`
    : '';
  skeleton.components ??= {};
  skeleton.components.securitySchemes ??= {};
  skeleton.components.securitySchemes[CHAT_OAUTH_SCHEME] = {
    type: 'oauth2',
    description:
      `Chat management service: an OAuth2 access token (JWT, audience \`${settings.audience}\`) from ${source}. ` +
      `The tenant comes from the \`${settings.tenantClaim}\` claim; GET needs chat:read, other methods chat:write, /api/platform/* platform:admin.` +
      operatorText,
    flows: {
      clientCredentials: { tokenUrl: settings.tokenUrl, scopes: CHAT_SCOPE_DESCRIPTIONS },
      ...(operators ? { authorizationCode: { authorizationUrl: `${CHAT_OAUTH_MOUNT_PATH}/auth`, tokenUrl: settings.tokenUrl, scopes: CHAT_SCOPE_DESCRIPTIONS } } : {}),
    },
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
