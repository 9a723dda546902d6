import type { AppConfig } from '../../config/app-config';

/** Where the built-in authorization server is mounted (issuer `${CHAT_PUBLIC_URL}/oauth`). */
export const CHAT_OAUTH_MOUNT_PATH = '/oauth';

/** Nest injection token of the resolved {@link ChatOAuthSettings}. */
export const CHAT_OAUTH_SETTINGS = Symbol('CHAT_OAUTH_SETTINGS');

/**
 * The chat wing's OAuth2 set-up, resolved once at start-up from AppConfig.chatAuth (and, for an external issuer,
 * its discovery document).
 */
export interface ChatOAuthSettings {
  /** `built-in`: CHAT_OAUTH_ISSUER unset, this app issues the tokens at /oauth. `external`: another server does. */
  mode: 'built-in' | 'external';
  /** Exact `iss` of accepted tokens. */
  issuer: string;
  audience: string;
  algorithms: string[];
  clockToleranceS: number;
  tenantClaim: string;
  /**
   * Token endpoint for the OpenAPI document and Swagger UI: `/oauth/token` for the built-in server (relative, so it
   * works on whatever host serves the UI), else the external issuer's.
   */
  tokenUrl: string;
  /** External issuer only: its JWKS (tokens are verified against it). */
  jwksUrl?: string;
  /** CHAT_PUBLIC_URL without a trailing slash: every URL the built-in server publishes is built from it. */
  publicUrl: string;
  /** Built-in only: the API root's resource indicator (RFC 8707), assumed when a client sends none. */
  resourceIndicator: string;
  /** Built-in only: CHAT_OAUTH_TRUSTED_PROXIES (peers whose forwarded headers are believed). */
  trustedProxies: string[];
  /** Built-in only: lifetime of issued tokens, seconds. */
  tokenTtlS: number;
  /** Timeout of discovery and JWKS requests, ms. */
  httpTimeoutMs: number;
}

/** The parts of an OAuth 2.0 / OpenID discovery document used here. */
interface DiscoveryDocument {
  issuer?: unknown;
  jwks_uri?: unknown;
  token_endpoint?: unknown;
}

/**
 * Resolves the OAuth2 settings. With an external issuer and CHAT_OAUTH_JWKS_URL or CHAT_OAUTH_TOKEN_URL unset, the
 * issuer's discovery document is read (`/.well-known/openid-configuration`, then RFC 8414's
 * `/.well-known/oauth-authorization-server`), and its `issuer` must equal CHAT_OAUTH_ISSUER exactly.
 * @param config AppConfig.chatAuth
 * @param fetchImpl HTTP client (default: global fetch)
 * @throws Error when discovery is needed and fails, naming the URLs tried and the variables that skip it
 */
export async function resolveChatOAuthSettings(config: AppConfig['chatAuth'], fetchImpl: typeof fetch = fetch): Promise<ChatOAuthSettings> {
  const common = {
    audience: config.audience,
    algorithms: config.algorithms,
    clockToleranceS: config.clockToleranceS,
    tenantClaim: config.tenantClaim,
    publicUrl: config.publicUrl,
    resourceIndicator: `${config.publicUrl}/api`,
    trustedProxies: config.trustedProxies,
    tokenTtlS: config.tokenTtlS,
    httpTimeoutMs: config.httpTimeoutMs,
  };
  if (!config.issuer) {
    return { ...common, mode: 'built-in', issuer: `${config.publicUrl}${CHAT_OAUTH_MOUNT_PATH}`, tokenUrl: `${CHAT_OAUTH_MOUNT_PATH}/token` };
  }
  let { jwksUrl, tokenUrl } = config;
  if (!jwksUrl || !tokenUrl) {
    const discovered = await discover(config.issuer, config.httpTimeoutMs, fetchImpl);
    jwksUrl ??= discovered.jwksUrl;
    tokenUrl ??= discovered.tokenUrl;
  }
  return { ...common, mode: 'external', issuer: config.issuer, jwksUrl, tokenUrl };
}

/** The discovery URLs of an issuer: OpenID Connect Discovery first, then RFC 8414 (path inserted after the host). */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [`${url.origin}${path}/.well-known/openid-configuration`, `${url.origin}/.well-known/oauth-authorization-server${path}`];
}

async function discover(issuer: string, timeoutMs: number, fetchImpl: typeof fetch): Promise<{ jwksUrl: string; tokenUrl: string }> {
  const problems: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    let document: DiscoveryDocument;
    try {
      const response = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) {
        problems.push(`${url}: HTTP ${response.status}`);
        continue;
      }
      document = (await response.json()) as DiscoveryDocument;
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`);
      continue;
    }
    if (document.issuer !== issuer) {
      throw new Error(`CHAT_OAUTH_ISSUER is "${issuer}" but ${url} names the issuer "${String(document.issuer)}"; set CHAT_OAUTH_ISSUER to exactly the issuer its tokens carry.`);
    }
    if (typeof document.jwks_uri !== 'string' || typeof document.token_endpoint !== 'string') {
      problems.push(`${url}: no jwks_uri or token_endpoint`);
      continue;
    }
    return { jwksUrl: document.jwks_uri, tokenUrl: document.token_endpoint };
  }
  throw new Error(
    `Could not read the discovery document of CHAT_OAUTH_ISSUER (${problems.join('; ')}). ` +
      'Make the issuer reachable, or set CHAT_OAUTH_JWKS_URL and CHAT_OAUTH_TOKEN_URL to skip discovery.',
  );
}
