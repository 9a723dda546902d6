import { CHAT_SCOPE_DESCRIPTIONS } from './chat-scopes';

/**
 * Pure rules of the operator authorization-code flow of the built-in authorization server (issue 13 item 2: Swagger
 * UI's "Authorize" without pasting a token), kept out of the oidc-provider wiring (authorization-server.ts).
 */

/** Client id of Swagger UI, the one public client of the authorization-code flow (built in, never in chat_oauth_client). */
export const SWAGGER_UI_CLIENT_ID = 'atrium-swagger-ui';

/** The operator sign-in port's purpose for an operator login the authorization server started. */
export const OPERATOR_LOGIN_PURPOSE = 'chat-oauth-login';

/** Where the authorization server sends the browser for its login prompt, below the issuer (`/oauth/interaction/{uid}`). */
export const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]{1,64})\/?(?:\?.*)?$/;

/** Swagger UI's OAuth2 redirect page (served by Swagger UI at `/docs`), the client's only redirect URI. */
export function swaggerRedirectUri(publicUrl: string): string {
  return `${publicUrl}/docs/oauth2-redirect.html`;
}

/**
 * The built-in Swagger UI client as oidc-provider reads it: public (`none`: a page cannot keep a secret, PKCE S256
 * proves the code's owner instead), authorization code only, one redirect URI, every chat scope (what an operator
 * actually gets is decided per operator by {@link operatorGrantScopes}).
 * @param publicUrl CHAT_PUBLIC_URL without a trailing slash
 */
export function swaggerClientMetadata(publicUrl: string): Record<string, unknown> {
  return {
    client_id: SWAGGER_UI_CLIENT_ID,
    client_name: 'Atrium Swagger UI',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [swaggerRedirectUri(publicUrl)],
    scope: Object.keys(CHAT_SCOPE_DESCRIPTIONS).join(' '),
  };
}

/**
 * Which of the scopes an operator asked for are granted (CHAT_OAUTH_OPERATOR_SCOPES), and which are recorded as
 * refused so that no consent prompt is raised for them: a first-party client never asks the operator, it is told.
 * Scopes the server does not know (`openid`, …) are refused too.
 * @param requested the request's scopes (order kept, duplicates dropped)
 * @param operatorScopes CHAT_OAUTH_OPERATOR_SCOPES
 */
export function operatorGrantScopes(requested: Iterable<string>, operatorScopes: readonly string[]): { granted: string[]; refused: string[] } {
  const granted: string[] = [];
  const refused: string[] = [];
  for (const scope of new Set(requested)) {
    if (scope in CHAT_SCOPE_DESCRIPTIONS && operatorScopes.includes(scope)) granted.push(scope);
    else refused.push(scope);
  }
  return { granted, refused };
}

/**
 * The tenant claim of an operator's token (CHAT_OAUTH_OPERATOR_TENANTS): one tenant as a string, several as an array
 * (chat-scopes.ts `tokenTenants` reads both), none → no claim (platform routes only).
 */
export function operatorTenantClaim(tenants: readonly string[]): string | string[] | undefined {
  if (tenants.length === 0) return undefined;
  return tenants.length === 1 ? tenants[0] : [...tenants];
}

/** Whether an oidc-provider account id names a signed-in operator (`user:<e-mail or login>`, as single sign-on makes them). */
export function isOperatorAccount(accountId: unknown): accountId is string {
  return typeof accountId === 'string' && /^user:\S{1,320}$/.test(accountId);
}
