import ipaddr from 'ipaddr.js';
import { TENANT_SLUG_PATTERN } from '../tenants/tenant-slug';
import { CHAT_READ_SCOPE, CHAT_SCOPE_DESCRIPTIONS, CHAT_WRITE_SCOPE } from './chat-scopes';

/**
 * Pure rules of the built-in authorization server's token requests (issue 22 item 5), kept out of the oidc-provider
 * wiring (authorization-server.ts) so that they are unit-tested and, with issue 13, move to another front unchanged.
 */

/** Path of the MCP endpoint below its tenant (`/api/{tenant}/mcp`). */
export const MCP_RESOURCE_PATH = 'mcp';

/** The MCP endpoint's URL of a tenant: its protected resource (RFC 9728 `resource`) and RFC 8707 indicator. */
export function mcpResourceUrl(publicUrl: string, tenantId: string): string {
  return `${publicUrl}/api/${tenantId}/${MCP_RESOURCE_PATH}`;
}

/** Scopes an MCP-resource token may carry (the MCP endpoint reads with chat:read and calls tools with chat:write). */
export const MCP_RESOURCE_SCOPES = [CHAT_READ_SCOPE, CHAT_WRITE_SCOPE] as const;

/** What the server knows about resources: `publicUrl` without a trailing slash, the general `aud` of chat tokens. */
export interface ResourceContext {
  publicUrl: string;
  /** CHAT_OAUTH_AUDIENCE: the audience of tokens for the API root. */
  audience: string;
}

/** A resource a token may be issued for: its `aud` and the scopes it can carry. */
export interface TokenResource {
  audience: string;
  scopes: string[];
}

/** A token request refused with an RFC 6749 / RFC 8707 error code and a description for the client. */
export class TokenRequestRefused extends Error {
  constructor(
    readonly error: 'invalid_target' | 'invalid_scope',
    message: string,
    /** invalid_scope only: the scope at fault. */
    readonly scope?: string,
  ) {
    super(message);
  }
}

/**
 * Resolves an RFC 8707 `resource` indicator:
 * - `${publicUrl}/api` (the API root, assumed when none is sent): `aud` = CHAT_OAUTH_AUDIENCE, every chat scope;
 * - `${publicUrl}/api/{tenant}/mcp`, exactly as the tenant's RFC 9728 document names it: `aud` = that URL, the MCP
 *   scopes; the tenant must be the client's own.
 * @param indicator the `resource` parameter as sent
 * @param clientTenant the client's tenant (undefined for a platform client)
 * @throws TokenRequestRefused `invalid_target` for any other indicator, or an MCP endpoint of another tenant
 */
export function resolveTokenResource(indicator: string, context: ResourceContext, clientTenant: string | undefined): TokenResource {
  const apiRoot = `${context.publicUrl}/api`;
  if (indicator === apiRoot) return { audience: context.audience, scopes: Object.keys(CHAT_SCOPE_DESCRIPTIONS) };
  const prefix = `${apiRoot}/`;
  const suffix = `/${MCP_RESOURCE_PATH}`;
  if (indicator.startsWith(prefix) && indicator.endsWith(suffix)) {
    const tenant = indicator.slice(prefix.length, -suffix.length);
    if (TENANT_SLUG_PATTERN.test(tenant)) {
      if (tenant !== clientTenant) {
        throw new TokenRequestRefused('invalid_target', `the resource ${indicator} is the MCP endpoint of tenant "${tenant}"; this client ${clientTenant ? `belongs to tenant "${clientTenant}"` : 'has no tenant'}`);
      }
      return { audience: indicator, scopes: [...MCP_RESOURCE_SCOPES] };
    }
  }
  throw new TokenRequestRefused('invalid_target', `unknown resource; this server issues tokens for ${apiRoot} and each tenant's MCP endpoint ${mcpResourceUrl(context.publicUrl, '{tenant}')}`);
}

/**
 * The scopes a client-credentials token gets (RFC 6749 §3.3, never broadened): with no `scope` parameter (absent or
 * blank), the client's registered scopes that the resource can carry; otherwise exactly the ones asked for, each of
 * which must be known to the server, registered for the client and carried by the resource.
 * @param requested the `scope` parameter (space-delimited), undefined when absent
 * @param clientScopes the client's registered scopes
 * @param resource the resolved resource
 * @returns the granted scopes, distinct, in the order asked (or registered)
 * @throws TokenRequestRefused `invalid_scope` naming the first scope at fault, or when nothing would be granted
 */
