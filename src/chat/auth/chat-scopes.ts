/**
 * OAuth2 scopes of the chat wing (issue 5, Tenancy and OAuth2): `chat:read` for GET, `chat:write` for every other
 * method, `platform:admin` for the platform administrator's routes (`/api/platform/*`).
 */
export const CHAT_READ_SCOPE = 'chat:read';
export const CHAT_WRITE_SCOPE = 'chat:write';
export const PLATFORM_ADMIN_SCOPE = 'platform:admin';

/** Scopes a tenant client may hold. */
export const TENANT_CLIENT_SCOPES = [CHAT_READ_SCOPE, CHAT_WRITE_SCOPE] as const;
/** Every scope the wing knows, with the description shown in the OpenAPI document and Swagger UI. */
export const CHAT_SCOPE_DESCRIPTIONS: Record<string, string> = {
  [CHAT_READ_SCOPE]: 'Read the data of the token\'s tenant (GET operations).',
  [CHAT_WRITE_SCOPE]: 'Change the data of the token\'s tenant (POST, PUT, PATCH, DELETE operations).',
  [PLATFORM_ADMIN_SCOPE]: 'Manage tenants and OAuth2 clients (/api/platform/*).',
};

/** HTTP methods that only read: they need `chat:read`. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The scope a chat operation with this HTTP method needs. */
export function scopeForMethod(method: string): string {
  return READ_METHODS.has(method.toUpperCase()) ? CHAT_READ_SCOPE : CHAT_WRITE_SCOPE;
}

/**
 * The scopes an access token grants, from `scope` (RFC 9068 / RFC 8693: space-delimited string) and `scp` (a string
 * or an array, as some issuers send it). Anything else in those claims is ignored.
 * @param claims the verified JWT payload
 * @returns the distinct scope values
 */
export function grantedScopes(claims: Record<string, unknown>): string[] {
  const found = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    const items = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
    for (const item of items) if (typeof item === 'string' && item.length > 0) found.add(item);
  }
  return [...found];
}

/**
 * The tenant ids an access token names in its tenant claim: a string is one tenant, an array of strings several;
 * other types (and empty strings) name none.
 * @param claims the verified JWT payload
 * @param claim the claim's name (CHAT_OAUTH_TENANT_CLAIM)
 */
export function tokenTenants(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return [...new Set(items.filter((item): item is string => typeof item === 'string' && item.length > 0))];
}

/**
 * Parses a scope list given by an operator (`chat:read,chat:write` or space-separated) and checks it against the
 * allowed ones.
 * @throws Error naming the unknown scopes
 */
export function parseScopeList(text: string, allowed: readonly string[]): string[] {
  const scopes = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  const unknown = scopes.filter((scope) => !allowed.includes(scope));
  if (unknown.length > 0) throw new Error(`Unknown scope(s): ${unknown.join(', ')}; allowed: ${allowed.join(', ')}.`);
  if (scopes.length === 0) throw new Error(`Name at least one scope (${allowed.join(', ')}).`);
  return scopes;
}
