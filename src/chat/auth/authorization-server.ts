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

/** A Node request handler (what oidc-provider's `callback()` returns), mountable with `app.use(path, handler)`. */
export type OAuthRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

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
 * the client-credentials grant only, mounted at `/oauth` (discovery at `/oauth/.well-known/openid-configuration`,
 * JWKS at `/oauth/jwks`, tokens at `/oauth/token`, client authentication `client_secret_basic`).
 *
 * - Clients are rows of `chat_oauth_client`, looked up through the adapter; their secret is stored as a SHA-256
 *   hash and checked through `Client.prototype.compareClientSecret` (oidc-provider's hook for hashed secrets).
 * - Access tokens are JWTs (RFC 9068, `typ: at+jwt`) for the one resource server, the chat API (RFC 8707 resource
 *   indicator `${CHAT_PUBLIC_URL}/api`, assumed when the client sends none), with `aud` = CHAT_OAUTH_AUDIENCE,
 *   signed ES256 with the key under `$DATA_DIR/chat-oauth/` and valid for CHAT_OAUTH_TOKEN_TTL_S.
 * - `extraTokenClaims` adds the client's tenant under CHAT_OAUTH_TENANT_CLAIM; a request without `scope` gets all of
 *   the client's scopes (RFC 6749 §3.3 default), one with a scope the client lacks gets `invalid_scope`.
 * - The app verifies these tokens exactly like an external issuer's (chat-token-verifier.ts), against this JWKS.
 */
export class ChatAuthorizationServer {
  private constructor(
    /** Mount this at CHAT_OAUTH_MOUNT_PATH; undefined with an external issuer. */
    readonly handler: OAuthRequestHandler | undefined,
    /** The JWKS this server publishes (empty with an external issuer). */
    readonly publicJwks: JSONWebKeySet,
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
    const provider = new Provider(settings.issuer, {
      adapter: (model: string) => new ClientTableAdapter(model, clients),
      jwks: { keys: [key.privateJwk] },
      // No session or interaction cookies are ever set (no browser flows); keys are required all the same.
      cookies: { keys: [randomSecret(32)] },
      scopes,
      responseTypes: [],
      clientAuthMethods: ['client_secret_basic'],
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
          getResourceServerInfo: (_ctx: OidcContext, indicator: string) => {
            if (indicator !== settings.resourceIndicator) {
              throw new errors.InvalidTarget(`unknown resource; this server issues tokens for ${settings.resourceIndicator} only`);
            }
            return {
              scope: scopes.join(' '),
              audience: settings.audience,
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
          // RFC 6749 §3.3: a request without `scope` gets the client's registered scopes.
          jwt: async (ctx: OidcContext, token: OidcToken, jwt: { payload: Record<string, unknown> }) => {
            if (token.kind !== 'ClientCredentials' || token.scope || !ctx.oidc.client?.scope) return;
            token.scope = ctx.oidc.client.scope;
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
    // X-Forwarded-Proto/Host from a TLS-terminating proxy decide the URLs in the discovery document.
    provider.proxy = true;
    provider.on('server_error', (_ctx: unknown, error: Error) => logger.error(`token endpoint failed: ${error.message}`));
    provider.on('grant.error', (_ctx: unknown, error: Error) => logger.debug(`token request refused: ${error.message}`));
    return new ChatAuthorizationServer(provider.callback(), { keys: [key.publicJwk] });
  }
}