export function grantScopes(requested: string | undefined, clientScopes: readonly string[], resource: TokenResource): string[] {
  const asked = [...new Set((requested ?? '').split(' ').filter(Boolean))];
  if (asked.length === 0) {
    const granted = clientScopes.filter((scope) => resource.scopes.includes(scope));
    if (granted.length === 0) throw new TokenRequestRefused('invalid_scope', `this client holds none of the scopes of the requested resource (${resource.scopes.join(' ')})`);
    return granted;
  }
  for (const scope of asked) {
    if (!(scope in CHAT_SCOPE_DESCRIPTIONS)) throw new TokenRequestRefused('invalid_scope', `unknown scope "${scope}"; this server knows ${Object.keys(CHAT_SCOPE_DESCRIPTIONS).join(' ')}`, scope);
    if (!clientScopes.includes(scope)) throw new TokenRequestRefused('invalid_scope', `requested scope "${scope}" is not allowed for this client`, scope);
    if (!resource.scopes.includes(scope)) throw new TokenRequestRefused('invalid_scope', `scope "${scope}" cannot be granted for the requested resource`, scope);
  }
  return asked;
}

/**
 * RFC 8414 Authorization Server Metadata of the built-in server, also served as its OpenID discovery document: only
 * what is served, every URL built from the issuer (`${CHAT_PUBLIC_URL}/oauth`), never from request headers.
 * - Always: client credentials at the token endpoint, client_secret_basic and client_secret_post, the JWKS.
 * - With `operatorFlow` (operator single sign-on configured, issue 13 item 2): also the authorization-code grant
 *   (`response_type=code`) with PKCE S256 only, and `none` client authentication (Swagger UI is a public client).
 *
 * `authorization_endpoint` is present even without the code flow (`response_types_supported: []`, the endpoint then
 * answers every request with an error): RFC 8414 lets a client-credentials-only server omit it, but the MCP
 * TypeScript SDK's metadata schema requires it, and its ClientCredentialsProvider is a client this server must serve
 * as it is (issue 22 acceptance 1).
 * @param issuer the issuer URL, without a trailing slash
 * @param operatorFlow whether the authorization-code flow for operators is on
 */
export function authorizationServerMetadata(issuer: string, operatorFlow = false): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    scopes_supported: Object.keys(CHAT_SCOPE_DESCRIPTIONS),
    response_types_supported: operatorFlow ? ['code'] : [],
    grant_types_supported: operatorFlow ? ['client_credentials', 'authorization_code'] : ['client_credentials'],
    token_endpoint_auth_methods_supported: operatorFlow ? ['client_secret_basic', 'client_secret_post', 'none'] : ['client_secret_basic', 'client_secret_post'],
    ...(operatorFlow ? { code_challenge_methods_supported: ['S256'], response_modes_supported: ['query'] } : {}),
  };
}

/** A compiled list of trusted proxy addresses (CHAT_OAUTH_TRUSTED_PROXIES). */
export type TrustedProxies = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

/**
 * Compiles CHAT_OAUTH_TRUSTED_PROXIES: IP addresses (`10.0.0.7`, `::1`) and CIDR ranges (`10.0.0.0/8`), as Express's
 * `trust proxy` takes them; `loopback` stands for 127.0.0.0/8 and ::1/128.
 * @throws Error naming the entries that are neither
 */
export function compileTrustedProxies(entries: readonly string[]): TrustedProxies {
  const compiled: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const bad: string[] = [];
  for (const entry of entries) {
    if (entry === 'loopback') {
      compiled.push(ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128'));
    } else if (entry.includes('/')) {
      try {
        compiled.push(ipaddr.parseCIDR(entry));
      } catch {
        bad.push(entry);
      }
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      compiled.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      bad.push(entry);
    }
  }
  if (bad.length > 0) throw new Error(`not an IP address, CIDR range or "loopback": ${bad.join(', ')}`);
  return compiled;
}

/**
 * Whether the peer that sent a request (the socket's address, never a header) is a trusted proxy, whose
 * `X-Forwarded-*` / `Forwarded` headers may be believed. IPv4-mapped IPv6 addresses count as their IPv4 address.
 * @param peer `socket.remoteAddress` (undefined once the socket is gone: not trusted)
 */
export function isTrustedProxy(peer: string | undefined, trusted: TrustedProxies): boolean {
  if (!peer || trusted.length === 0 || !ipaddr.isValid(peer)) return false;
  let address = ipaddr.parse(peer);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/**
 * Whether an MCP request's `Origin` may proceed (MCP Streamable HTTP transport: servers MUST validate Origin against
 * DNS rebinding): no `Origin` (a non-browser client) is allowed; otherwise it must be one of `allowed`, compared as
 * serialized origins (scheme, host, port; case and default ports normalised).
 * @param origin the `Origin` header, undefined when absent
 * @param allowed CHAT_MCP_ALLOWED_ORIGINS
 */
export function mcpOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  const normalised = serializedOrigin(origin);
  return normalised !== undefined && allowed.some((entry) => serializedOrigin(entry) === normalised);
}

function serializedOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}
