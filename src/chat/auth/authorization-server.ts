import { Logger } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { OidcClient, OidcContext, OidcToken } from 'oidc-provider';
import { randomSecret, secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import { CHAT_SCOPE_DESCRIPTIONS } from './chat-scopes';
import type { ChatOAuthSettings } from './chat-oauth.settings';
import type { OAuthClientsService } from './oauth-clients.service';
import { BUILT_IN_SIGNING_ALG, loadOrCreateSigningKey } from './signing-key';
import { authorizationServerMetadata, compileTrustedProxies, grantScopes, isTrustedProxy, resolveTokenResource, TokenRequestRefused } from './token-request-rules';

/** A Node request handler (what oidc-provider's `callback()` returns), mountable with `app.use(path, handler)`. */
export type OAuthRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Request headers through which a proxy tells the client's host, scheme and address: believed only from trusted proxies. */
const FORWARDED_HEADERS = ['forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-port', 'x-forwarded-prefix'];

/**
 * Serves a metadata document (GET/HEAD, public, CORS-open like oidc-provider's own discovery); anything else gets 405.
 */
function serveMetadata(document: Record<string, unknown>, request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'invalid_request', error_description: 'use GET' }));
    return;
  }
  const body = JSON.stringify(document);
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'content-length': Buffer.byteLength(body) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Where the built-in server keeps its signing key, under DATA_DIR. */
export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'chat-oauth', 'signing-key.jwk.json');
}

/**
 * oidc-provider's storage adapter: clients come from `chat_oauth_client` (OAuthClientsService); nothing else is
 * stored, because client-credentials access tokens are self-contained JWTs (oidc-provider saves no payload for them).
 * Any attempt to store another model is refused rather than silently kept in memory.
 */
class ClientTableAdapter {
  constructor(
    private readonly model: string,
    private readonly clients: OAuthClientsService,
  ) {}

  async find(id: string): Promise<unknown> {
    return this.model === 'Client' ? this.clients.oidcMetadata(id) : undefined;
  }
  async upsert(): Promise<void> {
    throw new Error(`The built-in authorization server keeps no ${this.model} records (client-credentials grant only).`);
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/**
 * The built-in OAuth2 authorization server (issue 5), active when CHAT_OAUTH_ISSUER is unset: oidc-provider 8 with
 * the client-credentials grant only, mounted at `/oauth` (discovery at `/oauth/.well-known/openid-configuration` and,
 * RFC 8414, at `/.well-known/oauth-authorization-server/oauth`; JWKS at `/oauth/jwks`, tokens at `/oauth/token`,
 * client authentication `client_secret_basic` or `client_secret_post`; issue 22 item 5).
 *
 * - Clients are rows of `chat_oauth_client`, looked up through the adapter; their secret is stored as a SHA-256
 *   hash and checked through `Client.prototype.compareClientSecret` (oidc-provider's hook for hashed secrets).
 * - Access tokens are JWTs (RFC 9068, `typ: at+jwt`) signed ES256 with the key under `$DATA_DIR/chat-oauth/`, valid
 *   for CHAT_OAUTH_TOKEN_TTL_S, for one RFC 8707 resource: the chat API (`${CHAT_PUBLIC_URL}/api`, assumed when the
 *   client sends none; `aud` = CHAT_OAUTH_AUDIENCE) or the client's tenant's MCP endpoint
 *   (`${CHAT_PUBLIC_URL}/api/{tenant}/mcp`, as its RFC 9728 document names it; `aud` = that URL). Anything else,
 *   another tenant's MCP endpoint included, is `invalid_target` (token-request-rules.ts).
 * - `extraTokenClaims` adds the client's tenant under CHAT_OAUTH_TENANT_CLAIM; a request without `scope` gets the
 *   client's scopes (RFC 6749 §3.3 default); a scope the server doesn't know, the client doesn't hold or the resource
 *   can't carry is `invalid_scope` — never silently dropped, never broadened.
 * - Every published URL comes from the issuer (CHAT_PUBLIC_URL); forwarded headers reach the provider only from
 *   CHAT_OAUTH_TRUSTED_PROXIES, so no client can poison a cached discovery document.
 * - The app verifies these tokens exactly like an external issuer's (chat-token-verifier.ts), against this JWKS.
 */
export class ChatAuthorizationServer {
  private constructor(
    /** Mount this at CHAT_OAUTH_MOUNT_PATH; undefined with an external issuer. */
    readonly handler: OAuthRequestHandler | undefined,
    /** The JWKS this server publishes (empty with an external issuer). */
    readonly publicJwks: JSONWebKeySet,
    /** Serves the RFC 8414 metadata; mount it at {@link metadataPath}. Undefined with an external issuer. */
    readonly metadataHandler?: OAuthRequestHandler,
    /** RFC 8414 §3.1 well-known path of the issuer (`/.well-known/oauth-authorization-server/oauth`). */
    readonly metadataPath?: string,
  ) {}

  /** The stand-in used with an external issuer: nothing to mount, no keys. */
  static disabled(): ChatAuthorizationServer {
    return new ChatAuthorizationServer(undefined, { keys: [] });
  }

  /**
   * Loads (or creates) the signing key and builds the provider.
   * @param settings resolved settings in `built-in` mode
   * @param dataDir DATA_DIR (absolute)
   * @param clients the client table
   */
  static async start(settings: ChatOAuthSettings, dataDir: string, clients: OAuthClientsService): Promise<ChatAuthorizationServer> {
    const logger = new Logger('ChatAuthorizationServer');
    const key = await loadOrCreateSigningKey(signingKeyFile(dataDir));
    if (key.created) logger.log(`generated the OAuth2 signing key ${key.privateJwk.kid} in ${signingKeyFile(dataDir)}`);
    const { default: Provider, errors } = await import('oidc-provider');
    const scopes = Object.keys(CHAT_SCOPE_DESCRIPTIONS);
    const publicOrigin = new URL(settings.issuer).origin;
    const trustedProxies = compileTrustedProxies(settings.trustedProxies);
    const resourceContext = { publicUrl: settings.publicUrl, audience: settings.audience };
    const clientScopes = (client: OidcClient | undefined) => (typeof client?.scope === 'string' ? client.scope.split(' ').filter(Boolean) : []);
    const refused = (error: unknown) => {
      if (!(error instanceof TokenRequestRefused)) return error;
      return error.error === 'invalid_scope' ? new errors.InvalidScope(error.message, error.scope ?? '') : new errors.InvalidTarget(error.message);
    };
    const provider = new Provider(settings.issuer, {
      adapter: (model: string) => new ClientTableAdapter(model, clients),
      jwks: { keys: [key.privateJwk] },
      // No session or interaction cookies are ever set (no browser flows); keys are required all the same.
      cookies: { keys: [randomSecret(32)] },
      scopes,
      responseTypes: [],
      // oidc-provider accepts either of the two for a client registered with one of them (token_auth.js).
      clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
      clientDefaults: {
        grant_types: ['client_credentials'],
        response_types: [],
        id_token_signed_response_alg: BUILT_IN_SIGNING_ALG,
        token_endpoint_auth_method: 'client_secret_basic',
      },
      extraClientMetadata: { properties: ['tenant_id'] },
      // Swagger UI calls the token endpoint from the same origin (browsers send Origin on POST); others are refused.
      clientBasedCORS: (ctx: OidcContext, origin: string) => origin === ctx.origin || origin === publicOrigin,
      findAccount: async () => undefined,
      ttl: { ClientCredentials: () => settings.tokenTtlS },
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        userinfo: { enabled: false },
        introspection: { enabled: false },
        revocation: { enabled: false },
        registration: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => settings.resourceIndicator,
          useGrantedResource: () => true,
          // Runs before the grant's own scope handling, which would drop unknown scopes silently: refuse them here.
          getResourceServerInfo: (ctx: OidcContext, indicator: string, client: OidcClient) => {
            let resource;
            try {
              resource = resolveTokenResource(indicator, resourceContext, typeof client?.tenant_id === 'string' ? client.tenant_id : undefined);
              grantScopes(ctx.oidc.params?.scope as string | undefined, clientScopes(client), resource);
            } catch (error) {
              throw refused(error);
            }
            return {
              scope: resource.scopes.join(' '),
              audience: resource.audience,
              accessTokenTTL: settings.tokenTtlS,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: BUILT_IN_SIGNING_ALG } },
            };
          },
        },
      },
      extraTokenClaims: async (ctx: OidcContext, token: OidcToken) => {
        const tenant = ctx.oidc.client?.tenant_id;
        return token.kind === 'ClientCredentials' && typeof tenant === 'string' ? { [settings.tenantClaim]: tenant } : undefined;
      },
      formats: {
        customizers: {
          // RFC 6749 §3.3: a request without `scope` gets the client's registered scopes (those its resource carries).
          // Only then: a request that named scopes was checked in getResourceServerInfo and gets exactly those.
          jwt: async (ctx: OidcContext, token: OidcToken, jwt: { payload: Record<string, unknown> }) => {
            if (token.kind !== 'ClientCredentials' || token.scope || ctx.oidc.params?.scope) return;
            const resourceScopes = typeof token.resourceServer?.scope === 'string' ? token.resourceServer.scope.split(' ') : [];
            token.scope = grantScopes(undefined, clientScopes(ctx.oidc.client), { audience: '', scopes: resourceScopes }).join(' ');
            jwt.payload.scope = token.scope;
          },
        },
      },
      renderError: async (ctx: { type: string; body: unknown }, out: Record<string, unknown>) => {
        ctx.type = 'json';
        ctx.body = out;
      },
    });
    provider.Client.prototype.compareClientSecret = function compareHashedSecret(this: OidcClient, actual: string) {
      return typeof actual === 'string' && typeof this.clientSecret === 'string' && secretsEqual(sha256Hex(actual), this.clientSecret);
    };
    // Koa believes X-Forwarded-* only when told to; the handler below drops them unless a trusted proxy sent them.
    provider.proxy = trustedProxies.length > 0;
    provider.on('server_error', (_ctx: unknown, error: Error) => logger.error(`token endpoint failed: ${error.message}`));
    provider.on('grant.error', (_ctx: unknown, error: Error) => logger.debug(`token request refused: ${error.message}`));
    const providerHandler = provider.callback();
    const metadata = authorizationServerMetadata(settings.issuer);
    const handler: OAuthRequestHandler = (request, response) => {
      if (!isTrustedProxy(request.socket.remoteAddress, trustedProxies)) for (const name of FORWARDED_HEADERS) delete request.headers[name];
      // Our own discovery document: oidc-provider's lists what it could serve (openid, authorization endpoint, …).
      if (request.url?.split('?')[0] === '/.well-known/openid-configuration') return serveMetadata(metadata, request, response);
      providerHandler(request, response);
    };
    const metadataHandler: OAuthRequestHandler = (request, response) => serveMetadata(metadata, request, response);
    const metadataPath = `/.well-known/oauth-authorization-server${new URL(settings.issuer).pathname.replace(/\/+$/, '')}`;
    return new ChatAuthorizationServer(handler, { keys: [key.publicJwk] }, metadataHandler, metadataPath);
  }
}
